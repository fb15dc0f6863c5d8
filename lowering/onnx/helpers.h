// Helpers shared by lowering rules: numpy-style broadcasting made explicit, axis normalisation,
// scalar constants of a value's dtype, and widening narrow floats for composites.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/builder.h"
#include "lowering/onnx/context.h"

namespace plumb::lower {

// The shape of `v` as an i64[rank] value: a constant when static, else shape_of.
ir::ValueId shape_value(LowerCtx& cx, ir::ValueId v);
// Broadcasts every operand to their common (numpy multidirectional) shape with explicit
// `broadcast` nodes; operands already of that shape are returned unchanged. Statically
// incompatible shapes are an InvalidModel error; dynamic ones are checked by broadcast.R-labels.
Expected<std::vector<ir::ValueId>> broadcast_all(LowerCtx& cx, std::vector<ir::ValueId> vals);
// Unidirectional broadcast of `v` to `shape` (an i64[r] value) of static rank r.
ir::ValueId broadcast_to(LowerCtx& cx, ir::ValueId v, ir::ValueId shape, int64_t rank);

// An ONNX axis in [-rank, rank) made non-negative, or the InvalidModel error (cx.invalid) saying
// that it is out of range.
Expected<int64_t> normalize_axis(LowerCtx& cx, int64_t axis, int64_t rank, const char* what = "axis");

// A scalar of `like`'s dtype (rank 0) and the same broadcast to `like`'s shape.
ir::ValueId scalar_like(LowerCtx& cx, double v, ir::ValueId like);
ir::ValueId splat(LowerCtx& cx, double v, ir::ValueId like);

// Compute type for a floating composite: f16/bf16/f8 compute in f32 (spec/numerics.md), f32 and
// f64 in their own type. `to_compute` casts up (when needed); `from_compute` casts the result back.
ir::DType compute_dtype(ir::DType dt);
ir::ValueId to_compute(LowerCtx& cx, ir::ValueId v);
ir::ValueId from_compute(LowerCtx& cx, ir::ValueId v, ir::DType original);
// f64 composites (evaluated in f64 and rounded once): `v` as f64 (no node when it is already), and
// an f64 result back to `dt` (saturating, as the ONNX reference's astype does for floats).
ir::ValueId to_f64(LowerCtx& cx, ir::ValueId v);
ir::ValueId from_f64(LowerCtx& cx, ir::ValueId v, ir::DType dt);
// The range of integer dtype `dt` as the f64 values nearest inside it (the largest doubles below
// 2^63 and 2^64: the limits themselves do not fit); {0, 0} for other dtypes.
struct F64Range {
  double lo = 0, hi = 0;
};
F64Range f64_int_range(ir::DType dt);

int64_t rank_of(LowerCtx& cx, ir::ValueId v);

// A ranked tensor type whose dims are all static, and those dims.
bool is_static(const ir::Type& t);
std::vector<int64_t> static_dims(const ir::Type& t);
// Run-time shape parameters (issue 13: one .plumb serves every input size).
// `v` (an integer scalar or 1-element tensor, any integer dtype) as i64[1].
ir::ValueId as_i64_1(LowerCtx& cx, ir::ValueId v);
// `shape` (i64[r]) with entry `axis` replaced by `entry` (i64[1]).
ir::ValueId with_dim(LowerCtx& cx, ir::ValueId shape, int64_t r, int64_t axis, ir::ValueId entry);
// `x[0 : size]` with unit strides along every axis; `size` an i64[rank] value.
ir::ValueId leading_slice(LowerCtx& cx, ir::ValueId x, ir::ValueId size);

// `x[start : start + size]` with unit strides, all bounds build-time constants.
ir::ValueId static_slice(LowerCtx& cx, ir::ValueId x, std::vector<int64_t> start, std::vector<int64_t> size);

}  // namespace plumb::lower
