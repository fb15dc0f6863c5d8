// Lowering rules for the ai.onnx.preview.training optimizers Adagrad, Adam and Momentum (opset 1),
// and a clear Unsupported for Gradient (it asks for automatic differentiation of the graph).
//
// Inputs: R (scalar learning rate, f32/f64), T (scalar i64 update count), then n tensors of each
// group (X..., G..., and the optimizer states), n = (inputs - 2) / groups. Outputs: the new X...
// then the new states, group by group. Every update is evaluated in f64 from the inputs and
// rounded once to each tensor's dtype (the formulas are short, but r / (1 + t * decay) and the
// bias corrections of Adam would otherwise be rounded several times in f32).
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

constexpr ir::DType kF64 = ir::DType::F64;

// f64 arithmetic on values of one shape, with scalar constants broadcast to that shape.
struct F64 {
  LowerCtx& cx;
  ValueId f(ValueId v) { return cx.type(v).dtype == kF64 ? v : cx.b.cast(v, kF64); }
  ValueId k(double c, ValueId like) { return splat(cx, c, like); }
  ValueId add(ValueId a, ValueId b) { return cx.b.binary(BK::Add, a, b); }
  ValueId sub(ValueId a, ValueId b) { return cx.b.binary(BK::Sub, a, b); }
  ValueId mul(ValueId a, ValueId b) { return cx.b.binary(BK::Mul, a, b); }
  ValueId div(ValueId a, ValueId b) { return cx.b.binary(BK::Div, a, b); }
  ValueId sqrt(ValueId a) { return cx.b.unary(UK::Sqrt, a); }
  // Rank-0 `s` broadcast to the shape of `like`.
  ValueId spread(ValueId s, ValueId like) {
    return rank_of(cx, like) == 0 ? s : cx.b.broadcast(s, shape_value(cx, like), {});
  }
  ValueId round_to(ValueId v, ir::DType dt) { return dt == kF64 ? v : cx.b.cast(v, dt); }
};

Expected<double> float_attr(const OnnxNode& n, const char* name, float dflt) {
  PLUMB_ASSIGN_OR_RETURN(float v, n.attr_float(name, dflt));
  return static_cast<double>(v);
}

// Checks the input count against `groups` tensor groups and the R/T scalars; returns n.
Expected<size_t> tensor_count(LowerCtx& cx, const OnnxNode& n, size_t groups, size_t out_groups) {
  const size_t ins = n.inputs.size();
  if (ins < 2 + groups || (ins - 2) % groups != 0)
    return cx.invalid(n.op_type + " takes R, T and " + std::to_string(groups) +
                      " groups of equally many tensors; got " + std::to_string(ins) + " inputs");
  const size_t count = (ins - 2) / groups;
  if (n.outputs.size() > out_groups * count)
    return cx.invalid(n.op_type + " has at most " + std::to_string(out_groups * count) + " outputs here");
  for (size_t i = 0; i < ins; ++i)
    if (!cx.has_input(n, i)) return cx.invalid(n.op_type + ": input " + std::to_string(i) + " is required");
  PLUMB_ASSIGN_OR_RETURN(ValueId r, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId t, cx.input(n, 1));
  if (rank_of(cx, r) != 0 || !ir::is_float(cx.type(r).dtype))
    return cx.invalid(n.op_type + ": R must be a floating scalar");
  if (rank_of(cx, t) != 0 || cx.type(t).dtype != ir::DType::I64)
    return cx.invalid(n.op_type + ": T must be an int64 scalar");
  return count;
}

// Adagrad-1: r' = R / (1 + T * decay_factor); g = norm_coefficient * X + G; H' = H + g * g;
// X' = X - r' * g / (sqrt(H') + epsilon).
Status lower_adagrad(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(size_t count, tensor_count(cx, n, 3, 2));
  PLUMB_ASSIGN_OR_RETURN(double decay, float_attr(n, "decay_factor", 0.0f));
  PLUMB_ASSIGN_OR_RETURN(double eps, float_attr(n, "epsilon", 1e-6f));
  PLUMB_ASSIGN_OR_RETURN(double norm, float_attr(n, "norm_coefficient", 0.0f));
  F64 m{cx};
  PLUMB_ASSIGN_OR_RETURN(const ValueId r_in, cx.input(n, 0));
  ValueId r = m.f(r_in);
  PLUMB_ASSIGN_OR_RETURN(const ValueId t_in, cx.input(n, 1));
  ValueId t = m.f(t_in);
  ValueId rate = m.div(r, m.add(m.k(1.0, t), m.mul(t, m.k(decay, t))));
  for (size_t i = 0; i < count; ++i) {
    PLUMB_ASSIGN_OR_RETURN(ValueId x0, cx.input(n, 2 + i));
    PLUMB_ASSIGN_OR_RETURN(const ValueId h0, cx.input(n, 2 + 2 * count + i));
    const ir::DType xdt = cx.type(x0).dtype, hdt = cx.type(h0).dtype;
    ValueId x = m.f(x0);
    PLUMB_ASSIGN_OR_RETURN(const ValueId g0, cx.input(n, 2 + count + i));
    ValueId g = m.f(g0), h = m.f(h0);
    ValueId gr = m.add(m.mul(m.k(norm, x), x), g);
    ValueId h_new = m.add(h, m.mul(gr, gr));
    ValueId denom = m.add(m.sqrt(h_new), m.k(eps, h_new));
    ValueId x_new = m.sub(x, m.div(m.mul(m.spread(rate, gr), gr), denom));
    if (cx.wants_output(n, i)) cx.set_output(n, i, m.round_to(x_new, xdt));
    if (cx.wants_output(n, count + i)) cx.set_output(n, count + i, m.round_to(h_new, hdt));
  }
  return cx.error();
}

// Adam-1: g = norm_coefficient * X + G; V' = alpha V + (1 - alpha) g; H' = beta H + (1 - beta) g^2;
// r' = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R;
// X' = (1 - norm_coefficient_post) * (X - r' * V' / (sqrt(H') + epsilon)).
Status lower_adam(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(size_t count, tensor_count(cx, n, 4, 3));
  PLUMB_ASSIGN_OR_RETURN(double alpha, float_attr(n, "alpha", 0.9f));
  PLUMB_ASSIGN_OR_RETURN(double beta, float_attr(n, "beta", 0.999f));
  PLUMB_ASSIGN_OR_RETURN(double eps, float_attr(n, "epsilon", 1e-6f));
  PLUMB_ASSIGN_OR_RETURN(double norm, float_attr(n, "norm_coefficient", 0.0f));
  PLUMB_ASSIGN_OR_RETURN(double norm_post, float_attr(n, "norm_coefficient_post", 0.0f));
  F64 m{cx};
  PLUMB_ASSIGN_OR_RETURN(ValueId t_int, cx.input(n, 1));
  PLUMB_ASSIGN_OR_RETURN(const ValueId r_in, cx.input(n, 0));
  ValueId r = m.f(r_in), t = m.f(t_int);
  ValueId pow_b = cx.b.binary(BK::Pow, m.k(beta, t), t), pow_a = cx.b.binary(BK::Pow, m.k(alpha, t), t);
  ValueId corrected = m.div(m.mul(r, m.sqrt(m.sub(m.k(1.0, t), pow_b))), m.sub(m.k(1.0, t), pow_a));
  ValueId positive = cx.b.compare(CK::Gt, t_int, scalar_like(cx, 0.0, t_int));
  ValueId rate = cx.b.select(positive, corrected, r);
  for (size_t i = 0; i < count; ++i) {
    PLUMB_ASSIGN_OR_RETURN(ValueId x0, cx.input(n, 2 + i));
    PLUMB_ASSIGN_OR_RETURN(const ValueId v0, cx.input(n, 2 + 2 * count + i));
    PLUMB_ASSIGN_OR_RETURN(const ValueId h0, cx.input(n, 2 + 3 * count + i));
    const ir::DType xdt = cx.type(x0).dtype, vdt = cx.type(v0).dtype, hdt = cx.type(h0).dtype;
    ValueId x = m.f(x0);
    PLUMB_ASSIGN_OR_RETURN(const ValueId g0, cx.input(n, 2 + count + i));
    ValueId g = m.f(g0), v = m.f(v0), h = m.f(h0);
    ValueId gr = m.add(m.mul(m.k(norm, x), x), g);
    ValueId v_new = m.add(m.mul(m.k(alpha, v), v), m.mul(m.k(1.0 - alpha, gr), gr));
    ValueId h_new = m.add(m.mul(m.k(beta, h), h), m.mul(m.k(1.0 - beta, gr), m.mul(gr, gr)));
    ValueId denom = m.add(m.sqrt(h_new), m.k(eps, h_new));
    ValueId x_new = m.sub(x, m.mul(m.spread(rate, x), m.div(v_new, denom)));
    x_new = m.mul(m.k(1.0 - norm_post, x_new), x_new);
    if (cx.wants_output(n, i)) cx.set_output(n, i, m.round_to(x_new, xdt));
    if (cx.wants_output(n, count + i)) cx.set_output(n, count + i, m.round_to(v_new, vdt));
    if (cx.wants_output(n, 2 * count + i)) cx.set_output(n, 2 * count + i, m.round_to(h_new, hdt));
  }
  return cx.error();
}

// Momentum-1: g = norm_coefficient * X + G; b = T > 0 ? beta : 1; V' = alpha V + b g;
// standard: X' = X - R V'; nesterov: X' = X - R (g + alpha V').
Status lower_momentum(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(size_t count, tensor_count(cx, n, 3, 2));
  for (const char* req : {"alpha", "beta", "mode", "norm_coefficient"})
    if (!n.has_attr(req)) return cx.invalid(std::string("Momentum: attribute '") + req + "' is required");
  PLUMB_ASSIGN_OR_RETURN(double alpha, float_attr(n, "alpha", 0.0f));
  PLUMB_ASSIGN_OR_RETURN(double beta, float_attr(n, "beta", 0.0f));
  PLUMB_ASSIGN_OR_RETURN(double norm, float_attr(n, "norm_coefficient", 0.0f));
  PLUMB_ASSIGN_OR_RETURN(std::string mode, n.attr_string("mode", "standard"));
  if (mode != "standard" && mode != "nesterov")
    return cx.invalid("Momentum: mode '" + mode + "' is not one of standard, nesterov");
  F64 m{cx};
  PLUMB_ASSIGN_OR_RETURN(ValueId t_int, cx.input(n, 1));
  PLUMB_ASSIGN_OR_RETURN(const ValueId r_in, cx.input(n, 0));
  ValueId r = m.f(r_in);
  ValueId positive = cx.b.compare(CK::Gt, t_int, scalar_like(cx, 0.0, t_int));
  ValueId b_adj = cx.b.select(positive, scalar_like(cx, beta, r), scalar_like(cx, 1.0, r));
  for (size_t i = 0; i < count; ++i) {
    PLUMB_ASSIGN_OR_RETURN(const ValueId x0, cx.input(n, 2 + i));
    PLUMB_ASSIGN_OR_RETURN(const ValueId v0, cx.input(n, 2 + 2 * count + i));
    const ir::DType xdt = cx.type(x0).dtype, vdt = cx.type(v0).dtype;
    ValueId x = m.f(x0);
    PLUMB_ASSIGN_OR_RETURN(const ValueId g0, cx.input(n, 2 + count + i));
    ValueId g = m.f(g0), v = m.f(v0);
    ValueId gr = m.add(m.mul(m.k(norm, x), x), g);
    ValueId v_new = m.add(m.mul(m.k(alpha, v), v), m.mul(m.spread(b_adj, gr), gr));
    ValueId step = mode == "standard" ? v_new : m.add(gr, m.mul(m.k(alpha, v_new), v_new));
    ValueId x_new = m.sub(x, m.mul(m.spread(r, step), step));
    if (cx.wants_output(n, i)) cx.set_output(n, i, m.round_to(x_new, xdt));
    if (cx.wants_output(n, count + i)) cx.set_output(n, count + i, m.round_to(v_new, vdt));
  }
  return cx.error();
}

Status lower_gradient(LowerCtx& cx, const OnnxNode& n) {
  (void)n;
  return cx.unsupported(
      "Gradient (ai.onnx.preview.training): plumb does not differentiate graphs; export the "
      "gradient graph explicitly");
}

}  // namespace

void register_training(Registry& r) {
  const std::string d = "ai.onnx.preview.training";
  r.add_in(d, "Adagrad", {1, 1}, lower_adagrad);
  r.add_in(d, "Adam", {1, 1}, lower_adam);
  r.add_in(d, "Momentum", {1, 1}, lower_momentum);
  r.add_in(d, "Gradient", {1, 1}, lower_gradient);
}

}  // namespace plumb::lower
