// ai.onnx.ml linear models and support vector machines (LinearClassifier, LinearRegressor,
// SVMClassifier, SVMRegressor); conventions at the top of ml.cpp, shared helpers in ml_common.h.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lowering/onnx/containers.h"
#include "lowering/onnx/helpers.h"
#include "lowering/onnx/ml_common.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower::ml {

using BK = ir::BinaryKind;
using UK = ir::UnaryKind;
using CK = ir::CompareKind;
using RK = ir::ReduceKind;

namespace {

// ---- linear models ---------------------------------------------------------------------------------

// f64 scores [N, E] = x [N, C] . coef^T + intercepts, coef given row-major as [E, C].
Expected<ValueId> linear_scores(LowerCtx& cx, const OnnxNode& n, ValueId x2, const Doubles& coef,
                                const Doubles& intercepts, int64_t* e_out, int64_t outputs = 0) {
  PLUMB_ASSIGN_OR_RETURN(int64_t c, feature_count(cx, n, x2, exact_quotient(coef.size(), outputs)));
  if (c == 0 || coef.empty() || coef.size() % static_cast<size_t>(c) != 0)
    return cx.invalid(n.op_type + ": " + std::to_string(coef.size()) + " coefficients for " +
                      std::to_string(c) + " features");
  const int64_t e = static_cast<int64_t>(coef.size()) / c;
  Doubles ct(coef.size());  // [C, E]
  for (int64_t i = 0; i < e; ++i)
    for (int64_t j = 0; j < c; ++j) ct[j * e + i] = coef[i * c + j];
  ValueId s = cx.b.matmul(to_f64(cx, x2), f64_const(cx, {c, e}, ct), kF64);
  if (!intercepts.empty()) {
    if (static_cast<int64_t>(intercepts.size()) != e && intercepts.size() != 1)
      return cx.invalid(n.op_type + ": " + std::to_string(intercepts.size()) + " intercepts for " +
                        std::to_string(e) + " outputs");
    ValueId b = intercepts.size() == 1 ? splat(cx, intercepts[0], s)
                                       : spread(cx, f64_const(cx, {e}, intercepts), shape_value(cx, s), {1});
    s = bin(cx, BK::Add, s, b);
  }
  *e_out = e;
  return s;
}

// LinearClassifier-1 (ONNX reference): scores = x . coef^T + intercepts; one score column with
// two class labels becomes [-s, s]; post transform; labels at argmax, or for a single score
// column: score >= (NONE ? 0 : 0.5) gives the first label (else 0 / "").
Status lower_linear_classifier(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(ValueId x2, as_2d(cx, n, x));
  PLUMB_ASSIGN_OR_RETURN(Post post, post_attr(cx, n));
  Ints ints = attr_ints(n, "classlabels_ints");
  Strings strs = attr_strings(n, "classlabels_strings");
  int64_t e = 0;
  PLUMB_ASSIGN_OR_RETURN(ValueId s, linear_scores(cx, n, x2, attr_doubles(n, "coefficients"),
                                                  attr_doubles(n, "intercepts"), &e));
  const size_t classes = std::max(ints.size(), strs.size());
  if (e == 1 && classes == 2) s = cx.b.concat({cx.b.unary(UK::Neg, s), s}, 1), e = 2;
  s = post_transform(cx, s, post);
  ValueId label;
  if (e > 1) {
    label = label_at_argmax(cx, s, ints, strs);
  } else {
    ValueId col = cx.b.reduce(RK::Sum, s, {1});  // the one column, as [N]
    ValueId pos = cx.b.compare(CK::Ge, col, splat(cx, post == Post::kNone ? 0.0 : 0.5, col));
    if (!strs.empty()) {
      label = cx.b.select(pos, spread(cx, string_const(cx, {}, {strs[0]}), shape_value(cx, col), {}),
                          spread(cx, string_const(cx, {}, {""}), shape_value(cx, col), {}));
    } else {
      ValueId one = cx.b.cast(pos, DType::I64);
      label = ints.empty() ? one : bin(cx, BK::Mul, one, splat(cx, static_cast<double>(ints[0]), one));
    }
  }
  cx.set_output(n, 0, label);
  if (cx.wants_output(n, 1)) cx.set_output(n, 1, from_f64(cx, s, DType::F32));
  return cx.error();
}

// LinearRegressor-1: y = x . coef^T + intercepts ([N, targets], f32), then the post transform.
Status lower_linear_regressor(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(ValueId x2, as_2d(cx, n, x));
  PLUMB_ASSIGN_OR_RETURN(Post post, post_attr(cx, n));
  PLUMB_ASSIGN_OR_RETURN(int64_t targets, n.attr_int("targets", 1));
  int64_t e = 0;
  PLUMB_ASSIGN_OR_RETURN(ValueId s, linear_scores(cx, n, x2, attr_doubles(n, "coefficients"),
                                                  attr_doubles(n, "intercepts"), &e, targets));
  if (e != targets)
    return cx.invalid("LinearRegressor: coefficients give " + std::to_string(e) +
                      " targets, targets = " + std::to_string(targets));
  cx.set_output(n, 0, from_f64(cx, post_transform(cx, s, post), DType::F32));
  return cx.error();
}

// ---- support vector machines ------------------------------------------------------------------------

struct Kernel {
  std::string type = "LINEAR";
  double gamma = 0, coef0 = 0, degree = 0;
};
Expected<Kernel> kernel_attrs(LowerCtx& cx, const OnnxNode& n) {
  Kernel k;
  PLUMB_ASSIGN_OR_RETURN(k.type, n.attr_string("kernel_type", "LINEAR"));
  if (k.type != "LINEAR" && k.type != "POLY" && k.type != "RBF" && k.type != "SIGMOID")
    return cx.invalid(n.op_type + ": kernel_type '" + k.type + "' is not one of LINEAR, POLY, RBF, SIGMOID");
  Doubles p = attr_doubles(n, "kernel_params");
  if (!p.empty()) {
    if (p.size() != 3) return cx.invalid(n.op_type + ": kernel_params must hold gamma, coef0, degree");
    k.gamma = p[0], k.coef0 = p[1], k.degree = static_cast<double>(static_cast<int64_t>(p[2]));
  }
  return k;
}

// f64 kernel values [N, V] of x [N, F] against the support vectors sv [V, F]:
// LINEAR x.s; POLY (gamma x.s + coef0)^degree; SIGMOID tanh(gamma x.s + coef0);
// RBF exp(-gamma |x - s|^2) (differences taken element by element, not expanded).
ValueId kernel_values(LowerCtx& cx, const Kernel& k, ValueId x, const Doubles& sv, int64_t v, int64_t f) {
  ValueId svc = f64_const(cx, {v, f}, sv);
  if (k.type == "RBF") {
    ValueId nvf = cx.b.concat({rows_by(cx, x, v), cx.b.shape_const({f})}, 0);
    ValueId d = bin(cx, BK::Sub, spread(cx, x, nvf, {0, 2}), spread(cx, svc, nvf, {1, 2}));
    ValueId s = cx.b.reduce(RK::Sum, bin(cx, BK::Mul, d, d), {2});
    return cx.b.unary(UK::Exp, bin(cx, BK::Mul, splat(cx, -k.gamma, s), s));
  }
  ValueId dot = cx.b.matmul(x, cx.b.transpose(svc, {1, 0}), kF64);
  if (k.type == "LINEAR") return dot;
  ValueId a = bin(cx, BK::Add, bin(cx, BK::Mul, splat(cx, k.gamma, dot), dot), splat(cx, k.coef0, dot));
  if (k.type == "SIGMOID") return cx.b.unary(UK::Tanh, a);
  return bin(cx, BK::Pow, a, splat(cx, k.degree, a));
}

// SVMRegressor-1: n_supports > 0: y = sum_j coef[j] K(x, sv_j) + rho[0]; else (linear)
// y = x . coef + rho[0]; one_class: y = y > 0 ? 1 : -1. [N, 1] f32, then the post transform.
Status lower_svm_regressor(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x0, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(ValueId x2, as_2d(cx, n, x0));
  PLUMB_ASSIGN_OR_RETURN(Kernel k, kernel_attrs(cx, n));
  PLUMB_ASSIGN_OR_RETURN(Post post, post_attr(cx, n));
  PLUMB_ASSIGN_OR_RETURN(int64_t ns, n.attr_int("n_supports", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t one_class, n.attr_int("one_class", 0));
  Doubles coef = attr_doubles(n, "coefficients"), rho = attr_doubles(n, "rho"),
          sv = attr_doubles(n, "support_vectors");
  PLUMB_ASSIGN_OR_RETURN(
      int64_t f,
      feature_count(cx, n, x2, ns > 0 ? exact_quotient(sv.size(), ns) : exact_quotient(coef.size(), 1)));
  if (rho.empty()) return cx.invalid("SVMRegressor: rho is required");
  ValueId x = to_f64(cx, x2);
  ValueId kv;
  int64_t v = 0;
  if (ns > 0) {
    if (static_cast<int64_t>(sv.size()) != ns * f || static_cast<int64_t>(coef.size()) != ns)
      return cx.invalid("SVMRegressor: support_vectors / coefficients do not match n_supports");
    kv = kernel_values(cx, k, x, sv, ns, f);
    v = ns;
  } else {
    if (static_cast<int64_t>(coef.size()) != f)
      return cx.invalid("SVMRegressor: coefficients do not match the features");
    kv = x;
    v = f;
  }
  ValueId y = cx.b.matmul(kv, f64_const(cx, {v, 1}, coef), kF64);
  y = bin(cx, BK::Add, y, splat(cx, rho[0], y));
  if (one_class)
    y = cx.b.select(cx.b.compare(CK::Gt, y, splat(cx, 0.0, y)), splat(cx, 1.0, y), splat(cx, -1.0, y));
  cx.set_output(n, 0, from_f64(cx, post_transform(cx, y, post), DType::F32));
  return cx.error();
}

// Probability estimates of an SVC from its pairwise scores [N, P] (P = c(c-1)/2, pairs i < j in
// order), as libsvm computes them (svm_predict_probability; onnxruntime follows it):
// r_ij = clamp(1 - logistic(score * prob_a + prob_b), 1e-7, 1 - 1e-7), r_ji = 1 - r_ij, then
// multiclass_probability's coupling: Q[t][t] = sum_{j != t} r_jt^2, Q[t][j] = -r_jt r_tj, p = 1/c,
// and up to max(100, c) sweeps that stop once max_t |(Qp)_t - p'Qp| < 0.005 / c. Rows are
// independent: all run in one `while`, and a row that has met the tolerance takes zero steps
// (its p then no longer changes, so the test stays met); the loop ends when no row moves.
// The sums run in libsvm's order, in f64. libsvm's max_error ignores NaN errors (`error >
// max_error` is false), so a row with a NaN score stops at once with p = 1/c; the same here.
// (The newer ONNX reference's vectorised Q[t, t+1:] = -R[t+1:, t] @ R[t, t+1:] puts one dot
// product in every off-diagonal entry, which differs from libsvm for c >= 3; plumb follows libsvm.)
ValueId svm_probabilities(LowerCtx& cx, ValueId scores, int64_t c, const Doubles& pa, const Doubles& pb) {
  const int64_t pairs = c * (c - 1) / 2;
  ValueId shape = shape_value(cx, scores);
  ValueId t = bin(cx, BK::Add, bin(cx, BK::Mul, scores, spread(cx, f64_const(cx, {pairs}, pa), shape, {1})),
                  spread(cx, f64_const(cx, {pairs}, pb), shape, {1}));
  auto k = [&](double v, ValueId like) { return splat(cx, v, like); };
  // 1 - logistic(t), logistic computed as onnxruntime's ComputeLogistic (from exp(-|t|)).
  ValueId v =
      bin(cx, BK::Div, k(1.0, t),
          bin(cx, BK::Add, k(1.0, t), cx.b.unary(UK::Exp, cx.b.unary(UK::Neg, cx.b.unary(UK::Abs, t)))));
  ValueId lg = cx.b.select(cx.b.compare(CK::Lt, t, k(0.0, t)), bin(cx, BK::Sub, k(1.0, t), v), v);
  ValueId r2 = bin(cx, BK::Sub, k(1.0, t), lg);
  r2 = bin(cx, BK::Min, bin(cx, BK::Max, r2, k(1e-7, t)), k(1 - 1e-7, t));
  std::vector<std::vector<ValueId>> r(c, std::vector<ValueId>(c, ir::kNoValue)), q = r;
  for (int64_t i = 0, p = 0; i < c; ++i)
    for (int64_t j = i + 1; j < c; ++j, ++p) {
      r[i][j] = cx.b.gather(ir::GatherKind::Axis, r2, i64_const(cx, {1}, {p}), 1);  // [N, 1]
      r[j][i] = bin(cx, BK::Sub, k(1.0, r[i][j]), r[i][j]);
    }
  for (int64_t i = 0; i < c; ++i) {
    for (int64_t j = 0; j < c; ++j) {
      if (j == i) continue;
      ValueId sq = bin(cx, BK::Mul, r[j][i], r[j][i]);
      q[i][i] = q[i][i] == ir::kNoValue ? sq : bin(cx, BK::Add, q[i][i], sq);
      if (j > i) q[i][j] = q[j][i] = bin(cx, BK::Mul, cx.b.unary(UK::Neg, r[j][i]), r[i][j]);
    }
  }
  const ValueId col = r[0][1];
  // The carried p columns are typed as their initial value (a broadcast: [?, ?] for a symbolic
  // batch), which every later value refines.
  const ValueId p0 = k(1.0 / static_cast<double>(c), col);
  const ir::Type tcol = cx.type(p0);
  const ir::Type ti = ir::Type::tensor(DType::I64, ir::static_shape({}));
  const ir::Type tb = ir::Type::tensor(DType::Bool, ir::static_shape({}));
  std::vector<ir::Type> params = {ti, tb};
  for (int64_t i = 0; i < c; ++i) params.push_back(tcol);
  auto cp = cx.b.begin_region(params);
  ir::Region cond = cx.b.end_region(
      {bin(cx, BK::And, cx.b.compare(CK::Lt, cp[0], cx.b.scalar_int(DType::I64, std::max<int64_t>(100, c))),
           cp[1])});
  auto bp = cx.b.begin_region(params);
  std::vector<ValueId> pv(bp.begin() + 2, bp.end()), qp(c);
  auto mul = [&](ValueId a, ValueId b) { return bin(cx, BK::Mul, a, b); };
  auto add = [&](ValueId a, ValueId b) { return bin(cx, BK::Add, a, b); };
  auto div = [&](ValueId a, ValueId b) { return bin(cx, BK::Div, a, b); };
  ValueId pqp = ir::kNoValue;
  for (int64_t i = 0; i < c; ++i) {
    qp[i] = mul(q[i][0], pv[0]);
    for (int64_t j = 1; j < c; ++j) qp[i] = add(qp[i], mul(q[i][j], pv[j]));
    pqp = i == 0 ? mul(pv[0], qp[0]) : add(pqp, mul(pv[i], qp[i]));
  }
  ValueId max_error = k(0.0, col);
  for (int64_t i = 0; i < c; ++i) {
    ValueId e = cx.b.unary(UK::Abs, bin(cx, BK::Sub, qp[i], pqp));
    max_error = cx.b.select(cx.b.compare(CK::Gt, e, max_error), e, max_error);
  }
  ValueId active = cx.b.compare(CK::Ge, max_error, k(0.005 / static_cast<double>(c), col));
  for (int64_t i = 0; i < c; ++i) {
    ValueId diff = cx.b.select(active, div(bin(cx, BK::Sub, pqp, qp[i]), q[i][i]), k(0.0, col));
    ValueId one_d = add(k(1.0, col), diff);
    pv[i] = add(pv[i], diff);
    pqp = div(div(add(pqp, mul(diff, add(mul(diff, q[i][i]), mul(k(2.0, col), qp[i])))), one_d), one_d);
    for (int64_t j = 0; j < c; ++j) {
      qp[j] = div(add(qp[j], mul(diff, q[i][j])), one_d);
      pv[j] = div(pv[j], one_d);
    }
  }
  std::vector<ValueId> yields = {add(bp[0], cx.b.scalar_int(DType::I64, 1)),
                                 cx.b.reduce(RK::Max, active, {0, 1})};
  yields.insert(yields.end(), pv.begin(), pv.end());
  ir::Region body = cx.b.end_region(yields);
  std::vector<ValueId> init = {cx.b.scalar_int(DType::I64, 0), cx.b.const_ints(DType::Bool, {}, {1})};
  for (int64_t i = 0; i < c; ++i) init.push_back(p0);
  std::vector<ValueId> res = cx.b.while_(init, std::move(cond), std::move(body));
  if (res.size() != init.size()) return ir::kNoValue;
  return cx.b.reshape(cx.b.concat(std::vector<ValueId>(res.begin() + 2, res.end()), 1),
                      rows_by(cx, scores, c));
}

// SVMClassifier-1, following the ONNX reference:
// linear mode (no vectors_per_class): scores[c] = x . coef[c] + rho[0], label at argmax;
// SVC mode: one score per class pair (i < j), rho[p] + coef[j-1, SV(i)] . K[SV(i)] +
// coef[i, SV(j)] . K[SV(j)], a vote for i when > 0 else for j, label at the first most-voted class.
// Two classes with one rho: the label rule of the reference's set_score_svm; one score column
// is widened to two ([-s, s], or [1 - s, s] for the single linear score with NONE).
// SVC mode with prob_a/prob_b: the scores output is the per-class probabilities
// (svm_probabilities), then the post transform; the label still follows the votes.
Status lower_svm_classifier(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x0, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(ValueId x2, as_2d(cx, n, x0));
  PLUMB_ASSIGN_OR_RETURN(Kernel k, kernel_attrs(cx, n));
  PLUMB_ASSIGN_OR_RETURN(Post post, post_attr(cx, n));
  Ints ints = attr_ints(n, "classlabels_ints"), vpc = attr_ints(n, "vectors_per_class");
  Strings strs = attr_strings(n, "classlabels_strings");
  Doubles coef = attr_doubles(n, "coefficients"), rho = attr_doubles(n, "rho"),
          sv = attr_doubles(n, "support_vectors");
  const int64_t c = std::max<int64_t>(static_cast<int64_t>(std::max(ints.size(), strs.size())), 1);
  if (rho.empty() || coef.empty()) return cx.invalid("SVMClassifier: rho and coefficients are required");
  int64_t v = 0;
  Ints start;
  for (int64_t cnt : vpc) start.push_back(v), v += cnt;
  PLUMB_ASSIGN_OR_RETURN(
      int64_t f,
      feature_count(cx, n, x2, v > 0 ? exact_quotient(sv.size(), v) : exact_quotient(coef.size(), c)));
  const bool all_positive = *std::min_element(coef.begin(), coef.end()) >= 0;
  ValueId x = to_f64(cx, x2);
  // prob_a/prob_b count only in SVC mode (the reference ignores them for the linear mode).
  const Doubles prob_a = attr_doubles(n, "prob_a"), prob_b = attr_doubles(n, "prob_b");
  const bool has_proba = v > 0 && !prob_a.empty();
  ValueId scores, votes = ir::kNoValue;
  if (v == 0) {
    if (static_cast<int64_t>(coef.size()) != c * f)
      return cx.invalid("SVMClassifier: coefficients are not [classes, F]");
    Doubles ct(static_cast<size_t>(f * c));
    for (int64_t i = 0; i < c; ++i)
      for (int64_t j = 0; j < f; ++j) ct[j * c + i] = coef[i * f + j];
    scores = cx.b.matmul(x, f64_const(cx, {f, c}, ct), kF64);
    scores = bin(cx, BK::Add, scores, splat(cx, rho[0], scores));
  } else {
    const int64_t pairs = c * (c - 1) / 2;
    if (static_cast<int64_t>(vpc.size()) != c || static_cast<int64_t>(sv.size()) != v * f ||
        static_cast<int64_t>(coef.size()) != (c - 1) * v || static_cast<int64_t>(rho.size()) < pairs)
      return cx.invalid("SVMClassifier: vectors_per_class, support_vectors, coefficients, rho do not agree");
    ValueId kv = kernel_values(cx, k, x, sv, v, f);
    Doubles w(static_cast<size_t>(v * pairs), 0.0), wi(static_cast<size_t>(pairs * c), 0.0), wj = wi, r0;
    int64_t p = 0;
    for (int64_t i = 0; i < c; ++i)
      for (int64_t j = i + 1; j < c; ++j, ++p) {
        for (int64_t q = 0; q < vpc[i]; ++q) w[(start[i] + q) * pairs + p] = coef[(j - 1) * v + start[i] + q];
        for (int64_t q = 0; q < vpc[j]; ++q) w[(start[j] + q) * pairs + p] = coef[i * v + start[j] + q];
        wi[p * c + i] = 1.0, wj[p * c + j] = 1.0, r0.push_back(rho[p]);
      }
    scores = cx.b.matmul(kv, f64_const(cx, {v, pairs}, w), kF64);
    scores = bin(cx, BK::Add, scores, spread(cx, f64_const(cx, {pairs}, r0), shape_value(cx, scores), {1}));
    ValueId pos = cx.b.cast(cx.b.compare(CK::Gt, scores, splat(cx, 0.0, scores)), kF64);
    ValueId neg = bin(cx, BK::Sub, splat(cx, 1.0, pos), pos);
    votes = bin(cx, BK::Add, cx.b.matmul(pos, f64_const(cx, {pairs, c}, wi), kF64),
                cx.b.matmul(neg, f64_const(cx, {pairs, c}, wj), kF64));
    if (has_proba) {
      if (static_cast<int64_t>(prob_a.size()) < pairs || static_cast<int64_t>(prob_b.size()) < pairs)
        return cx.invalid("SVMClassifier: prob_a and prob_b need one entry per class pair (" +
                          std::to_string(pairs) + ")");
      // The label still comes from the votes; only the scores output changes.
      if (cx.wants_output(n, 1)) scores = svm_probabilities(cx, scores, c, prob_a, prob_b);
      PLUMB_RETURN_IF_ERROR(cx.error());
    }
  }
  // Label.
  ValueId basis = votes != ir::kNoValue ? votes : scores;
  ValueId am = arg_reduce(cx, ir::ArgKind::Max, basis, 1, false);
  ValueId idx = am;
  const int64_t labels = static_cast<int64_t>(std::max(ints.size(), strs.size()));
  if (rho.size() == 1) {
    ValueId maxw = cx.b.reduce(RK::Max, basis, {1});
    if (labels == 2) {
      // set_score_svm: all weights positive and max >= 0.5 -> label 1; else the argmax label.
      if (all_positive && !has_proba)
        idx = cx.b.select(cx.b.compare(CK::Ge, maxw, splat(cx, 0.5, maxw)), splat(cx, 1.0, am), am);
    } else {
      // Positive class 1 when max > 0, else 0 (labels are then the numbers themselves; with
      // string labels the strings "1" and "0", as onnxruntime writes them).
      ValueId one = cx.b.cast(cx.b.compare(CK::Gt, maxw, splat(cx, 0.0, maxw)), DType::I64);
      cx.set_output(
          n, 0,
          strs.empty() ? one : cx.b.gather(ir::GatherKind::Axis, string_const(cx, {2}, {"0", "1"}), one, 0));
      idx = ir::kNoValue;
    }
  }
  if (idx != ir::kNoValue) {
    if (!strs.empty()) {
      cx.set_output(n, 0, cx.b.gather(ir::GatherKind::Axis, string_const(cx, {labels}, strs), idx, 0));
    } else if (!ints.empty()) {
      cx.set_output(n, 0, cx.b.gather(ir::GatherKind::Axis, i64_const(cx, {labels}, ints), idx, 0));
    } else {
      cx.set_output(n, 0, idx);
    }
  }
  // Scores (write_scores): more than one column: the post transform; one column: widened.
  const ir::Dim cols = cx.dim(scores, 1);
  if (cols.size == 1) {
    ValueId s = cx.b.reduce(RK::Sum, scores, {1});
    ValueId one = rows_by(cx, x2, 1);
    auto col2 = [&](ValueId a, ValueId b) {
      return cx.b.concat({cx.b.reshape(a, one), cx.b.reshape(b, one)}, 1);
    };
    if (post == Post::kProbit) {
      scores = post_transform(cx, scores, post);
    } else if (rho.size() == 1 && labels == 2) {
      ValueId two = col2(cx.b.unary(UK::Neg, s), s);
      scores = post == Post::kLogistic || post == Post::kSoftmax || post == Post::kSoftmaxZero
                   ? post_transform(cx, two, post)
                   : two;
    } else if (rho.size() == 1) {
      scores = col2(bin(cx, BK::Sub, splat(cx, 1.0, s), s), s);
    }
  } else {
    scores = post_transform(cx, scores, post);
  }
  if (cx.wants_output(n, 1)) cx.set_output(n, 1, from_f64(cx, scores, DType::F32));
  return cx.error();
}

}  // namespace

void register_linear(Registry& r) {
  r.add_in(kMl, "LinearClassifier", {1, kLatestMlOpset}, lower_linear_classifier);
  r.add_in(kMl, "LinearRegressor", {1, kLatestMlOpset}, lower_linear_regressor);
  r.add_in(kMl, "SVMClassifier", {1, kLatestMlOpset}, lower_svm_classifier);
  r.add_in(kMl, "SVMRegressor", {1, kLatestMlOpset}, lower_svm_regressor);
}

}  // namespace plumb::lower::ml
