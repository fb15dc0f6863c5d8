// Type/shape inference of the indexing and reduction family: gather, scatter, sort, nonzero,
// reduce, arg_reduce, scan (spec/ops/<mnemonic>.md). Each check carries its spec label.
#include <algorithm>
#include <string>

#include "ir/infer.h"

namespace plumb::ir {

namespace {

Status fail(const char* label, std::string message) { return invalid_model(label, std::move(message)); }

std::string tstr(const Type& t) { return type_to_string(t); }

bool is_ranked_tensor(const Type* t) { return t && t->is_tensor() && t->ranked; }

bool is_index_dtype(DType dt) { return dt == DType::I32 || dt == DType::I64; }

// Two dims that are known to differ (both static and unequal).
bool dims_differ(const Dim& a, const Dim& b) { return a.is_static() && b.is_static() && a.size != b.size; }

// `a` is statically known to exceed `b`.
bool dim_exceeds(const Dim& a, const Dim& b) { return a.is_static() && b.is_static() && a.size > b.size; }

// A checked axis attribute: 0 <= axis < rank.
bool axis_in_range(int64_t axis, int64_t rank) { return axis >= 0 && axis < rank; }

Shape drop_axes(const Shape& s, const std::vector<int64_t>& axes) {
  Shape out;
  size_t k = 0;
  for (size_t d = 0; d < s.size(); ++d) {
    if (k < axes.size() && axes[k] == static_cast<int64_t>(d)) {
      ++k;
      continue;
    }
    out.push_back(s[d]);
  }
  return out;
}

// Dtypes that compare and add: integers and floats (C-labels "numeric").
bool is_numeric(DType dt) { return is_int(dt) || is_float(dt); }

}  // namespace

// ---- gather (spec/ops/gather.md) ----------------------------------------------------------
template <>
Expected<std::vector<Type>> infer<Op::Gather>(const InferCtx& cx) {
  const Type* operand = cx.operands[0].type;
  const Type* indices = cx.operands[1].type;
  // gather.C1
  if (!is_ranked_tensor(operand) || !is_ranked_tensor(indices) || !is_index_dtype(indices->dtype))
    return fail("gather.C1", "operand must be a ranked tensor and indices a ranked i32 or i64 tensor, got " +
                                 (operand ? tstr(*operand) : "?") + " and " +
                                 (indices ? tstr(*indices) : "?"));
  const auto kind = attrs<Op::Gather>(cx.node).kind;
  const int64_t axis = attrs<Op::Gather>(cx.node).axis;
  const int64_t batch_dims = attrs<Op::Gather>(cx.node).batch_dims;
  const int64_t r = operand->rank(), q = indices->rank();
  // gather.C2
  if (kind != GatherKind::Nd && batch_dims != 0)
    return fail("gather.C2", strfmt("batch_dims must be 0 for kind %s, got %lld",
                                    std::string(enum_name(kind)).c_str(), (long long)batch_dims));
  if (kind == GatherKind::Nd && axis != 0)
    return fail("gather.C2", strfmt("axis must be 0 for kind nd, got %lld", (long long)axis));
  if (kind != GatherKind::Nd) {
    // gather.C3
    if (!axis_in_range(axis, r))
      return fail("gather.C3", strfmt("axis %lld out of range [0, %lld)", (long long)axis, (long long)r));
    if (kind == GatherKind::Axis) {
      Shape s(operand->shape.begin(), operand->shape.begin() + axis);
      s.insert(s.end(), indices->shape.begin(), indices->shape.end());
      s.insert(s.end(), operand->shape.begin() + axis + 1, operand->shape.end());
      return std::vector<Type>{Type::tensor(operand->dtype, s)};
    }
    // gather.C4
    if (q != r)
      return fail("gather.C4",
                  strfmt("indices rank %lld differs from operand rank %lld", (long long)q, (long long)r));
    for (int64_t d = 0; d < r; ++d)
      if (d != axis && dim_exceeds(indices->shape[d], operand->shape[d]))
        return fail("gather.C4", "indices shape " + shape_to_string(indices->shape) +
                                     " exceeds operand shape " + shape_to_string(operand->shape) +
                                     " in dim " + std::to_string(d));
    return std::vector<Type>{Type::tensor(operand->dtype, indices->shape)};
  }
  // gather.C5
  if (r < 1 || q < 1 || batch_dims < 0 || batch_dims >= std::min(r, q))
    return fail("gather.C5",
                strfmt("batch_dims %lld must be in [0, min(operand rank %lld, indices rank %lld))",
                       (long long)batch_dims, (long long)r, (long long)q));
  for (int64_t d = 0; d < batch_dims; ++d)
    if (dims_differ(indices->shape[d], operand->shape[d]))
      return fail("gather.C5", "batch dims of indices " + shape_to_string(indices->shape) + " and operand " +
                                   shape_to_string(operand->shape) + " differ");
  // gather.C6
  const Dim& k = indices->shape[q - 1];
  if (!k.is_static() || k.size < 1 || k.size > r - batch_dims)
    return fail("gather.C6", strfmt("last indices dim must be static in [1, %lld], indices are %s",
                                    (long long)(r - batch_dims), shape_to_string(indices->shape).c_str()));
  Shape s(indices->shape.begin(), indices->shape.end() - 1);
  s.insert(s.end(), operand->shape.begin() + batch_dims + k.size, operand->shape.end());
  return std::vector<Type>{Type::tensor(operand->dtype, s)};
}

// ---- scatter (spec/ops/scatter.md) --------------------------------------------------------
template <>
Expected<std::vector<Type>> infer<Op::Scatter>(const InferCtx& cx) {
  const Type* operand = cx.operands[0].type;
  const Type* indices = cx.operands[1].type;
  const Type* updates = cx.operands[2].type;
  // scatter.C1
  if (!is_ranked_tensor(operand) || !is_ranked_tensor(indices) || !is_index_dtype(indices->dtype) ||
      !is_ranked_tensor(updates) || updates->dtype != operand->dtype)
    return fail("scatter.C1",
                "operand and updates must be ranked tensors of one dtype and indices a ranked i32 or i64 "
                "tensor, got " +
                    (operand ? tstr(*operand) : "?") + ", " + (indices ? tstr(*indices) : "?") + ", " +
                    (updates ? tstr(*updates) : "?"));
  const auto kind = attrs<Op::Scatter>(cx.node).kind;
  const int64_t axis = attrs<Op::Scatter>(cx.node).axis;
  const auto reduction = attrs<Op::Scatter>(cx.node).reduction;
  const int64_t r = operand->rank(), q = indices->rank();
  // scatter.C2
  if (kind == GatherKind::Axis)
    return fail("scatter.C2", "kind axis is not valid for scatter (use elements or nd)");
  if (kind == GatherKind::Elements) {
    // scatter.C3
    if (!axis_in_range(axis, r))
      return fail("scatter.C3", strfmt("axis %lld out of range [0, %lld)", (long long)axis, (long long)r));
    if (q != r || updates->rank() != r)
      return fail("scatter.C3", "indices " + tstr(*indices) + " and updates " + tstr(*updates) +
                                    " must have the operand's rank " + std::to_string(r));
    for (int64_t d = 0; d < r; ++d) {
      if (dims_differ(indices->shape[d], updates->shape[d]))
        return fail("scatter.C3", "indices shape " + shape_to_string(indices->shape) +
                                      " differs from updates shape " + shape_to_string(updates->shape));
      if (d != axis && dim_exceeds(indices->shape[d], operand->shape[d]))
        return fail("scatter.C3", "indices shape " + shape_to_string(indices->shape) +
                                      " exceeds operand shape " + shape_to_string(operand->shape) +
                                      " in dim " + std::to_string(d));
    }
  } else {
    // scatter.C4
    if (axis != 0) return fail("scatter.C4", strfmt("axis must be 0 for kind nd, got %lld", (long long)axis));
    const Dim k = q >= 1 ? indices->shape[q - 1] : Dim(0);
    if (q < 1 || !k.is_static() || k.size < 1 || k.size > r)
      return fail("scatter.C4", strfmt("last indices dim must be static in [1, %lld], indices are %s",
                                       (long long)r, shape_to_string(indices->shape).c_str()));
    Shape want(indices->shape.begin(), indices->shape.end() - 1);
    want.insert(want.end(), operand->shape.begin() + k.size, operand->shape.end());
    bool ok = static_cast<int64_t>(want.size()) == updates->rank();
    for (size_t d = 0; ok && d < want.size(); ++d) ok = !dims_differ(want[d], updates->shape[d]);
    if (!ok)
      return fail("scatter.C4",
                  "updates shape " + shape_to_string(updates->shape) + " must be " + shape_to_string(want));
  }
  // scatter.C5
  const DType dt = operand->dtype;
  const bool arith = reduction == ScatterReduction::Add || reduction == ScatterReduction::Mul;
  const bool order = reduction == ScatterReduction::Max || reduction == ScatterReduction::Min;
  if ((arith && !is_numeric(dt)) || (order && !is_numeric(dt) && !is_bool(dt)))
    return fail("scatter.C5", "reduction " + std::string(enum_name(reduction)) + " is not defined for " +
                                  std::string(dtype_name(dt)));
  return std::vector<Type>{*operand};
}

// ---- sort (spec/ops/sort.md) --------------------------------------------------------------
template <>
Expected<std::vector<Type>> infer<Op::Sort>(const InferCtx& cx) {
  const Type* operand = cx.operands[0].type;
  // sort.C1
  if (!is_ranked_tensor(operand))
    return fail("sort.C1", "operand must be a ranked tensor, got " + (operand ? tstr(*operand) : "?"));
  // sort.C2
  const int64_t axis = attrs<Op::Sort>(cx.node).axis;
  if (!axis_in_range(axis, operand->rank()))
    return fail("sort.C2",
                strfmt("axis %lld out of range [0, %lld)", (long long)axis, (long long)operand->rank()));
  return std::vector<Type>{*operand, Type::tensor(DType::I64, operand->shape)};
}

// ---- nonzero (spec/ops/nonzero.md) --------------------------------------------------------
template <>
Expected<std::vector<Type>> infer<Op::NonZero>(const InferCtx& cx) {
  const Type* operand = cx.operands[0].type;
  // nonzero.C1
  if (!is_ranked_tensor(operand) || is_string(operand->dtype))
    return fail("nonzero.C1", "operand must be a ranked bool, integer or float tensor, got " +
                                  (operand ? tstr(*operand) : "?"));
  // The count of non-zero elements depends on the data: the kernel resolves it.
  return std::vector<Type>{Type::tensor(DType::I64, Shape{Dim(operand->rank()), Dim::symbolic()})};
}

// ---- reduce (spec/ops/reduce.md) ----------------------------------------------------------
template <>
Expected<std::vector<Type>> infer<Op::Reduce>(const InferCtx& cx) {
  const Type* operand = cx.operands[0].type;
  // reduce.C1
  if (!is_ranked_tensor(operand) || is_string(operand->dtype))
    return fail("reduce.C1", "operand must be a ranked bool, integer or float tensor, got " +
                                 (operand ? tstr(*operand) : "?"));
  // reduce.C2
  const std::vector<int64_t>& axes = attrs<Op::Reduce>(cx.node).axes;
  for (size_t i = 0; i < axes.size(); ++i) {
    if (!axis_in_range(axes[i], operand->rank()))
      return fail("reduce.C2",
                  strfmt("axis %lld out of range [0, %lld)", (long long)axes[i], (long long)operand->rank()));
    if (i > 0 && axes[i] <= axes[i - 1])
      return fail("reduce.C2", strfmt("axes must be strictly increasing, got %lld after %lld",
                                      (long long)axes[i], (long long)axes[i - 1]));
  }
  // reduce.C3
  const auto kind = attrs<Op::Reduce>(cx.node).kind;
  if (is_bool(operand->dtype) && (kind == ReduceKind::Sum || kind == ReduceKind::Prod))
    return fail("reduce.C3", "reduce " + std::string(enum_name(kind)) + " is not defined for bool");
  return std::vector<Type>{Type::tensor(operand->dtype, drop_axes(operand->shape, axes))};
}

// ---- arg_reduce (spec/ops/arg_reduce.md) --------------------------------------------------
template <>
Expected<std::vector<Type>> infer<Op::ArgReduce>(const InferCtx& cx) {
  const Type* operand = cx.operands[0].type;
  // arg_reduce.C1
  if (!is_ranked_tensor(operand) || is_string(operand->dtype))
    return fail("arg_reduce.C1", "operand must be a ranked bool, integer or float tensor, got " +
                                     (operand ? tstr(*operand) : "?"));
  // arg_reduce.C2
  const int64_t axis = attrs<Op::ArgReduce>(cx.node).axis;
  if (!axis_in_range(axis, operand->rank()))
    return fail("arg_reduce.C2",
                strfmt("axis %lld out of range [0, %lld)", (long long)axis, (long long)operand->rank()));
  // arg_reduce.C3 (at run time the kernel reports arg_reduce.R1 instead)
  if (!cx.at_runtime && operand->shape[axis].size == 0)
    return fail("arg_reduce.C3", "axis " + std::to_string(axis) + " of " + tstr(*operand) +
                                     " is empty: there is no extreme element");
  return std::vector<Type>{Type::tensor(DType::I64, drop_axes(operand->shape, {axis}))};
}

// ---- scan (spec/ops/scan.md) --------------------------------------------------------------
template <>
Expected<std::vector<Type>> infer<Op::Scan>(const InferCtx& cx) {
  const Type* operand = cx.operands[0].type;
  // scan.C1
  if (!is_ranked_tensor(operand) || !is_numeric(operand->dtype))
    return fail("scan.C1",
                "operand must be a ranked integer or float tensor, got " + (operand ? tstr(*operand) : "?"));
  // scan.C2
  const int64_t axis = attrs<Op::Scan>(cx.node).axis;
  if (!axis_in_range(axis, operand->rank()))
    return fail("scan.C2",
                strfmt("axis %lld out of range [0, %lld)", (long long)axis, (long long)operand->rank()));
  // scan.C3
  const auto kind = attrs<Op::Scan>(cx.node).kind;
  if (kind != ReduceKind::Sum && kind != ReduceKind::Prod)
    return fail("scan.C3", "scan kind must be sum or prod, got " + std::string(enum_name(kind)));
  return std::vector<Type>{*operand};
}

}  // namespace plumb::ir
