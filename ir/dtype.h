// Element types of the core (spec/dtypes.def, spec/numerics.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace plumb::ir {

enum class DType : uint8_t {
#define PLUMB_DTYPE(Enum, mnemonic, bits, onnx_code, category) Enum,
#include "spec/dtypes.def"
};

enum class DTypeCategory : uint8_t { Bool, Signed, Unsigned, Float, String };

constexpr int kNumDTypes = 0
#define PLUMB_DTYPE(Enum, mnemonic, bits, onnx_code, category) +1
#include "spec/dtypes.def"
    ;

std::string_view dtype_name(DType dt);  // "f32"
std::optional<DType> dtype_from_name(std::string_view name);
int dtype_bits(DType dt);       // storage bits; 0 for string
int dtype_onnx_code(DType dt);  // TensorProto.DataType
std::optional<DType> dtype_from_onnx_code(int code);
DTypeCategory dtype_category(DType dt);

inline bool is_float(DType dt) { return dtype_category(dt) == DTypeCategory::Float; }
inline bool is_signed_int(DType dt) { return dtype_category(dt) == DTypeCategory::Signed; }
inline bool is_unsigned_int(DType dt) { return dtype_category(dt) == DTypeCategory::Unsigned; }
inline bool is_int(DType dt) { return is_signed_int(dt) || is_unsigned_int(dt); }
inline bool is_bool(DType dt) { return dt == DType::Bool; }
inline bool is_string(DType dt) { return dt == DType::String; }
// Sub-byte types (i2, u2, i4, u4, f4e2m1) are packed in files, low bits first (as ONNX packs them).
inline bool is_packed(DType dt) { return dtype_bits(dt) > 0 && dtype_bits(dt) < 8; }
// Bytes for n elements as stored in a .plumb constant or a runtime buffer; 0 for string.
// Sub-byte types are packed; the count is rounded up to whole bytes.
uint64_t dtype_storage_bytes(DType dt, uint64_t n);

}  // namespace plumb::ir
