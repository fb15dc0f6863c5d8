// TEMPORARY: placeholders for the elementwise family until its kernels land. Delete when done.
#include "runtime/cpu/ref/kernel.h"
namespace plumb::rt::ref {
template <> Status kernel<ir::Op::Unary>(KernelCtx&) { return unsupported("ref: Unary kernel not implemented yet"); }
template <> Status kernel<ir::Op::Binary>(KernelCtx&) { return unsupported("ref: Binary kernel not implemented yet"); }
template <> Status kernel<ir::Op::Compare>(KernelCtx&) { return unsupported("ref: Compare kernel not implemented yet"); }
template <> Status kernel<ir::Op::Select>(KernelCtx&) { return unsupported("ref: Select kernel not implemented yet"); }
template <> Status kernel<ir::Op::Cast>(KernelCtx&) { return unsupported("ref: Cast kernel not implemented yet"); }
template <> Status kernel<ir::Op::Bitcast>(KernelCtx&) { return unsupported("ref: Bitcast kernel not implemented yet"); }
}
