// The ref kernel table, generated from spec/ops.def. A tiny build may keep only some kernels
// (PLUMB_REF_OPS, runtime/cpu/ref/CMakeLists.txt): the others are never referenced, so the linker
// drops them, and a node of such an op is Unsupported, naming the op.
#include <string_view>

#include "runtime/cpu/ref/kernel.h"

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

}  // namespace

Status run_kernel(KernelCtx& cx) {
  switch (cx.node.op) {
#define PLUMB_OP(Enum, mnemonic, min_in, max_in, min_out, max_out, regions, tolerance) \
  case ir::Op::Enum:                                                                   \
    if constexpr (built(mnemonic))                                                     \
      return kernel<ir::Op::Enum>(cx);                                                 \
    else                                                                               \
      return not_built(cx);
#include "spec/ops.def"
  }
  return internal_error("ref: unknown op code");
}

}  // namespace plumb::rt::ref
