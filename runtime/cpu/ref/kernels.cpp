// The ref kernel table, generated from spec/ops.def.
#include "runtime/cpu/ref/kernel.h"

namespace plumb::rt::ref {

Status run_kernel(KernelCtx& cx) {
  switch (cx.node.op) {
// clang-format off
#define PLUMB_OP(Enum, mnemonic, min_in, max_in, min_out, max_out, regions, tolerance) \
  case ir::Op::Enum:                                                               \
    return kernel<ir::Op::Enum>(cx);
#include "spec/ops.def"
    // clang-format on
  }
  return internal_error("ref: unknown op code");
}

}  // namespace plumb::rt::ref
