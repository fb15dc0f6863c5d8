// TEMPORARY: placeholders for the compute family until its kernels land. Delete when done.
#include "runtime/cpu/ref/kernel.h"
namespace plumb::rt::ref {
template <> Status kernel<ir::Op::Pool>(KernelCtx&) { return unsupported("ref: Pool kernel not implemented yet"); }
template <> Status kernel<ir::Op::MatMul>(KernelCtx&) { return unsupported("ref: MatMul kernel not implemented yet"); }
template <> Status kernel<ir::Op::Conv>(KernelCtx&) { return unsupported("ref: Conv kernel not implemented yet"); }
}
