// ref's kernels before issue 17: the bit-for-bit baseline of the blocked, threaded, vectorized ones.
// Matmul, conv, pool, reduce and the layout copies were rewritten, so their old kernels stay here
// (tests/ref_baseline/*_baseline.cpp, sharing only the per-element definitions with ref). The
// elementwise ops and cast kept their per-element loops and gained vectorized ones beside them: their
// baseline is ref's own kernel with the per-element loops chosen (runtime/cpu/ref/loops.h), so the
// comparison is of the vectorized loops with the per-element definitions, not of a copy with its
// original. Same contract as ref::kernel<op> (runtime/cpu/ref/kernel.h); single threaded, whatever
// cx.threads says.
#pragma once

#include "runtime/cpu/ref/kernel.h"
#include "runtime/cpu/ref/loops.h"

namespace plumb::rt::ref_baseline {

Status matmul(ref::KernelCtx& cx);
Status conv(ref::KernelCtx& cx);
inline Status unary(ref::KernelCtx& cx) { return ref::unary_kernel(cx, ref::Loops::kPerElement); }
inline Status binary(ref::KernelCtx& cx) { return ref::binary_kernel(cx, ref::Loops::kPerElement); }
inline Status compare(ref::KernelCtx& cx) { return ref::compare_kernel(cx, ref::Loops::kPerElement); }
inline Status select(ref::KernelCtx& cx) { return ref::select_kernel(cx, ref::Loops::kPerElement); }
inline Status cast(ref::KernelCtx& cx) { return ref::cast_kernel(cx, ref::Loops::kPerElement); }
Status pool(ref::KernelCtx& cx);
Status reduce(ref::KernelCtx& cx);
Status reshape(ref::KernelCtx& cx);
Status broadcast(ref::KernelCtx& cx);
Status transpose(ref::KernelCtx& cx);
Status slice(ref::KernelCtx& cx);
Status concat(ref::KernelCtx& cx);

// The baseline kernel of `op`, or null where ref's current kernel is its own baseline.
inline Status (*kernel_of(ir::Op op))(ref::KernelCtx&) {
  switch (op) {
    case ir::Op::MatMul: return matmul;
    case ir::Op::Conv: return conv;
    case ir::Op::Unary: return unary;
    case ir::Op::Binary: return binary;
    case ir::Op::Compare: return compare;
    case ir::Op::Select: return select;
    case ir::Op::Cast: return cast;
    case ir::Op::Pool: return pool;
    case ir::Op::Reduce: return reduce;
    case ir::Op::Reshape: return reshape;
    case ir::Op::Broadcast: return broadcast;
    case ir::Op::Transpose: return transpose;
    case ir::Op::Slice: return slice;
    case ir::Op::Concat: return concat;
    default: return nullptr;
  }
}

}  // namespace plumb::rt::ref_baseline
