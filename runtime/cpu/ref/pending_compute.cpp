// TEMPORARY: placeholders for the compute family until its kernels land. Delete when done.
#include "runtime/cpu/ref/kernel.h"
namespace plumb::rt::ref {
template <> Status kernel<ir::Op::Pool>(KernelCtx&) { return unsupported("ref: Pool kernel not implemented yet"); }
template <> Status kernel<ir::Op::MatMul>(KernelCtx&) { return unsupported("ref: MatMul kernel not implemented yet"); }
template <> Status kernel<ir::Op::Conv>(KernelCtx&) { return unsupported("ref: Conv kernel not implemented yet"); }
template <> Status kernel<ir::Op::If>(KernelCtx&) { return unsupported("ref: If kernel not implemented yet"); }
template <> Status kernel<ir::Op::While>(KernelCtx&) { return unsupported("ref: While kernel not implemented yet"); }
template <> Status kernel<ir::Op::Sequence>(KernelCtx&) { return unsupported("ref: Sequence kernel not implemented yet"); }
template <> Status kernel<ir::Op::Optional>(KernelCtx&) { return unsupported("ref: Optional kernel not implemented yet"); }
template <> Status kernel<ir::Op::Map>(KernelCtx&) { return unsupported("ref: Map kernel not implemented yet"); }
template <> Status kernel<ir::Op::String>(KernelCtx&) { return unsupported("ref: String kernel not implemented yet"); }
template <> Status kernel<ir::Op::ImageDecode>(KernelCtx&) { return unsupported("ref: ImageDecode kernel not implemented yet"); }
}
