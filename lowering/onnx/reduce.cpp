// ONNX reductions, arg-reductions and cumulative ops: Reduce{Sum,Mean,Max,Min,Prod,L1,L2,LogSum,
// LogSumExp,SumSquare} ArgMax ArgMin CumSum CumProd.
#include <algorithm>

#include "ir/guard.h"
#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using UK = ir::UnaryKind;

namespace {

enum class Red { kSum, kMean, kMax, kMin, kProd, kL1, kL2, kLogSum, kLogSumExp, kSumSquare };

// The reshape that puts reduced axes back as size-1 dims (keepdims=1).
ValueId keep_dims(LowerCtx& cx, ValueId reduced, ValueId x, const std::vector<int64_t>& axes) {
  const ir::Shape& s = cx.type(x).shape;
  const int64_t r = static_cast<int64_t>(s.size());
  std::vector<int64_t> dims;
  bool known = true;
  for (int64_t i = 0; i < r; ++i) {
    const bool red = std::find(axes.begin(), axes.end(), i) != axes.end();
    dims.push_back(red ? 1 : s[i].size);
    known = known && (red || s[i].is_static());
  }
  if (known) return cx.b.reshape(reduced, cx.b.shape_const(dims));
  std::vector<int64_t> mask_v(static_cast<size_t>(r), 0);
  for (int64_t a : axes) mask_v[a] = 1;
  ValueId mask = cx.b.cast(cx.b.const_ints(ir::DType::I64, {r}, mask_v), ir::DType::Bool);
  ValueId ones = cx.b.const_ints(ir::DType::I64, {r}, std::vector<int64_t>(static_cast<size_t>(r), 1));
  return cx.b.reshape(reduced, cx.b.select(mask, ones, cx.b.shape_of(x)));
}

// Axes: attribute before `input_from` (13 for ReduceSum, 18 for the others), input after.
Expected<std::optional<std::vector<int64_t>>> reduce_axes(LowerCtx& cx, const OnnxNode& n,
                                                          int64_t input_from) {
  using Axes = std::optional<std::vector<int64_t>>;
  if (cx.opset() < input_from) {
    if (!n.has_attr("axes")) return Axes();
    PLUMB_ASSIGN_OR_RETURN(auto a, n.attr_ints("axes", {}));
    return Axes(a);
  }
  if (!cx.has_input(n, 1)) return Axes();
  auto a = cx.const_ints(n, 1);
  if (!a) return cx.needs_build_time(n, 1, "reduction axes");
  return Axes(*a);
}

// The count of elements each result element reduces, when the reduced extents are static (-1
// when one is symbolic).
int64_t static_count(const ir::Shape& s, const std::vector<int64_t>& axes) {
  int64_t count = 1;
  for (int64_t a : axes) {
    if (!s[a].is_static()) return -1;
    count *= s[a].size;
  }
  return count;
}

// ONNX leaves some reductions of an empty set undefined (onnx/onnx#5568: ReduceMean always,
// ReduceLogSum and ReduceLogSumExp in types without -inf). A guard stops the run where a reduced
// set is empty, instead of returning NaN or a saturated -inf (spec/onnx-rulings.md R11): 1 / count
// in i64 is binary.R1 exactly there, and the executor reports the guard's reason. Returns `y` tied
// to the guard (select(q == q, y, y) is y, bit for bit) so that the guard runs before y is used.
ValueId guard_nonempty(LowerCtx& cx, ValueId y, ValueId v, const std::vector<int64_t>& axes,
                       const std::string& what) {
  cx.b.set_step(ir::kUndefinedStep + what + " over an empty set");
  const ValueId count = cx.b.cast(cx.b.reduce(ir::ReduceKind::Sum, splat(cx, 1.0, v), axes), ir::DType::I64);
  const ValueId q = cx.b.binary(BK::Div, splat(cx, 1.0, count), count);
  const ValueId tied = cx.b.select(cx.b.compare(ir::CompareKind::Eq, q, q), y, y);
  cx.b.set_step("");
  return tied;
}

template <Red kind>
Status lower_reduce(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const int64_t input_from = kind == Red::kSum ? 13 : 18;
  PLUMB_ASSIGN_OR_RETURN(auto axes_opt, reduce_axes(cx, n, input_from));
  PLUMB_ASSIGN_OR_RETURN(int64_t keepdims, n.attr_int("keepdims", 1));
  PLUMB_ASSIGN_OR_RETURN(int64_t noop, n.attr_int("noop_with_empty_axes", 0));
  const int64_t r = rank_of(cx, x);
  std::vector<int64_t> axes;
  const bool empty_axes = !axes_opt || axes_opt->empty();
  if (empty_axes) {
    if (!noop)
      for (int64_t i = 0; i < r; ++i) axes.push_back(i);
  } else {
    for (int64_t a : *axes_opt) {
      PLUMB_ASSIGN_OR_RETURN(const int64_t k, normalize_axis(cx, a, r));
      axes.push_back(k);
    }
    // An axis out of range is recorded; stop before static_count reads its dim (fuzz_onnx_model:
    // ReduceSum over axis 1 of a scalar).
    PLUMB_RETURN_IF_ERROR(cx.error());
    std::sort(axes.begin(), axes.end());
    if (std::adjacent_find(axes.begin(), axes.end()) != axes.end())
      return cx.invalid("repeated reduction axis");
  }
  const ir::DType dt = cx.type(x).dtype;
  // Sum/Max/Min/Prod reduce in the input's dtype (core reduce accumulates as spec/ops/reduce.md
  // says); the composites are evaluated in f64 and rounded once.
  const bool direct = kind == Red::kSum || kind == Red::kMax || kind == Red::kMin || kind == Red::kProd;
  ValueId v = direct ? x : (dt == ir::DType::F64 ? x : cx.b.cast(x, ir::DType::F64));
  ValueId pre = v;
  if (kind == Red::kL1) pre = cx.b.unary(UK::Abs, v);
  if (kind == Red::kL2 || kind == Red::kSumSquare) pre = cx.b.binary(BK::Mul, v, v);
  ValueId m = ir::kNoValue;
  if (kind == Red::kLogSumExp) {
    // m + log(sum(exp(x - m))), with m = max over the axes (0 where m is not finite).
    ValueId mx = axes.empty() ? v : cx.b.reduce(ir::ReduceKind::Max, v, axes);
    ValueId finite = cx.b.compare(ir::CompareKind::Eq, cx.b.binary(BK::Sub, mx, mx), splat(cx, 0, mx));
    m = cx.b.select(finite, mx, splat(cx, 0, mx));
    std::vector<int64_t> keep;
    for (int64_t i = 0; i < r; ++i)
      if (std::find(axes.begin(), axes.end(), i) == axes.end()) keep.push_back(i);
    pre = cx.b.unary(UK::Exp,
                     cx.b.binary(BK::Sub, v, axes.empty() ? m : cx.b.broadcast(m, shape_value(cx, v), keep)));
  }
  ir::ReduceKind rk = ir::ReduceKind::Sum;
  if (kind == Red::kMax) rk = ir::ReduceKind::Max;
  if (kind == Red::kMin) rk = ir::ReduceKind::Min;
  if (kind == Red::kProd) rk = ir::ReduceKind::Prod;
  ValueId y = axes.empty() ? pre : cx.b.reduce(rk, pre, axes);
  const int64_t count = axes.empty() ? 1 : static_count(cx.type(x).shape, axes);
  const bool undefined_if_empty =
      kind == Red::kMean || ((kind == Red::kLogSum || kind == Red::kLogSumExp) && !ir::is_float(dt));
  if (undefined_if_empty && count <= 0) y = guard_nonempty(cx, y, v, axes, n.op_type);
  if (kind == Red::kMean && !axes.empty()) {
    // The count of a symbolic extent is read at run time: the sum of ones over the same axes.
    ValueId c = count >= 0 ? splat(cx, static_cast<double>(count), y)
                           : cx.b.reduce(ir::ReduceKind::Sum, splat(cx, 1.0, v), axes);
    y = cx.b.binary(BK::Div, y, c);
  }
  if (kind == Red::kL2) y = cx.b.unary(UK::Sqrt, y);
  if (kind == Red::kLogSum) y = cx.b.unary(UK::Log, y);
  if (kind == Red::kLogSumExp) y = cx.b.binary(BK::Add, m, cx.b.unary(UK::Log, y));
  if (!direct && cx.type(y).dtype != dt) y = cx.b.cast(y, dt, true);
  if (keepdims && !axes.empty()) y = keep_dims(cx, y, x, axes);
  cx.set_output(n, 0, y);
  return cx.error();
}

template <ir::ArgKind Kind>
Status lower_arg(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, n.attr_int("axis", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t keepdims, n.attr_int("keepdims", 1));
  PLUMB_ASSIGN_OR_RETURN(int64_t last, n.attr_int("select_last_index", 0));
  PLUMB_ASSIGN_OR_RETURN(axis, normalize_axis(cx, axis, rank_of(cx, x)));
  PLUMB_RETURN_IF_ERROR(cx.error());
  ValueId y = cx.b.emit1(ir::ArgReduceAttrs{Kind, axis, last != 0}, {x});
  if (keepdims) y = keep_dims(cx, y, x, {axis});
  cx.set_output(n, 0, y);
  return cx.error();
}

// CumSum-11 / CumProd-26: axis is a scalar input; exclusive, reverse attributes.
template <ir::ReduceKind Kind>
Status lower_cumulative(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  auto axis_v = cx.const_ints(n, 1);
  if (!axis_v) return cx.needs_build_time(n, 1, "axis");
  if (axis_v->size() != 1) return cx.invalid("axis must be one integer");
  PLUMB_ASSIGN_OR_RETURN(int64_t exclusive, n.attr_int("exclusive", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t reverse, n.attr_int("reverse", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(cx, (*axis_v)[0], rank_of(cx, x)));
  PLUMB_RETURN_IF_ERROR(cx.error());
  cx.set_output(n, 0, cx.b.emit1(ir::ScanAttrs{Kind, axis, exclusive != 0, reverse != 0}, {x}));
  return cx.error();
}

}  // namespace

void register_reduce(Registry& r) {
  // A table: its rows packed, several to a line.
  // clang-format off
  r.add_since({
      {"ReduceSum", 1, lower_reduce<Red::kSum>}, {"ReduceMean", 1, lower_reduce<Red::kMean>},
      {"ReduceMax", 1, lower_reduce<Red::kMax>}, {"ReduceMin", 1, lower_reduce<Red::kMin>},
      {"ReduceProd", 1, lower_reduce<Red::kProd>}, {"ReduceL1", 1, lower_reduce<Red::kL1>},
      {"ReduceL2", 1, lower_reduce<Red::kL2>}, {"ReduceLogSum", 1, lower_reduce<Red::kLogSum>},
      {"ReduceLogSumExp", 1, lower_reduce<Red::kLogSumExp>},
      {"ReduceSumSquare", 1, lower_reduce<Red::kSumSquare>}, {"ArgMax", 1, lower_arg<ir::ArgKind::Max>},
      {"ArgMin", 1, lower_arg<ir::ArgKind::Min>}, {"CumSum", 11, lower_cumulative<ir::ReduceKind::Sum>},
      {"CumProd", 26, lower_cumulative<ir::ReduceKind::Prod>}});
  // clang-format on
}

}  // namespace plumb::lower
