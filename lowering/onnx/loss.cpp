// ONNX loss ops: NegativeLogLikelihoodLoss (12, 13, 22) and SoftmaxCrossEntropyLoss (12, 13).
//
// Both are evaluated in f64 and rounded once to the input's dtype at the end: the loss is a
// sum over many positions divided by a sum of weights (and SCE adds a log-softmax), so computing
// in f16/f32 would add a rounding per term and per step; in f64 the result carries the error of
// a single final rounding, independent of the summation order (plumb is the oracle).
//
// Shapes: input [N, C, d1..dk] (k >= 0), target [N, d1..dk] (i32/i64), weight [C]. The picked
// log-probability is a gather kind=elements along axis 1 of the target reshaped to
// [N, 1, d1..dk]; positions whose target is ignore_index read class 0 instead (so the gather never
// sees an ignored, possibly out-of-range value) and their loss is then set to +0 by a select. Any
// other target outside [0, C) stops the run with gather.R1.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using UK = ir::UnaryKind;
using CK = ir::CompareKind;

namespace {

enum class Reduction { kNone, kSum, kMean };

Expected<Reduction> reduction_attr(const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(std::string s, n.attr_string("reduction", "mean"));
  if (s == "none") return Reduction::kNone;
  if (s == "sum") return Reduction::kSum;
  if (s == "mean") return Reduction::kMean;
  return invalid_model("", "reduction '" + s + "' is not one of none, sum, mean");
}

// [N, d1..dk] -> [N, 1, d1..dk] (static when the target's shape is, else from shape_of).
ValueId insert_class_dim(LowerCtx& cx, ValueId t) {
  const ir::Type tt = cx.type(t);
  const int64_t q = tt.rank();
  if (ir::shape_is_static(tt.shape)) {
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < q; ++i) {
      dims.push_back(tt.shape[i].size);
      if (i == 0) dims.push_back(1);
    }
    return cx.b.reshape(t, cx.b.shape_const(dims));
  }
  ValueId shape = cx.b.shape_of(t);
  auto part = [&](int64_t from, int64_t len) {
    return cx.b.emit1(ir::SliceAttrs{},
                      {shape, cx.b.shape_const({from}), cx.b.shape_const({len}), cx.b.shape_const({1})});
  };
  std::vector<ValueId> pieces = {part(0, 1), cx.b.shape_const({1})};
  if (q > 1) pieces.push_back(part(1, q - 1));
  return cx.b.reshape(t, cx.b.concat(pieces, 0));
}

// Checks the static parts of the shape contract: input rank >= 2, target [N, d1..dk], weight [C].
Status check_shapes(LowerCtx& cx, ValueId x, ValueId t, std::optional<ValueId> w) {
  const ir::Type xt = cx.type(x);
  const ir::Type tt = cx.type(t);
  if (!xt.ranked || !tt.ranked) return cx.unsupported("loss over an unranked tensor");
  if (!ir::is_float(xt.dtype)) return cx.invalid("input must be a floating tensor");
  if (tt.dtype != ir::DType::I32 && tt.dtype != ir::DType::I64)
    return cx.invalid("target must be int32 or int64");
  const int64_t r = xt.rank();
  if (r < 2) return cx.invalid("input must have rank >= 2 ([N, C, d1..dk])");
  if (tt.rank() != r - 1) return cx.invalid("target must have rank rank(input) - 1 ([N, d1..dk])");
  for (int64_t i = 0; i < r - 1; ++i) {
    const ir::Dim& xd = xt.shape[i == 0 ? 0 : i + 1];
    const ir::Dim& td = tt.shape[i];
    if (xd.is_static() && td.is_static() && xd.size != td.size)
      return cx.invalid("target shape " + ir::shape_to_string(tt.shape) + " does not match input shape " +
                        ir::shape_to_string(xt.shape) + " ([N, d1..dk] of [N, C, d1..dk])");
  }
  if (w) {
    const ir::Type wt = cx.type(*w);
    if (!wt.ranked || wt.rank() != 1) return cx.invalid("weight must be a 1-D tensor [C]");
    if (wt.dtype != xt.dtype) return cx.invalid("weight must have the input's dtype");
    if (wt.shape[0].is_static() && xt.shape[1].is_static() && wt.shape[0].size != xt.shape[1].size)
      return cx.invalid("weight has " + std::to_string(wt.shape[0].size) + " entries, input has " +
                        std::to_string(xt.shape[1].size) + " classes");
  }
  return Status::ok();
}

// The NLL loss of f64 log-probabilities `lp` [N, C, d..] for target `t`, rounded to `dt`.
// `w` (already f64) is the optional class weight.
ValueId nll(LowerCtx& cx, ValueId lp, ValueId t, std::optional<ValueId> w, std::optional<int64_t> ignore,
            Reduction red, ir::DType dt) {
  // An ignore_index that an i32 target cannot hold matches no position.
  if (ignore && cx.type(t).dtype == ir::DType::I32 &&
      (*ignore < std::numeric_limits<int32_t>::min() || *ignore > std::numeric_limits<int32_t>::max()))
    ignore.reset();
  ValueId ignored = ir::kNoValue;
  ValueId safe = t;
  if (ignore) {
    ValueId ii = cx.b.broadcast(cx.b.scalar_int(cx.type(t).dtype, *ignore), shape_value(cx, t), {});
    ignored = cx.b.compare(CK::Eq, t, ii);
    safe = cx.b.select(ignored, splat(cx, 0, t), t);
  }
  ValueId picked =
      cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Elements, 1, 0}, {lp, insert_class_dim(cx, safe)});
  ValueId loss = cx.b.unary(UK::Neg, cx.b.reshape(picked, shape_value(cx, t)));
  // Per-position weight: weight[target] (or 1), and 0 where ignored.
  ValueId pw = ir::kNoValue;
  if (w) {
    pw = cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Axis, 0, 0}, {*w, safe});
    loss = cx.b.binary(BK::Mul, loss, pw);
  } else if (red == Reduction::kMean) {
    pw = splat(cx, 1, loss);
  }
  if (ignore) {
    // A select, not a multiplication by 0: an ignored position is +0 even where the input is
    // inf or NaN.
    loss = cx.b.select(ignored, splat(cx, 0, loss), loss);
    if (pw != ir::kNoValue) pw = cx.b.select(ignored, splat(cx, 0, pw), pw);
  }
  const int64_t q = rank_of(cx, loss);
  std::vector<int64_t> all;
  for (int64_t i = 0; i < q; ++i) all.push_back(i);
  if (red != Reduction::kNone) {
    loss = cx.b.reduce(ir::ReduceKind::Sum, loss, all);
    // mean: sum of losses / sum of the weights of the positions that count (0/0 = NaN when none do).
    if (red == Reduction::kMean) loss = cx.b.binary(BK::Div, loss, cx.b.reduce(ir::ReduceKind::Sum, pw, all));
  }
  return cx.type(loss).dtype == dt ? loss : cx.b.cast(loss, dt, true);
}

struct LossInputs {
  ValueId x = ir::kNoValue, t = ir::kNoValue;
  std::optional<ValueId> w;
  std::optional<int64_t> ignore;
  Reduction red = Reduction::kMean;
};

Expected<LossInputs> loss_inputs(LowerCtx& cx, const OnnxNode& n) {
  LossInputs in;
  PLUMB_ASSIGN_OR_RETURN(in.x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(in.t, cx.input(n, 1));
  if (cx.has_input(n, 2)) {
    PLUMB_ASSIGN_OR_RETURN(in.w, cx.input(n, 2));
  }
  PLUMB_ASSIGN_OR_RETURN(in.red, reduction_attr(n));
  if (n.has_attr("ignore_index")) {
    PLUMB_ASSIGN_OR_RETURN(int64_t ii, n.attr_int("ignore_index", 0));
    in.ignore = ii;
  }
  PLUMB_RETURN_IF_ERROR(check_shapes(cx, in.x, in.t, in.w));
  return in;
}

Status lower_nll(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(LossInputs in, loss_inputs(cx, n));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::DType dt = cx.type(in.x).dtype;
  std::optional<ValueId> w;
  if (in.w) w = to_f64(cx, *in.w);
  cx.set_output(n, 0, nll(cx, to_f64(cx, in.x), in.t, w, in.ignore, in.red, dt));
  return cx.error();
}

// SoftmaxCrossEntropyLoss: NLL over log_softmax(scores, axis=1); output 1 is that log_softmax.
Status lower_sce(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(LossInputs in, loss_inputs(cx, n));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::DType dt = cx.type(in.x).dtype;
  ValueId x = to_f64(cx, in.x);
  const int64_t r = rank_of(cx, x);
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < r; ++i)
    if (i != 1) keep.push_back(i);
  ValueId xshape = shape_value(cx, x);
  auto back = [&](ValueId reduced) { return cx.b.broadcast(reduced, xshape, keep); };
  // log_softmax = (x - m) - log(sum(exp(x - m))), m = max over the classes.
  ValueId d = cx.b.binary(BK::Sub, x, back(cx.b.reduce(ir::ReduceKind::Max, x, {1})));
  ValueId lse = cx.b.unary(UK::Log, cx.b.reduce(ir::ReduceKind::Sum, cx.b.unary(UK::Exp, d), {1}));
  ValueId lp = cx.b.binary(BK::Sub, d, back(lse));
  std::optional<ValueId> w;
  if (in.w) w = to_f64(cx, *in.w);
  cx.set_output(n, 0, nll(cx, lp, in.t, w, in.ignore, in.red, dt));
  if (cx.wants_output(n, 1)) cx.set_output(n, 1, cx.type(lp).dtype == dt ? lp : cx.b.cast(lp, dt, true));
  return cx.error();
}

}  // namespace

void register_loss(Registry& r) {
  r.add_since({{"NegativeLogLikelihoodLoss", 12, lower_nll}, {"SoftmaxCrossEntropyLoss", 12, lower_sce}});
}

}  // namespace plumb::lower
