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

bool is_float_tensor(const ir::Graph& g, ir::ValueId v) {
  const ir::Type& t = g.type_of(v);
  return t.is_tensor() && ir::is_float(t.dtype);
}

ir::Node unary_abs(ir::ValueId in, ir::ValueId out, const ir::Provenance& prov) {
  ir::Node n;
  n.op = ir::Op::Unary;
  n.inputs = {in};
  n.outputs = {out};
  n.attrs = {ir::Attr{"kind", ir::EnumValue{ir::UnaryKind::Abs}}};
  n.prov = prov;
  n.prov.step = "bounds.abs";
  return n;
}

void rewrite_bounds(ir::Graph& g, ir::Region& r, const std::vector<bool>* dot_of_top) {
  std::vector<ir::Node> out;
  out.reserve(r.nodes.size());
  for (size_t k = 0; k < r.nodes.size(); ++k) {
    ir::Node n = std::move(r.nodes[k]);
    for (ir::Region& sub : n.regions) rewrite_bounds(g, sub, nullptr);
    std::vector<size_t> abs_inputs;
    const int kind = kind_of(n);
    if (n.op == ir::Op::MatMul || n.op == ir::Op::Conv) {
      abs_inputs = {0, 1};
    } else if ((n.op == ir::Op::Reduce || n.op == ir::Op::Scan) && kind == ir::ReduceKind::Sum) {
      abs_inputs = {0};
    } else if (n.op == ir::Op::Pool && kind == ir::PoolKind::Sum) {
      abs_inputs = {0};
    } else if (n.op == ir::Op::Binary && (kind == ir::BinaryKind::Add || kind == ir::BinaryKind::Sub)) {
      // |x| + |y|: the magnitude a sum's rounding scales with (cancellation, e.g. 1 + erf(x) of an
      // exported GELU); a non-finite bounds value (exp of a magnitude) contributes nothing
      abs_inputs = {0, 1};
      n.attrs[0].value = ir::EnumValue{ir::BinaryKind::Add};
    }
    for (size_t i : abs_inputs) {
      if (i >= n.inputs.size() || !is_float_tensor(g, n.inputs[i])) continue;
      const ir::Type t = g.type_of(n.inputs[i]);
      const ir::ValueId a = g.add_value(t);
      out.push_back(unary_abs(n.inputs[i], a, n.prov));
      n.inputs[i] = a;
    }
    out.push_back(std::move(n));
  }
  r.nodes = std::move(out);
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

ErrorStats compare_floats(const rt::Tensor& a, const rt::Tensor& e, const rt::Tensor* precise,
                          const rt::Tensor* bounds, const rt::Tensor* sensitivity, const OnnxNodeInfo* info,
                          const FixedTolerance& tol) {
  ErrorStats st;
  st.elements = a.numel();
  const std::vector<double> x = to_doubles(a), y = to_doubles(e);
  std::vector<double> r, s;
  if (precise && precise->shape == a.shape) r = to_doubles(*precise);
  if (bounds && bounds->shape == a.shape) s = to_doubles(*bounds);
  std::vector<double> p;
  if (sensitivity && sensitivity->shape == a.shape) p = to_doubles(*sensitivity);
  st.have_bounds = !r.empty();
  const ir::DType dt = a.dtype;
  const double eps = eps_of(dt);
  const double u = info ? info->ulps : 1;
  const double n = info ? static_cast<double>(info->reduction) : 0;
  const FixedTolerance fixed = tol.use || !st.have_bounds ? tol : FixedTolerance{};
  // c: plumb's largest own rounding error in this tensor. Another implementation's accumulated
  // rounding is distributed like plumb's, not equal to it element by element: where plumb's error at
  // element i happens to be tiny, theirs need not be (a 4-layer BERT encoder's output: plumb and torch
  // both have rms |x - r| 4.2e-7, but the per-element term alone put torch 55x outside the bound).
  double c = 0;
  for (size_t k = 0; k < r.size() && k < x.size(); ++k)
    if (std::isfinite(x[k]) && std::isfinite(r[k])) c = std::max(c, std::fabs(x[k] - r[k]));
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
      ok_fixed = d <= fixed.atol + fixed.rtol * std::fabs(ye);
      if (st.have_bounds) {
        const double rr = r[k];
        double bound = std::numeric_limits<double>::infinity();
        if (std::isfinite(rr)) {
          const double sk = !s.empty() && std::isfinite(s[k]) ? std::fabs(s[k]) : 0.0;
          const double pk = !p.empty() && std::isfinite(p[k]) ? p[k] : 0.0;
          bound =
              kBoundFactor * (std::fabs(xa - rr) + c + u * ulp_in(dt, rr) + std::max(n, 1.0) * eps * sk + pk);
        }
        ok_auto = d <= bound;
        const double ratio = d == 0 ? 0 : (bound > 0 ? d / bound : std::numeric_limits<double>::infinity());
        st.bound_ratio = std::max(st.bound_ratio, ratio);
      }
    }
    if (!ok_auto) ++st.beyond_noise;
    const bool ok = tol.use || !st.have_bounds ? ok_fixed : ok_auto;
    if (!ok) {
      if (st.mismatches == 0) st.why = strfmt("element %lld is %.9g, expected %.9g", (long long)k, xa, ye);
      ++st.mismatches;
      st.match = false;
    }
  }
  if (!st.match)
    st.why += strfmt(" (%lld of %lld elements differ)", (long long)st.mismatches, (long long)st.elements);
  return st;
}

}  // namespace

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

ir::Graph bounds_graph(const ir::Graph& g, const std::vector<OnnxNodeInfo>& nodes) {
  ir::Graph out = g;
  std::vector<bool> dot(out.body.nodes.size(), false);
  for (const OnnxNodeInfo& i : nodes)
    for (size_t k = i.first; k <= i.last && k < dot.size(); ++k) dot[k] = i.dot;
  rewrite_bounds(out, out.body, &dot);
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
  if (have_bounds) return beyond_noise == 0 ? "noise" : "semantic";
  return match ? "noise" : "semantic";
}

ErrorStats compare_value(const rt::RtValue& a, const rt::RtValue& e, const BoundInputs& bi,
                         const OnnxNodeInfo* info, const FixedTolerance& tol) {
  if (a.is_tensor() && e.is_tensor()) {
    const rt::Tensor& ta = a.tensor();
    const rt::Tensor& te = e.tensor();
    if (ir::is_float(ta.dtype) && ir::is_float(te.dtype)) {
      if (ta.shape != te.shape) {
        ErrorStats st;
        st.match = false;
        st.elements = ta.numel();
        st.why = "shape " + shape_str(ta.shape) + ", expected " + shape_str(te.shape);
        st.bound_ratio = std::numeric_limits<double>::infinity();
        return st;
      }
      auto tensor_of = [](const rt::RtValue* v) { return v && has_storage(*v) ? &v->tensor() : nullptr; };
      ErrorStats st = compare_floats(ta, te, tensor_of(bi.precise), tensor_of(bi.bounds),
                                     tensor_of(bi.sensitivity), info, tol);
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
  if (!c.match) st.bound_ratio = std::numeric_limits<double>::infinity();
  return st;
}

namespace {

template <typename Bits>
void nudge(Bits* data, int64_t n, int exp_bits, int mant_bits, uint64_t seed) {
  const Bits sign = Bits(1) << (exp_bits + mant_bits);
  const Bits exp_mask = ((Bits(1) << exp_bits) - 1) << mant_bits;
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (int64_t k = 0; k < n; ++k) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;  // xorshift64
    Bits& b = data[k];
    if ((b & exp_mask) == exp_mask) continue;  // inf or NaN
    const Bits mag = b & Bits(~sign);
    const bool away = (x & 1) != 0;
    if (away && ((mag + 1) & exp_mask) != exp_mask)
      b = Bits((b & sign) | (mag + 1));
    else if (!away && mag > 0)
      b = Bits((b & sign) | (mag - 1));
    else if (!away)
      b = Bits((b & sign) | 1);  // zero: the smallest subnormal
  }
}

}  // namespace

rt::RtValue perturbed_by_one_ulp(const rt::RtValue& v, uint64_t seed) {
  if (!v.is_tensor()) return v;
  const rt::Tensor& t = v.tensor();
  rt::Tensor out = rt::Tensor::allocate(t.dtype, t.shape);
  if (t.dtype == ir::DType::String) return v;
  if (t.nbytes() > 0) std::memcpy(out.data, t.data, static_cast<size_t>(t.nbytes()));
  switch (t.dtype) {
    case ir::DType::F64: nudge(out.as<uint64_t>(), out.numel(), 11, 52, seed); break;
    case ir::DType::F32: nudge(out.as<uint32_t>(), out.numel(), 8, 23, seed); break;
    case ir::DType::F16: nudge(out.as<uint16_t>(), out.numel(), 5, 10, seed); break;
    case ir::DType::BF16: nudge(out.as<uint16_t>(), out.numel(), 8, 7, seed); break;
    default: return v;
  }
  return rt::RtValue(std::move(out));
}

}  // namespace plumb::check
