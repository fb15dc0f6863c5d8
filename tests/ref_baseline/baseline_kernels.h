// ref's kernels before issue 17 (tests/ref_baseline/*_baseline.cpp): the bit-for-bit baseline of
// the blocked, threaded, vectorized ones (matmul, conv, binary). Same contract as ref::kernel<op>
// (runtime/cpu/ref/kernel.h); single threaded, whatever cx.threads says.
#pragma once

#include "runtime/cpu/ref/kernel.h"

namespace plumb::rt::ref_baseline {

Status matmul(ref::KernelCtx& cx);
Status conv(ref::KernelCtx& cx);
Status unary(ref::KernelCtx& cx);
Status binary(ref::KernelCtx& cx);

// The baseline kernel of `op`, or null where ref's current kernel is its own baseline.
inline Status (*kernel_of(ir::Op op))(ref::KernelCtx&) {
  switch (op) {
    case ir::Op::MatMul: return matmul;
    case ir::Op::Conv: return conv;
    case ir::Op::Binary: return binary;
    default: return nullptr;
  }
}

}  // namespace plumb::rt::ref_baseline
