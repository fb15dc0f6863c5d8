// TEMPORARY: placeholders for the layout family until its kernels land. Delete when done.
#include "runtime/cpu/ref/kernel.h"
namespace plumb::rt::ref {
template <> Status kernel<ir::Op::Constant>(KernelCtx&) { return unsupported("ref: Constant kernel not implemented yet"); }
template <> Status kernel<ir::Op::Iota>(KernelCtx&) { return unsupported("ref: Iota kernel not implemented yet"); }
template <> Status kernel<ir::Op::ShapeOf>(KernelCtx&) { return unsupported("ref: ShapeOf kernel not implemented yet"); }
template <> Status kernel<ir::Op::Rng>(KernelCtx&) { return unsupported("ref: Rng kernel not implemented yet"); }
template <> Status kernel<ir::Op::Reshape>(KernelCtx&) { return unsupported("ref: Reshape kernel not implemented yet"); }
template <> Status kernel<ir::Op::Broadcast>(KernelCtx&) { return unsupported("ref: Broadcast kernel not implemented yet"); }
template <> Status kernel<ir::Op::Transpose>(KernelCtx&) { return unsupported("ref: Transpose kernel not implemented yet"); }
template <> Status kernel<ir::Op::Slice>(KernelCtx&) { return unsupported("ref: Slice kernel not implemented yet"); }
template <> Status kernel<ir::Op::Concat>(KernelCtx&) { return unsupported("ref: Concat kernel not implemented yet"); }
template <> Status kernel<ir::Op::Pad>(KernelCtx&) { return unsupported("ref: Pad kernel not implemented yet"); }
}
