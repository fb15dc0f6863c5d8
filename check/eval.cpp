#include "check/eval.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include "check/compare.h"
#include "ir/op.h"
#include "runtime/cpu/ref/dispatch.h"

namespace plumb::check {

namespace {

int kind_of(const ir::Node& n) {
  const ir::Attr* a = n.find_attr("kind");
  if (!a) return -1;
  if (const auto* e = std::get_if<ir::EnumValue>(&a->value)) return e->code;
  return -1;
}

int64_t static_numel(const ir::Type& t) {
  if (!t.is_tensor() || !t.ranked) return -1;
  return ir::shape_num_elements(t.shape);
}

// Folds one core node (and the nodes of its regions) into its ONNX node's class.
// Only float results carry rounding error (an i64 reduce prod computing a shape is exact).
bool has_float_result(const ir::Graph& g, const ir::Node& n) {
  for (ir::ValueId v : n.outputs)
    if (g.type_of(v).is_tensor() && ir::is_float(g.type_of(v).dtype)) return true;
  return false;
}

void add_class(const ir::Graph& g, const ir::Node& n, OnnxNodeInfo& info) {
  const ir::ToleranceClass tc =
      has_float_result(g, n) ? ir::tolerance_of(n.op, kind_of(n)) : ir::ToleranceClass::Exact;
  switch (tc) {
    case ir::ToleranceClass::Ulp1: info.ulps = std::max(info.ulps, 1); break;
    case ir::ToleranceClass::Ulp2: info.ulps = std::max(info.ulps, 2); break;
    case ir::ToleranceClass::Ulp4: info.ulps = std::max(info.ulps, 4); break;
    case ir::ToleranceClass::Ulp8: info.ulps = std::max(info.ulps, 8); break;
    case ir::ToleranceClass::Accumulation: {
      int64_t len = 0;
      if (n.op == ir::Op::Pool) {
        len = 1;
        for (int64_t w : n.attr_ints("window")) len *= w;
      } else if (!n.inputs.empty() && !n.outputs.empty()) {
        const int64_t in = static_numel(g.type_of(n.inputs[0])), out = static_numel(g.type_of(n.outputs[0]));
        if (n.op == ir::Op::Scan) {
          const ir::Type& t = g.type_of(n.inputs[0]);
          const int64_t axis = n.attr_int("axis");
          if (t.ranked && axis >= 0 && axis < t.rank() && t.shape[axis].is_static()) len = t.shape[axis].size;
        } else if (in > 0 && out > 0) {
          len = in / out;
        }
      }
      if (len <= 0) info.unknown_length = true;  // symbolic extents: n is a lower bound
      info.reduction = std::max<int64_t>(info.reduction, std::max<int64_t>(len, 1));
      break;
    }
    case ir::ToleranceClass::DotProduct: {
      info.dot = true;
      int64_t len = 0;
      if (n.inputs.size() == 2) {
        const ir::Type& lhs = g.type_of(n.inputs[0]);
        const ir::Type& rhs = g.type_of(n.inputs[1]);
        if (n.op == ir::Op::MatMul && lhs.ranked && lhs.rank() >= 2 && lhs.shape.back().is_static()) {
          len = lhs.shape.back().size;
        } else if (n.op == ir::Op::MatMul && rhs.ranked && rhs.rank() >= 2 &&
                   rhs.shape[rhs.rank() - 2].is_static()) {
          len = rhs.shape[rhs.rank() - 2].size;
        } else if (n.op == ir::Op::Conv && rhs.ranked && rhs.rank() >= 2) {
          len = 1;
          for (int64_t d = 1; d < rhs.rank(); ++d) len *= rhs.shape[d].is_static() ? rhs.shape[d].size : 1;
        }
      }
      if (len <= 0) info.unknown_length = true;  // symbolic extents: n is a lower bound
      info.reduction = std::max<int64_t>(info.reduction, std::max<int64_t>(len, 1));
      break;
    }
    default: break;
  }
  for (const ir::Region& r : n.regions)
    for (const ir::Node& m : r.nodes) add_class(g, m, info);
}

bool same_origin(const ir::Provenance& p, const OnnxNodeInfo& i) {
  return p.node_name == i.name && p.op_type == i.op_type && p.opset == i.opset;
}

void replace_uses(ir::Region& r, ir::ValueId from, ir::ValueId to) {
  for (ir::Node& n : r.nodes) {
    for (ir::ValueId& v : n.inputs)
      if (v == from) v = to;
    for (ir::Region& sub : n.regions) replace_uses(sub, from, to);
  }
  for (ir::ValueId& v : r.results)
    if (v == from) v = to;
}

struct FloatFormat {
  int p;     // precision in bits, hidden bit included
  int emin;  // exponent of the smallest normal
};

FloatFormat format_of(ir::DType dt) {
  switch (dt) {
    case ir::DType::F64: return {53, -1022};
    case ir::DType::F16: return {11, -14};
    case ir::DType::BF16: return {8, -126};
    case ir::DType::F8E4M3FN: return {4, -6};
    case ir::DType::F8E4M3FNUZ: return {4, -7};
    case ir::DType::F8E5M2: return {3, -14};
    case ir::DType::F8E5M2FNUZ: return {3, -15};
    case ir::DType::F4E2M1: return {2, 0};
    case ir::DType::F8E8M0: return {1, -127};
    default: return {24, -126};
  }
}

std::vector<double> to_doubles(const rt::Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  rt::visit_dtype(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string>) {
      return;
    } else if constexpr (rt::is_narrow_float_v<T>) {
      for (size_t k = 0; k < v.size(); ++k) v[k] = rt::to_f64(t.as<T>()[k]);
    } else {
      for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>(t.as<T>()[k]);
    }
  });
  return v;
}

std::string shape_str(const std::vector<int64_t>& s) { return ir::shape_to_string(ir::static_shape(s)); }

std::vector<double> doubles_of(const rt::RtValue* v, const std::vector<int64_t>& shape) {
  if (!v || !v->is_tensor() || !v->tensor().data || v->tensor().shape != shape) return {};
  return to_doubles(v->tensor());
}

// The auto bound's verdict on `x` (expected) from the precise result r and the noise samples; fills
// the bound fields of st. Returns the per-element allowance (empty: no bound).
std::vector<double> judge_auto(const std::vector<double>& x, const std::vector<double>& a,
                               const std::vector<double>& r, const BoundInputs& bi,
                               const std::vector<double>& own, ErrorStats& st) {
  std::vector<NoiseSamples> sets = {bi.ops};
  if (bi.isolated) sets.push_back(bi.inputs);
  const NoiseBound nb = noise_bound(r, sets);
  if (!nb.available()) return {};
  st.have_bounds = true;
  st.samples = nb.samples;
  st.sigma_rms = nb.sigma_rms;
  if (bi.isolated) {
    st.term_local = nb.set_rms[0];
    st.term_inputs = nb.set_rms[1];
  } else {
    st.term_carried = nb.set_rms[0];
  }
  if (!own.empty()) {  // the rounding of the tensor's own op, in the end-to-end run
    double ss = 0;
    for (double v : own) ss += std::isfinite(v) ? v * v : 0.0;
    const double local = std::sqrt(ss / static_cast<double>(own.size()));
    if (!bi.isolated) {
      st.term_local = local;
      st.term_carried = std::sqrt(std::max(0.0, st.term_carried * st.term_carried - local * local));
    }
  }
  const BoundRatio e = bound_ratio(nb, r, x);
  const BoundRatio n = bound_ratio(nb, r, a);
  st.element_ratio = e.element;
  st.aggregate_ratio = e.aggregate;
  st.native_ratio = n.worst();
  st.bound_ratio = std::max(st.bound_ratio, e.worst());
  std::vector<double> allowed(nb.scale.size());
  for (size_t i = 0; i < allowed.size(); ++i) allowed[i] = nb.z_element * nb.scale[i];
  if (e.worst() > 1 && n.worst() > 1) {
    st.inconclusive = true;
    st.why = strfmt(
        "inconclusive: plumb's own f32 run is outside the noise bound too (x %.3g, expected x %.3g): "
        "%d stochastic samples do not represent this tensor's noise",
        n.worst(), e.worst(), nb.samples);
  } else if (e.worst() <= 1 && nb.all_zero_admitted) {
    st.inconclusive = true;
    st.why = strfmt(
        "inconclusive: the noise bound admits 0 for every element (rms noise %.3g): the tensor has "
        "no significant digit in its dtype (ill-conditioned)",
        nb.sigma_rms);
  }
  return allowed;
}

ErrorStats compare_floats(const rt::Tensor& a, const rt::Tensor& e, const BoundInputs& bi,
                          const FixedTolerance& tol) {
  ErrorStats st;
  st.elements = a.numel();
  const std::vector<double> x = to_doubles(a), y = to_doubles(e);
  const std::vector<double> r = doubles_of(bi.precise, a.shape);
  const std::vector<double> own = doubles_of(bi.own_sigma, a.shape);
  const ir::DType dt = a.dtype;
  std::vector<double> allowed;
  if (!r.empty()) allowed = judge_auto(y, x, r, bi, own, st);
  const bool use_auto = !tol.use && st.have_bounds;
  double ss_auto = 0;  // sum of (e - r)^2 over the finite elements: the aggregate test's numerator
  int64_t n_auto = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    const double xa = x[k], ye = y[k];
    const bool both_nan = std::isnan(xa) && std::isnan(ye);
    const bool bit_equal = both_nan || (xa == ye && std::signbit(xa) == std::signbit(ye));
    if (!bit_equal) ++st.differ;
    bool ok_fixed = true, ok_auto = true;
    if (std::isnan(xa) || std::isnan(ye) || std::isinf(xa) || std::isinf(ye)) {
      const bool ok = both_nan || xa == ye;
      if (!ok) ++st.nan_inf_mismatches;
      ok_fixed = ok_auto = ok;
      if (!ok) st.bound_ratio = std::numeric_limits<double>::infinity();
    } else {
      const double d = std::fabs(xa - ye);
      st.max_abs = std::max(st.max_abs, d);
      if (ye != 0) {
        st.max_rel = std::max(st.max_rel, d / std::fabs(ye));
        st.min_rtol = std::max(st.min_rtol, d / std::fabs(ye));
      } else if (d > 0) {
        st.min_rtol = std::numeric_limits<double>::infinity();
      }
      st.max_ulp = std::max(st.max_ulp, d / ulp_in(dt, ye));
      if (d > 0)
        ++st.hist[std::clamp(static_cast<int>(std::floor(std::log10(d) - kHistLo)), 0, kHistBins - 1)];
      ok_fixed = d <= tol.atol + tol.rtol * std::fabs(ye);
      if (st.have_bounds) {
        ok_auto = bit_equal || std::fabs(ye - r[k]) <= allowed[k];
        if (std::isfinite(r[k])) ss_auto += (ye - r[k]) * (ye - r[k]), ++n_auto;
      }
    }
    if (!ok_auto) ++st.beyond_noise;
    const bool ok = use_auto ? ok_auto : tol.use ? ok_fixed : bit_equal;
    if (!ok) {
      if (st.mismatches == 0) st.why = strfmt("element %lld is %.9g, expected %.9g", (long long)k, xa, ye);
      ++st.mismatches;
    }
  }
  if (st.mismatches > 0)
    st.why += strfmt(" (%lld of %lld elements differ)", (long long)st.mismatches, (long long)st.elements);
  const bool aggregate_fails = use_auto && st.aggregate_ratio > 1;
  if (aggregate_fails && st.mismatches == 0 && !st.inconclusive)
    st.why = strfmt("rms error %.3g is %.3g x the noise allowance (%d samples, rms noise %.3g)",
                    n_auto ? std::sqrt(ss_auto / static_cast<double>(n_auto)) : 0.0, st.aggregate_ratio,
                    st.samples, st.sigma_rms);
  st.match = st.mismatches == 0 && !aggregate_fails;
  if (!tol.use && !st.have_bounds && st.differ > 0 && st.nan_inf_mismatches == 0) {
    // No noise samples: nothing can tell noise from error.
    st.inconclusive = true;
    st.match = false;
    st.why = "inconclusive: no noise estimate (" + (bi.unavailable.empty() ? "no samples" : bi.unavailable) +
             "); " + st.why;
  } else if (st.inconclusive) {
    if (tol.use)
      st.inconclusive = false;  // a fixed tolerance decides by itself
    else
      st.match = false;
  }
  return st;
}

}  // namespace

std::vector<double> tensor_doubles(const rt::Tensor& t) { return to_doubles(t); }

std::string OnnxNodeInfo::tolerance_class() const {
  const std::string n = std::to_string(reduction) + (unknown_length ? "+?" : "");
  if (dot) return "dot-product(n=" + n + ")";
  if (reduction > 0) return "accumulation(n=" + n + ")";
  if (ulps > 1) return "ulp(" + std::to_string(ulps) + ")";
  return "exact";
}

std::vector<OnnxNodeInfo> onnx_nodes_of(const ir::Graph& g) {
  std::vector<OnnxNodeInfo> nodes;
  for (size_t k = 0; k < g.body.nodes.size(); ++k) {
    const ir::Node& n = g.body.nodes[k];
    if (nodes.empty() || !same_origin(n.prov, nodes.back())) {
      OnnxNodeInfo info;
      info.name = n.prov.node_name;
      info.op_type = n.prov.op_type;
      info.opset = n.prov.opset;
      info.first = k;
      nodes.push_back(info);
    }
    nodes.back().last = k;
    add_class(g, n, nodes.back());
  }
  return nodes;
}

size_t group_of(const std::vector<OnnxNodeInfo>& nodes, size_t k) {
  auto it = std::upper_bound(nodes.begin(), nodes.end(), k,
                             [](size_t v, const OnnxNodeInfo& i) { return v < i.first; });
  return it == nodes.begin() ? 0 : static_cast<size_t>(it - nodes.begin() - 1);
}

ir::Graph with_results(const ir::Graph& g, const std::vector<ir::ValueId>& values) {
  ir::Graph out = g;
  for (ir::ValueId v : values) {
    out.body.results.push_back(v);
    out.output_names.push_back(g.values[v].onnx_name);
  }
  return out;
}

ir::Graph isolated_graph(const ir::Graph& g, const std::vector<ir::ValueId>& cut,
                         const std::vector<OnnxNodeInfo>& nodes) {
  ir::Graph out = g;
  for (ir::ValueId v : cut) {
    size_t producer = SIZE_MAX;
    for (size_t k = 0; k < out.body.nodes.size() && producer == SIZE_MAX; ++k)
      for (ir::ValueId o : out.body.nodes[k].outputs)
        if (o == v) producer = k;
    if (producer == SIZE_MAX) continue;
    const size_t last = nodes[group_of(nodes, producer)].last;
    const ir::ValueId p = out.add_value(out.type_of(v));
    out.body.params.push_back(p);
    out.input_names.push_back(g.values[v].onnx_name + " (expected)");
    ir::Region tail;
    tail.nodes.assign(std::make_move_iterator(out.body.nodes.begin() + static_cast<std::ptrdiff_t>(last) + 1),
                      std::make_move_iterator(out.body.nodes.end()));
    replace_uses(tail, v, p);
    out.body.nodes.resize(last + 1);
    for (ir::Node& n : tail.nodes) out.body.nodes.push_back(std::move(n));
  }
  return out;
}

bool has_storage(const rt::RtValue& v) {
  return v.is_tensor() && (v.tensor().data != nullptr || v.tensor().numel() == 0);
}

bool holds_f64_of_shape(const rt::RtValue& v, const std::vector<int64_t>& shape) {
  return has_storage(v) && v.tensor().dtype == ir::DType::F64 && v.tensor().shape == shape;
}

double eps_of(ir::DType dt) { return std::ldexp(1.0, 1 - format_of(dt).p); }

double ulp_in(ir::DType dt, double x) {
  const FloatFormat f = format_of(dt);
  int e = f.emin;
  if (std::isfinite(x) && x != 0) {
    int ex = 0;
    std::frexp(x, &ex);  // x = m 2^ex, 0.5 <= |m| < 1
    e = std::max(ex - 1, f.emin);
  }
  return std::ldexp(1.0, e - (f.p - 1));
}

std::string ErrorStats::category() const {
  if (differ == 0 && match) return "exact";
  if (nan_inf_mismatches > 0) return "semantic";
  if (inconclusive) return "inconclusive";
  if (have_bounds) return beyond_noise == 0 && aggregate_ratio <= 1 ? "noise" : "semantic";
  return match ? "noise" : "semantic";
}

std::string ErrorStats::dominant() const {
  const double terms[3] = {term_local, term_carried, term_inputs};
  const char* names[3] = {"local", "carried", "inputs"};
  int best = -1;
  for (int k = 0; k < 3; ++k)
    if (terms[k] > 0 && (best < 0 || terms[k] > terms[best])) best = k;
  return best < 0 ? "-" : names[best];
}

ErrorStats compare_value(const rt::RtValue& a, const rt::RtValue& e, const BoundInputs& bi,
                         const OnnxNodeInfo* /*info: shown as the class, the bound is measured*/,
                         const FixedTolerance& tol) {
  if (a.is_tensor() && e.is_tensor()) {
    const rt::Tensor& ta = a.tensor();
    const rt::Tensor& te = e.tensor();
    if (ir::is_float(ta.dtype) && ir::is_float(te.dtype)) {
      if (ta.shape != te.shape) {
        ErrorStats st;
        st.match = false;
        st.shape_differs = true;
        st.elements = ta.numel();
        st.why = "shape " + shape_str(ta.shape) + ", expected " + shape_str(te.shape);
        st.bound_ratio = std::numeric_limits<double>::infinity();
        return st;
      }
      ErrorStats st = compare_floats(ta, te, bi, tol);
      if (ta.dtype != te.dtype)
        st.why = "dtype " + std::string(ir::dtype_name(ta.dtype)) + ", expected " +
                 std::string(ir::dtype_name(te.dtype)) + " (compared by value)" +
                 (st.why.empty() ? "" : "; " + st.why);
      return st;
    }
  }
  // Integers, bools, strings and containers: exact.
  const Comparison c = compare(a, e, Tolerance{0.0, 0.0});
  ErrorStats st;
  st.match = c.match;
  st.elements = c.elements;
  st.mismatches = c.mismatches;
  st.differ = c.match ? 0 : std::max<int64_t>(c.mismatches, 1);
  st.beyond_noise = st.differ;
  st.max_abs = c.max_abs;
  st.max_rel = c.max_rel;
  st.why = c.why;
  st.shape_differs = a.is_tensor() && e.is_tensor() && a.tensor().shape != e.tensor().shape;
  if (!c.match) st.bound_ratio = std::numeric_limits<double>::infinity();
  return st;
}

}  // namespace plumb::check
