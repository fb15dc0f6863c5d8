// ref's reshape, broadcast, transpose, slice and concat kernels as they were before issue 17 (main
// at f3e2b4c: runtime/cpu/ref/layout.cpp without constant, iota, shape_of and pad), kept verbatim
// as the baseline of their merged-dim row copies (tests/ref_baseline/baseline_kernels.h). Never
// shipped.
// Reference kernels of the value-source and layout ops: constant, iota, shape_of, reshape,
// broadcast, transpose, slice, concat, pad (spec/ops/<op>.md; rng is in rng.cpp). Every kernel
// works for every dtype: elements are copied as their storage type (std::string by assignment).
#include <cstring>
#include <string>
#include <type_traits>

#include "ir/infer.h"
#include "runtime/cpu/ref/constant_data.h"
#include "runtime/cpu/ref/dispatch.h"
#include "runtime/cpu/ref/index.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cpu/ref/layout_checks.h"
#include "tests/ref_baseline/baseline_kernels.h"

namespace plumb::rt::ref_baseline {
using namespace plumb::rt::ref;

namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "constant unpacking assumes a little-endian host");

std::vector<int64_t> ints_of(const RtValue* v) {
  const Tensor& t = v->tensor();
  return std::vector<int64_t>(t.as<int64_t>(), t.as<int64_t>() + t.numel());
}

// Every entry >= 0 and at most kMaxElements elements.
bool valid_dims(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d != 0 && n > ir::kMaxElements / d)) return false;
    n *= d;
  }
  return true;
}

std::string ints_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

// The result tensor: the executor's preallocated one, or a new one when the slot is empty.
Expected<Tensor*> result_slot(KernelCtx& cx, ir::DType dt, const std::vector<int64_t>& shape) {
  RtValue* out = cx.outputs[0];
  if (!out->is_tensor() || out->tensor().data == nullptr) *out = Tensor::allocate(dt, shape);
  Tensor& t = out->tensor();
  if (t.dtype != dt || t.shape != shape)
    return internal_error(std::string(ir::op_name(cx.node.op)) + ": result slot is " +
                          ir::type_to_string(type_of(*out)) + ", the kernel computes " +
                          ir::type_to_string(ir::Type::tensor(dt, ir::static_shape(shape))));
  return &t;
}

// dst[dst_base + <i, dst_step>] = src[src_base + <i, src_step>] for every index i of `shape`.
template <typename T>
void strided_copy(const T* src, int64_t src_base, const std::vector<int64_t>& src_step, T* dst,
                  int64_t dst_base, const std::vector<int64_t>& dst_step, const std::vector<int64_t>& shape) {
  for (IndexIter it(shape); !it.done(); it.next())
    dst[dst_base + offset_of(it.index(), dst_step)] = src[src_base + offset_of(it.index(), src_step)];
}

void copy_view(const Tensor& src, int64_t src_base, const std::vector<int64_t>& src_step, Tensor& dst,
               int64_t dst_base, const std::vector<int64_t>& dst_step, const std::vector<int64_t>& shape) {
  visit_dtype(src.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    strided_copy(static_cast<const T*>(src.data), src_base, src_step, static_cast<T*>(dst.data), dst_base,
                 dst_step, shape);
  });
}

}  // namespace

// ---- reshape -----------------------------------------------------------------------------------

Status reshape(ref::KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  const std::vector<int64_t> shape = ints_of(cx.inputs[1]);
  // reshape.R1
  if (!valid_dims(shape))
    return runtime_error("reshape.R1", "shape " + ints_str(shape) + " is not a valid shape");
  // reshape.R2
  if (num_elements(shape) != operand.numel())
    return runtime_error("reshape.R2",
                         strfmt("shape %s has %lld elements, the operand has %lld", ints_str(shape).c_str(),
                                (long long)num_elements(shape), (long long)operand.numel()));
  PLUMB_ASSIGN_OR_RETURN(Tensor * result, result_slot(cx, operand.dtype, shape));
  // result = operand's elements in row-major order
  copy_view(operand, 0, {1}, *result, 0, {1}, {operand.numel()});
  return Status::ok();
}

// ---- broadcast ---------------------------------------------------------------------------------

Status broadcast(ref::KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  const std::vector<int64_t> shape = ints_of(cx.inputs[1]);
  const std::vector<int64_t>& dims = ir::attrs<ir::Op::Broadcast>(cx.node).dims;
  PLUMB_ASSIGN_OR_RETURN(const Dims steps, ref::broadcast_steps(operand, shape, dims));
  const std::vector<int64_t> step = to_vector(steps);
  PLUMB_ASSIGN_OR_RETURN(Tensor * result, result_slot(cx, operand.dtype, shape));
  // result[i...] = operand[j...] with j[k] = operand.shape[k] == 1 ? 0 : i[dims[k]]
  copy_view(operand, 0, step, *result, 0, to_vector(row_major_strides(shape)), shape);
  return Status::ok();
}

// ---- transpose ---------------------------------------------------------------------------------

Status transpose(ref::KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  const std::vector<int64_t>& perm = ir::attrs<ir::Op::Transpose>(cx.node).perm;
  if (static_cast<int64_t>(perm.size()) != operand.rank())
    return internal_error("transpose: perm does not fit");
  const std::vector<int64_t> strides = to_vector(row_major_strides(operand.shape));
  std::vector<int64_t> shape, step;
  for (int64_t p : perm) {
    if (p < 0 || p >= operand.rank()) return internal_error("transpose: perm does not fit");
    shape.push_back(operand.shape[p]);
    step.push_back(strides[p]);
  }
  PLUMB_ASSIGN_OR_RETURN(Tensor * result, result_slot(cx, operand.dtype, shape));
  // result[i...] = operand[j...] with j[perm[k]] = i[k]
  copy_view(operand, 0, step, *result, 0, to_vector(row_major_strides(shape)), shape);
  return Status::ok();
}

// ---- slice -------------------------------------------------------------------------------------

Status slice(ref::KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  const std::vector<int64_t> start = ints_of(cx.inputs[1]);
  const std::vector<int64_t> size = ints_of(cx.inputs[2]);
  const std::vector<int64_t> stride = ints_of(cx.inputs[3]);
  const int64_t rank = operand.rank();
  if (static_cast<int64_t>(start.size()) != rank || static_cast<int64_t>(size.size()) != rank ||
      static_cast<int64_t>(stride.size()) != rank)
    return internal_error("slice: start/size/stride do not fit the operand rank");
  for (int64_t d = 0; d < rank; ++d)  // slice.R1
    if (stride[d] == 0) return runtime_error("slice.R1", "stride " + ints_str(stride) + " has a zero entry");
  // slice.R2
  if (!valid_dims(size)) return runtime_error("slice.R2", "size " + ints_str(size) + " is not a valid shape");
  PLUMB_ASSIGN_OR_RETURN(Tensor * result, result_slot(cx, operand.dtype, size));
  if (num_elements(size) == 0) return Status::ok();  // nothing is read
  const std::vector<int64_t> strides = to_vector(row_major_strides(operand.shape));
  int64_t base = 0;
  std::vector<int64_t> step(rank);
  for (int64_t d = 0; d < rank; ++d) {
    const __int128 first = start[d];
    const __int128 last = first + __int128(size[d] - 1) * stride[d];
    // slice.R3
    if (first < 0 || first >= operand.shape[d] || last < 0 || last >= operand.shape[d])
      return runtime_error(
          "slice.R3",
          strfmt("dim %lld: start %lld, size %lld, stride %lld reach outside [0, %lld)", (long long)d,
                 (long long)start[d], (long long)size[d], (long long)stride[d], (long long)operand.shape[d]));
    base += start[d] * strides[d];
    step[d] = size[d] == 1 ? 0 : stride[d] * strides[d];  // size >= 2: |stride| < dim, no overflow
  }
  // result[i...] = operand[start + i * stride]
  copy_view(operand, base, step, *result, 0, to_vector(row_major_strides(size)), size);
  return Status::ok();
}

// ---- concat ------------------------------------------------------------------------------------

Status concat(ref::KernelCtx& cx) {
  const Tensor& first = cx.inputs[0]->tensor();
  const int64_t axis = ir::attrs<ir::Op::Concat>(cx.node).axis;
  PLUMB_ASSIGN_OR_RETURN(const Dims joined, ref::concat_shape(cx, axis));
  const std::vector<int64_t> shape = to_vector(joined);
  PLUMB_ASSIGN_OR_RETURN(Tensor * result, result_slot(cx, first.dtype, shape));
  const std::vector<int64_t> dst_strides = to_vector(row_major_strides(shape));
  int64_t at = 0;  // position of the current operand along axis
  for (const RtValue* v : cx.inputs) {
    const Tensor& t = v->tensor();
    copy_view(t, 0, to_vector(row_major_strides(t.shape)), *result, at * dst_strides[axis], dst_strides,
              t.shape);
    at += t.shape[axis];
  }
  return Status::ok();
}

}  // namespace plumb::rt::ref_baseline
