// if and while (spec/ops/if.md, spec/ops/while.md) run their regions, which only the executor can
// do: it walks the graph. These kernels exist so that the kernel table is complete.
#include "runtime/cpu/ref/kernel.h"

namespace plumb::rt::ref {

template <>
Status kernel<ir::Op::If>(KernelCtx&) {
  return internal_error("if/while are run by the executor");
}

template <>
Status kernel<ir::Op::While>(KernelCtx&) {
  return internal_error("if/while are run by the executor");
}

}  // namespace plumb::rt::ref
