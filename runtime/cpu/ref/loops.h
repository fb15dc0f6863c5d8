// ref's elementwise and cast kernels with their loops chosen: vectorized and threaded (the
// kernels kernel<op> runs), or one element at a time on one thread through the per-element
// definitions alone (unary_float, binary_int, convert, ...), as these kernels ran before issue 17.
// The second is the baseline that tests/ref_bits holds the first to, bit for bit
// (tests/ref_baseline/baseline_kernels.h): only the loops differ, so the check cannot pass by
// comparing a definition with itself, and it fails where a vectorized loop changes a bit.
#pragma once

#include "runtime/cpu/ref/kernel.h"

namespace plumb::rt::ref {

enum class Loops { kVectorized, kPerElement };

Status unary_kernel(KernelCtx& cx, Loops loops);
Status binary_kernel(KernelCtx& cx, Loops loops);
Status compare_kernel(KernelCtx& cx, Loops loops);
Status select_kernel(KernelCtx& cx, Loops loops);
Status cast_kernel(KernelCtx& cx, Loops loops);

}  // namespace plumb::rt::ref
