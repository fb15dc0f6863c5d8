// The ref kernel table, generated from spec/ops.def. A tiny build may keep only some kernels
// (PLUMB_REF_OPS, runtime/cpu/ref/CMakeLists.txt): the others are never referenced, so the linker
// drops them, and a node of such an op is Unsupported, naming the op.
#include <string_view>

#include "runtime/cpu/ref/dispatch.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cpu/ref/scratch.h"

namespace plumb::rt::ref {
namespace {

// The mnemonics whose kernels this build has ("*": all), generated from PLUMB_REF_OPS.
constexpr std::string_view kBuiltOps[] = {
#include "runtime/ref_ops.inc"
};

constexpr bool built(std::string_view mnemonic) {
  for (std::string_view op : kBuiltOps)
    if (op == "*" || op == mnemonic) return true;
  return false;
}

Status not_built(const KernelCtx& cx) {
  return unsupported("this build of the ref runtime has no " + std::string(ir::op_name(cx.node.op)) +
                     " kernel (PLUMB_REF_OPS leaves it out)");
}

// A tensor of a dtype the kernels were not compiled for (PLUMB_REF_OPS' dtypes, dispatch.h) is
// refused before any kernel sees it: their visit_dtype cases for it, and the accumulator types
// that only other dtypes select, do nothing. The op list gives each op the dtypes of its nodes'
// operands and results, so a node of the model it was made from passes.
constexpr bool kEveryDTypeBuilt = op_dtype_built("", "");  // "*": no op list

Status check_dtypes(const KernelCtx& cx) {
  const std::string_view op = ir::op_name(cx.node.op);
  auto check = [&](const RtValue* v) -> Status {
    if (!v || !v->is_tensor()) return Status::ok();
    const Tensor& t = v->tensor();
    if (!t.data && t.shape.empty()) return Status::ok();  // an empty slot: the kernel makes it
    const std::string_view dt = ir::dtype_name(t.dtype);
    if (dtype_built(dt) && op_dtype_built(op, dt)) return Status::ok();
    return unsupported("this build of the ref runtime has no " + std::string(op) + " kernel for dtype " +
                       std::string(dt) + " (PLUMB_REF_OPS leaves it out)");
  };
  for (const RtValue* v : cx.inputs) PLUMB_RETURN_IF_ERROR(check(v));
  for (const RtValue* v : cx.outputs) PLUMB_RETURN_IF_ERROR(check(v));
  return Status::ok();
}

}  // namespace

Status run_kernel(KernelCtx& cx) {
  if (!kEveryDTypeBuilt) PLUMB_RETURN_IF_ERROR(check_dtypes(cx));
  switch (cx.node.op) {
// clang-format off
#define PLUMB_OP(Enum, mnemonic, min_in, max_in, min_out, max_out, regions, tolerance) \
  case ir::Op::Enum:                                                                   \
    if constexpr (built(mnemonic))                                                     \
      return kernel<ir::Op::Enum>(cx);                                                 \
    else                                                                               \
      return not_built(cx);
#include "spec/ops.def"
    // clang-format on
  }
  return internal_error("ref: unknown op code");
}

// The kernels with temporaries say how much scratch they take; a kernel this build leaves out takes
// none (the node fails with not_built).
int64_t scratch_bytes(const ScratchQuery& q) {
  if (q.inputs.empty() || q.outputs.empty()) return 0;
  for (const ir::Type* t : q.inputs)
    if (!t || !t->is_tensor() || !t->ranked || !ir::shape_is_static(t->shape)) return 0;
  for (const ir::Type* t : q.outputs)
    if (!t || !t->is_tensor() || !t->ranked || !ir::shape_is_static(t->shape)) return 0;
  // `if constexpr`, as run_kernel: a kernel this build leaves out must not be referenced at all.
  switch (q.node.op) {
    case ir::Op::Conv:
      if constexpr (built("conv")) return conv_scratch_bytes(q);
      return 0;
    case ir::Op::MatMul:
      if constexpr (built("matmul")) return matmul_scratch_bytes(q);
      return 0;
    case ir::Op::Pool:
      if constexpr (built("pool")) return pool_scratch_bytes(q);
      return 0;
    case ir::Op::Reduce:
      if constexpr (built("reduce")) return reduce_scratch_bytes(q);
      return 0;
    case ir::Op::Gather:
      if constexpr (built("gather")) return gather_scratch_bytes(q);
      return 0;
    case ir::Op::Pad:
      if constexpr (built("pad")) return pad_scratch_bytes(q);
      return 0;
    default: return 0;
  }
}

}  // namespace plumb::rt::ref
