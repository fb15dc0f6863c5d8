// ONNX indexing ops: Gather GatherElements GatherND. ONNX allows negative indices (counting from
// the end); the core does not, so the lowering adds the extent to negative ones explicitly.
#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;

namespace {

// idx < 0 ? idx + extent : idx, with extent a scalar of idx's dtype broadcast to idx's shape.
ValueId normalize_indices(LowerCtx& cx, ValueId idx, ValueId extent_i64) {
  const ir::DType it = cx.type(idx).dtype;
  ValueId extent = it == ir::DType::I64 ? extent_i64 : cx.b.cast(extent_i64, it);
  ValueId ext = cx.b.broadcast(extent, shape_value(cx, idx), {});
  ValueId neg = cx.b.compare(ir::CompareKind::Lt, idx, splat(cx, 0, idx));
  return cx.b.select(neg, cx.b.binary(ir::BinaryKind::Add, idx, ext), idx);
}

// The scalar extent of dim `axis` of x (i64[]).
ValueId dim_scalar(LowerCtx& cx, ValueId x, int64_t axis) {
  const ir::Dim d = cx.dim(x, axis);
  if (d.is_static()) return cx.b.scalar_int(ir::DType::I64, d.size);
  ValueId s = cx.b.emit1(ir::SliceAttrs{}, {cx.b.shape_of(x), cx.b.shape_const({axis}), cx.b.shape_const({1}),
                                            cx.b.shape_const({1})});
  return cx.b.reshape(s, cx.b.shape_const({}));
}

// Gather and GatherElements: indices normalized against dim `axis` of x, then one core gather.
Status lower_gather_along_axis(LowerCtx& cx, const OnnxNode& n, ir::GatherKind kind) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId idx, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, n.attr_int("axis", 0));
  PLUMB_ASSIGN_OR_RETURN(axis, normalize_axis(cx, axis, rank_of(cx, x)));
  PLUMB_RETURN_IF_ERROR(cx.error());  // dim_scalar reads dim `axis` of x: it must exist
  idx = normalize_indices(cx, idx, dim_scalar(cx, x, axis));
  cx.set_output(n, 0, cx.b.emit1(ir::GatherAttrs{kind, axis, 0}, {x, idx}));
  return cx.error();
}

Status lower_gather(LowerCtx& cx, const OnnxNode& n) {
  return lower_gather_along_axis(cx, n, ir::GatherKind::Axis);
}

Status lower_gather_elements(LowerCtx& cx, const OnnxNode& n) {
  return lower_gather_along_axis(cx, n, ir::GatherKind::Elements);
}

}  // namespace

void register_index(Registry& r) {
  r.add_since({{"Gather", 1, lower_gather}, {"GatherElements", 11, lower_gather_elements}});
}

}  // namespace plumb::lower
