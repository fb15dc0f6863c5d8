// TEMPORARY: placeholders for the indexing family until its kernels land. Delete when done.
#include "runtime/cpu/ref/kernel.h"
namespace plumb::rt::ref {
template <> Status kernel<ir::Op::Gather>(KernelCtx&) { return unsupported("ref: Gather kernel not implemented yet"); }
template <> Status kernel<ir::Op::Scatter>(KernelCtx&) { return unsupported("ref: Scatter kernel not implemented yet"); }
template <> Status kernel<ir::Op::Sort>(KernelCtx&) { return unsupported("ref: Sort kernel not implemented yet"); }
template <> Status kernel<ir::Op::NonZero>(KernelCtx&) { return unsupported("ref: NonZero kernel not implemented yet"); }
}
