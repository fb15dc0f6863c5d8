// Constants and types as the verifier and builder check them, and a constant's integer contents, decoded for
// inference (ir/infer.h Operand::values), and the inverse used by the builder to make small constants. Shared
// by the verifier and the builder so both see the same numbers. Byte layout (spec/numerics.md):
// little-endian; sub-byte types packed low bits first; bool one byte per element.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"

namespace plumb::ir {

// The elements of an integer-dtype constant (i2..i64, u2..u64) widened to int64, in row-major
// order; nullopt when the dtype is not an integer type, the type is not a static tensor, it has
// more than kMaxKnownValues elements, its byte size does not match its type, or a u64 element
// exceeds INT64_MAX (an unknown operand is safe: the op then checks at run time).
std::optional<std::vector<int64_t>> constant_int_values(const ConstantData& c);

// Bytes of `values` stored as `dt` (an integer dtype or bool): each value wraps to the dtype's
// width (two's complement), bool stores 0 or 1. Unsupported for other dtypes.
Expected<std::vector<uint8_t>> encode_int_values(DType dt, const std::vector<int64_t>& values);

// Bytes of `values` stored as f32 or f64 (rounded to nearest even for f32). Unsupported for other
// dtypes (narrow floats are made by a `cast` node, which the spec rounds).
Expected<std::vector<uint8_t>> encode_float_values(DType dt, const std::vector<double>& values);

// graph.V2 (spec/verifier.md): why `t` is not a well-formed type, or "" when it is: kind and
// dtype codes in range, containers have an element type, nesting <= kMaxTypeDepth, rank <=
// kMaxRank, dims >= 0 or kDynamic (a static dim has no name), static element count <= kMaxElements.
constexpr int kMaxTypeDepth = 16;
std::string type_problem(const Type& t, int depth = 0);

// graph.V4: why `c` is not a valid constant, or "" when it is: a well-formed static tensor type,
// and bytes that match it (dtype_storage_bytes, or for strings the u32-length-prefixed elements
// ending exactly at the end of the data).
std::string constant_problem(const ConstantData& c);

}  // namespace plumb::ir
