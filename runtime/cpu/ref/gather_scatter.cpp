// ref kernels of gather, scatter and nonzero (spec/ops/gather.md, scatter.md, nonzero.md).
// Gather and scatter first work out, independent of the dtype, where each block of elements comes
// from or goes to (checking every index: the R-labels), then move the elements in one typed loop.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/attr_ref.h"
#include "runtime/cpu/ref/dispatch.h"
#include "runtime/cpu/ref/index.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cpu/ref/round_wrap.h"
#include "runtime/cpu/ref/scratch.h"

namespace plumb::rt::ref {

namespace {

// indices are i32 or i64 (gather.C1, scatter.C1).
int64_t index_at(const Tensor& indices, int64_t i) {
  return indices.dtype == ir::DType::I32 ? indices.as<int32_t>()[i] : indices.as<int64_t>()[i];
}

std::string index_string(const Dims& index) {
  std::string s = "[";
  for (size_t d = 0; d < index.size(); ++d) s += (d ? "," : "") + std::to_string(index[d]);
  return s + "]";
}

Dims unflatten(int64_t flat, const Dims& shape) {
  Dims index(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    index[d] = shape[d] > 0 ? flat % shape[d] : 0;
    flat = shape[d] > 0 ? flat / shape[d] : 0;
  }
  return index;
}

// <op>.R1: index k (at flat position `at` of indices) must lie in [0, extent) of operand dim `dim`.
Status check_index(const char* label, const Tensor& indices, int64_t at, int64_t k, int64_t extent,
                   int64_t dim) {
  if (k >= 0 && k < extent) return Status::ok();
  return runtime_error(
      label, strfmt("index %lld at indices%s out of range [0, %lld) of operand dim %lld", (long long)k,
                    index_string(unflatten(at, indices.shape)).c_str(), (long long)extent, (long long)dim));
}

// Where the blocks of a gather come from / of a scatter go to: block b covers elements
// [offsets[b], offsets[b] + block) of the operand (gather) or result (scatter). `offsets` has room
// for block_count entries (the kernel's scratch).
struct Blocks {
  int64_t* offsets = nullptr;
  int64_t count = 0;
  int64_t block = 1;
  void push_back(int64_t off) { offsets[count++] = off; }
};

// The number of blocks of each kind (what Blocks::offsets must hold): one per index (elements),
// per k-tuple (nd), per (outer position, index) (axis).
int64_t block_count(ir::GatherKind kind, const Dims& operand_shape, const Dims& indices_shape, int64_t axis) {
  if (kind == ir::GatherKind::Elements) return num_elements(indices_shape);
  if (kind == ir::GatherKind::Axis) {
    int64_t outer = 1;
    for (int64_t d = 0; d < axis && d < static_cast<int64_t>(operand_shape.size()); ++d)
      outer *= operand_shape[d];
    return outer * num_elements(indices_shape);
  }
  if (indices_shape.empty()) return 0;
  return num_elements(indices_shape) / std::max<int64_t>(1, indices_shape.back());
}

// kind=elements: one element per index; target = the index's position with dim `axis` replaced.
Status element_blocks(const char* label, const Tensor& indices, const Dims& operand_shape, int64_t axis,
                      Blocks& out) {
  const Dims strides = row_major_strides(operand_shape);
  for (IndexIter it(indices.shape); !it.done(); it.next()) {
    const int64_t k = index_at(indices, it.flat());
    PLUMB_RETURN_IF_ERROR(check_index(label, indices, it.flat(), k, operand_shape[axis], axis));
    out.push_back(offset_of(it.index(), strides) + (k - it[axis]) * strides[axis]);
  }
  return Status::ok();
}

// kind=nd: each k-tuple along the last indices dim (after `batch_dims` leading batch dims) picks
// a slice operand[batch..., i0, ..., ik-1, :...].
Status nd_blocks(const char* label, const Tensor& indices, const Dims& operand_shape, int64_t batch_dims,
                 Blocks& out) {
  const int64_t k = indices.shape.back();
  const Dims strides = row_major_strides(operand_shape);
  int64_t batch_n = 1, tuples = 1;
  for (int64_t d = 0; d + 1 < indices.rank(); ++d) (d < batch_dims ? batch_n : tuples) *= indices.shape[d];
  const int64_t batch_size = batch_dims > 0 ? strides[batch_dims - 1] : 0;
  out.block = strides[batch_dims + k - 1];  // elements of operand.shape[batch_dims + k:]
  for (int64_t b = 0; b < batch_n; ++b)
    for (int64_t j = 0; j < tuples; ++j) {
      int64_t off = b * batch_size;
      for (int64_t t = 0; t < k; ++t) {
        const int64_t at = (b * tuples + j) * k + t, dim = batch_dims + t;
        const int64_t v = index_at(indices, at);
        PLUMB_RETURN_IF_ERROR(check_index(label, indices, at, v, operand_shape[dim], dim));
        off += v * strides[dim];
      }
      out.push_back(off);
    }
  return Status::ok();
}

// One scatter update (spec/ops/scatter.md "combine"): none replaces; add/mul wrap for integers
// and round once for floats; max/min propagate NaN, order -0 below +0, and are or/and on bool.
template <typename T>
T combine(ir::ScatterReduction reduction, ir::DType dt, const T& old, const T& upd) {
  using SR = ir::ScatterReduction;
  const bool arith = reduction == SR::Add || reduction == SR::Mul, is_max = reduction == SR::Max;
  if (reduction == SR::None) return upd;
  if constexpr (std::is_same_v<T, std::string>) {
    return upd;  // scatter.C5: strings have no reductions
  } else if constexpr (std::is_same_v<T, bool>) {
    return is_max ? (old || upd) : (old && upd);
  } else if constexpr (std::is_integral_v<T>) {
    if (!arith) return is_max ? std::max(old, upd) : std::min(old, upd);
    const uint64_t a = static_cast<uint64_t>(old), b = static_cast<uint64_t>(upd);
    return static_cast<T>(wrap_to(dt, reduction == SR::Add ? a + b : a * b));
  } else {
    double a, b;
    if constexpr (is_narrow_float_v<T>) {
      a = to_f64(old);
      b = to_f64(upd);
    } else {
      a = old;
      b = upd;
    }
    if (arith) return round_to<T>(reduction == SR::Add ? a + b : a * b);
    if (std::isnan(a)) return old;
    if (std::isnan(b)) return upd;
    if (is_max ? b > a : b < a) return upd;
    if (a == b && std::signbit(a) != std::signbit(b) && is_max != std::signbit(b)) return upd;
    return old;
  }
}

// kind=axis: block (o, j) is operand[o..., indices[j], :...]; every index is checked, even when
// the result is empty.
Status axis_blocks(const Tensor& indices, const Dims& shape, int64_t axis, Blocks& out) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (d < axis) outer *= shape[d];
    if (d > axis) inner *= shape[d];
  }
  const int64_t n = indices.numel();
  for (int64_t j = 0; j < n; ++j)
    PLUMB_RETURN_IF_ERROR(check_index("gather.R1", indices, j, index_at(indices, j), shape[axis], axis));
  out.block = inner;
  if (inner == 0) return Status::ok();  // no elements to move
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n; ++j) out.push_back((o * shape[axis] + index_at(indices, j)) * inner);
  return Status::ok();
}

}  // namespace

// spec/ops/gather.md: result block b = operand[offsets[b] .. + block].
template <>
Status kernel<ir::Op::Gather>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  const Tensor& indices = cx.inputs[1]->tensor();
  Tensor& result = cx.outputs[0]->tensor();
  const auto kind = ir::attr(cx.node, &ir::GatherAttrs::kind);
  const int64_t axis = ir::attr(cx.node, &ir::GatherAttrs::axis);
  const Dims operand_shape = operand.shape;
  Scratch scratch(cx);
  Blocks bl;
  bl.offsets = scratch.take<int64_t>(block_count(kind, operand_shape, indices.shape, axis));
  if (kind == ir::GatherKind::Axis)
    PLUMB_RETURN_IF_ERROR(axis_blocks(indices, operand_shape, axis, bl));
  else if (kind == ir::GatherKind::Elements)
    PLUMB_RETURN_IF_ERROR(element_blocks("gather.R1", indices, operand_shape, axis, bl));
  else
    PLUMB_RETURN_IF_ERROR(
        nd_blocks("gather.R1", indices, operand_shape, ir::attr(cx.node, &ir::GatherAttrs::batch_dims), bl));
  return visit_width(operand.dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    const T* src = operand.as<T>();
    T* dst = result.as<T>();
    for (int64_t b = 0; b < bl.count; ++b)
      for (int64_t e = 0; e < bl.block; ++e) dst[b * bl.block + e] = src[bl.offsets[b] + e];
    return Status::ok();
  });
}

int64_t gather_scratch_bytes(const ScratchQuery& q) {
  ScratchSize s;
  s.take<int64_t>(block_count(ir::attr(q.node, &ir::GatherAttrs::kind), static_dims(*q.inputs[0]),
                              static_dims(*q.inputs[1]), ir::attr(q.node, &ir::GatherAttrs::axis)));
  return s.bytes();
}

// spec/ops/scatter.md: result = operand; then, in row-major order of updates,
// result[target] = combine(result[target], update).
template <>
Status kernel<ir::Op::Scatter>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  const Tensor& indices = cx.inputs[1]->tensor();
  const Tensor& updates = cx.inputs[2]->tensor();
  Tensor& result = cx.outputs[0]->tensor();
  const auto reduction = ir::attrs<ir::Op::Scatter>(cx.node).reduction;
  const auto kind = ir::attrs<ir::Op::Scatter>(cx.node).kind == ir::GatherKind::Elements
                        ? ir::GatherKind::Elements
                        : ir::GatherKind::Nd;
  Scratch scratch(cx);
  Blocks bl;
  bl.offsets = scratch.take<int64_t>(block_count(kind, operand.shape, indices.shape, 0));
  if (kind == ir::GatherKind::Elements)
    PLUMB_RETURN_IF_ERROR(
        element_blocks("scatter.R1", indices, operand.shape, ir::attrs<ir::Op::Scatter>(cx.node).axis, bl));
  else
    PLUMB_RETURN_IF_ERROR(nd_blocks("scatter.R1", indices, operand.shape, 0, bl));
  if (reduction == ir::ScatterReduction::None) {  // scatter.R2
    std::vector<uint8_t> written(static_cast<size_t>(result.numel()), 0);
    for (int64_t b = 0; b < bl.count; ++b)
      for (int64_t e = 0; e < bl.block; ++e) {
        const int64_t off = bl.offsets[b];
        if (written[off + e])
          return runtime_error("scatter.R2", "two updates write result position " +
                                                 index_string(unflatten(off + e, operand.shape)) +
                                                 " with reduction none");
        written[off + e] = 1;
      }
  }
  return visit_dtype(operand.dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    const T* src = operand.as<T>();
    const T* upd = updates.as<T>();
    T* dst = result.as<T>();
    std::copy(src, src + operand.numel(), dst);
    for (int64_t b = 0; b < bl.count; ++b)
      for (int64_t e = 0; e < bl.block; ++e) {
        T& slot = dst[bl.offsets[b] + e];
        slot = combine<T>(reduction, operand.dtype, slot, upd[b * bl.block + e]);
      }
    return Status::ok();
  });
}

// spec/ops/nonzero.md: the coordinates of the non-zero elements (NaN counts), row-major order,
// as columns of an i64[rank, n] result that the kernel allocates (its shape depends on the data).
template <>
Status kernel<ir::Op::NonZero>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  std::vector<uint8_t> nonzero(static_cast<size_t>(operand.numel()));
  Status st = visit_dtype(operand.dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string>) {
      return internal_error("nonzero: string operand passed the verifier");
    } else {
      const T* src = operand.as<T>();
      for (size_t i = 0; i < nonzero.size(); ++i) {
        if constexpr (is_narrow_float_v<T>)
          nonzero[i] = to_f64(src[i]) != 0;  // NaN != 0
        else
          nonzero[i] = src[i] != 0;
      }
      return Status::ok();
    }
  });
  PLUMB_RETURN_IF_ERROR(st);
  int64_t n = 0;
  for (uint8_t z : nonzero) n += z;
  Tensor result = Tensor::allocate(ir::DType::I64, {operand.rank(), n});
  int64_t* dst = result.as<int64_t>();
  int64_t j = 0;
  for (IndexIter it(operand.shape); !it.done(); it.next()) {
    if (!nonzero[it.flat()]) continue;
    for (int64_t d = 0; d < operand.rank(); ++d) dst[d * n + j] = it[d];
    ++j;
  }
  *cx.outputs[0] = std::move(result);
  return Status::ok();
}

}  // namespace plumb::rt::ref
