// The stochastic graph of `--tolerance auto` (bound.h): every float core result followed by a
// random perturbation of its local rounding size. The statistics of its runs are in bound.cpp.
#include "check/bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "check/constant_noise.h"
#include "check/eval.h"
#include "ir/attrs.h"
#include "ir/builder.h"
#include "ir/op.h"

namespace plumb::check {

namespace {

using BK = ir::BinaryKind;
using UK = ir::UnaryKind;
using RK = ir::ReduceKind;
using PK = ir::PoolKind;
using ir::ValueId;

bool is_float_tensor(const ir::Type& t) { return t.is_tensor() && t.ranked && ir::is_float(t.dtype); }

int precision_bits(ir::DType dt) { return static_cast<int>(std::lround(1 - std::log2(eps_of(dt)))); }

int64_t static_extent(const ir::Type& t, int64_t axis) {
  if (!t.ranked || axis < 0 || axis >= t.rank() || !t.shape[axis].is_static()) return -1;
  return t.shape[axis].size;
}

int64_t static_numel(const ir::Type& t) {
  if (!t.is_tensor() || !t.ranked) return -1;
  return ir::shape_num_elements(t.shape);
}

// How one float result of a core node is rounded (the local error model of check_bound.h).
struct Rounding {
  enum Kind { kNone, kRelative, kProduct, kSum } kind = kNone;
  double width = 1;   // kRelative: the half-width in units of u|y|
  int64_t terms = 1;  // kProduct (width sqrt(n)), kSum: n; -1: not static, computed in the graph
  // Where n comes from when it is not static: extent `axis` of input 0 (axis >= 0), numel(input 0)
  // / numel(result) (axis -1), or numel(input 1) / extent 0 of input 1 (axis -2, conv weights).
  int64_t axis = -1;
  // A constant: every value it holds is representable, so "exactly representable" says nothing of
  // whether it was rounded; only its integers and half-integers are exact: shape arithmetic,
  // exponents, 1 and 2, and the pixel-centre constants of the formulas (GridSample's and Resize's
  // -0.5, d - 0.5), which an implementation holds exactly. Perturbed, those moved a float tap
  // position off its integer and the truncating cast picked the neighbouring tap: a discontinuity
  // that no f32 implementation has, which made the noise of GridSample's reflection O(1).
  bool constant = false;
};

Rounding rounding_of(const ir::Graph& g, const ir::Node& n) {
  Rounding r;
  auto relative = [&](double w) {
    r.kind = Rounding::kRelative;
    r.width = w;
    return r;
  };
  auto ulp_class = [&](ir::ToleranceClass c) -> double {
    switch (c) {
      case ir::ToleranceClass::Ulp1: return 3;
      case ir::ToleranceClass::Ulp2: return 5;
      case ir::ToleranceClass::Ulp4: return 9;
      case ir::ToleranceClass::Ulp8: return 17;
      default: return 1;
    }
  };
  switch (n.op) {
    case ir::Op::Constant:  // a converter's folded or cast constant: faithfully rounded (+-ulp)
      r.constant = true;
      return relative(2);
    case ir::Op::Unary:
      if (ir::attrs<ir::Op::Unary>(n).kind == UK::Sqrt) return relative(1);
      if (ir::tolerance_of(n) == ir::ToleranceClass::Exact) return r;  // neg, abs, floor, ...
      return relative(ulp_class(ir::tolerance_of(n)));
    case ir::Op::Binary: {
      const BK kind = ir::attrs<ir::Op::Binary>(n).kind;
      if (kind == BK::Add || kind == BK::Sub || kind == BK::Mul || kind == BK::Div) return relative(1);
      if (ir::tolerance_of(n) == ir::ToleranceClass::Exact) return r;  // max, min, rem, ...
      return relative(ulp_class(ir::tolerance_of(n)));
    }
    case ir::Op::Cast: {
      const ir::Type& in = g.type_of(n.inputs[0]);
      const ir::DType to = ir::attrs<ir::Op::Cast>(n).to;
      if (!in.is_tensor() || !ir::is_float(to)) return r;
      if (!ir::is_float(in.dtype) || precision_bits(in.dtype) > precision_bits(to)) return relative(1);
      return r;
    }
    case ir::Op::Reduce:
    case ir::Op::Scan: {
      const RK kind =
          n.op == ir::Op::Reduce ? ir::attrs<ir::Op::Reduce>(n).kind : ir::attrs<ir::Op::Scan>(n).kind;
      if (kind != RK::Sum && kind != RK::Prod) return r;
      const ir::Type& in = g.type_of(n.inputs[0]);
      int64_t len = -1;
      if (n.op == ir::Op::Scan) {
        r.axis = ir::attrs<ir::Op::Scan>(n).axis;
        len = static_extent(in, r.axis);
      } else {
        const int64_t a = static_numel(in), b = static_numel(g.type_of(n.outputs[0]));
        if (a >= 0 && b > 0) len = std::max<int64_t>(a / b, 1);
      }
      r.kind = kind == RK::Prod ? Rounding::kProduct : Rounding::kSum;
      r.terms = len;
      return r;
    }
    case ir::Op::Pool: {
      const ir::PoolAttrs a = ir::attrs<ir::Op::Pool>(n);
      if (a.kind != PK::Sum) return r;
      int64_t len = 1;
      for (int64_t w : a.window) len *= std::max<int64_t>(w, 1);
      r.kind = Rounding::kSum;
      r.terms = len;
      return r;
    }
    case ir::Op::MatMul:
    case ir::Op::Conv: {
      const ir::Type& lhs = g.type_of(n.inputs[0]);
      const ir::Type& rhs = g.type_of(n.inputs[1]);
      if (!ir::is_float(lhs.dtype) || !ir::is_float(rhs.dtype)) return relative(1);
      if (!lhs.ranked || !rhs.ranked || lhs.rank() < 1 || rhs.rank() < 1) return relative(1);
      int64_t len = -1;
      if (n.op == ir::Op::MatMul) {
        r.axis = lhs.rank() - 1;
        len = static_extent(lhs, r.axis);
        if (len < 0 && rhs.rank() >= 2) len = static_extent(rhs, rhs.rank() - 2);
      } else {
        r.axis = -2;
        len = 1;
        for (int64_t d = 1; d < rhs.rank() && len > 0; ++d)
          len = static_extent(rhs, d) < 0 ? -1 : len * static_extent(rhs, d);
      }
      r.kind = Rounding::kSum;
      r.terms = len;
      return r;
    }
    default: return r;  // data movement, compare, select, gather, scatter, sort, ...
  }
}

// The constant of constant node `n` with result y when Perturber::constant_on_host can perturb it:
// f32 or f64, of y's type, its bytes all there; else null.
const ir::ConstantData* host_perturbable(const ir::Graph& g, const ir::Node& n, ValueId y) {
  if (n.op != ir::Op::Constant || n.outputs.size() != 1) return nullptr;
  const uint32_t index = ir::attrs<ir::Op::Constant>(n).value.index;
  if (index >= g.constants.size()) return nullptr;
  const ir::ConstantData& c = g.constants[index];
  const ir::DType dt = c.type.dtype;
  if (!c.type.is_tensor() || (dt != ir::DType::F32 && dt != ir::DType::F64) || !(g.type_of(y) == c.type))
    return nullptr;
  const int64_t count = ir::shape_num_elements(c.type.shape);
  if (count < 0 || c.size != ir::dtype_storage_bytes(dt, static_cast<uint64_t>(count)) ||
      (count > 0 && c.data == nullptr))
    return nullptr;
  return &c;
}

// Emits, after a node, the perturbation of its float result `y` (renamed `y0`), ending in a node
// whose output is the original id `y`.
class Perturber {
 public:
  Perturber(ir::Graph& g, uint64_t seed, bool constants_on_host)
      : g_(g), b_(g), seed_(seed), constants_on_host_(constants_on_host) {
    if (constants_on_host_) count_constant_nodes(g.body);
  }
  bool constants_on_host() const { return constants_on_host_; }

  // z uniform in [-h, h] (f64) of y0's shape.
  ValueId uniform(ValueId y0, double h) {
    const ValueId sh = b_.shape_of(y0);
    const ValueId bits = b_.emit1(ir::RngAttrs{ir::RngAlgorithm::Philox4x32x10, static_cast<int64_t>(seed_),
                                               static_cast<int64_t>(stream_++)},
                                  {sh});
    const ValueId u = b_.cast(bits, ir::DType::F64);  // [0, 2^32)
    const ValueId z = b_.binary(BK::Mul, u, splat(2 * h / 4294967296.0, sh));
    return b_.binary(BK::Sub, z, splat(h, sh));
  }

  ValueId splat(double v, ValueId sh) { return b_.broadcast(b_.scalar_float(ir::DType::F64, v), sh, {}); }

  // The perturbation where it is finite, else 0: an inf or NaN result (a masked attention score,
  // an overflow) keeps its value; -inf + sigma z would be NaN.
  ValueId finite_only(ValueId perturbation, ValueId sh) {
    const ValueId finite = b_.compare(ir::CompareKind::Lt, b_.unary(UK::Abs, perturbation),
                                      splat(std::numeric_limits<double>::infinity(), sh));
    return b_.select(finite, perturbation, splat(0, sh));
  }

  // perturbation where y is neither an integer nor a half-integer (2y is exact in f64), else 0.
  ValueId where_not_half_integer(ValueId y, ValueId perturbation, ValueId sh) {
    const ValueId twice = b_.binary(BK::Mul, y, splat(2, sh));
    const ValueId half_integer = b_.compare(ir::CompareKind::Eq, b_.unary(UK::Floor, twice), twice);
    return finite_only(b_.select(half_integer, splat(0, sh), perturbation), sh);
  }

  // perturbation where y (f64) is not representable with `bits` significant bits, else 0: an
  // exact result (integers of index arithmetic, x - floor(x), ...) has no rounding error, in any
  // order. Veltkamp's split hi = c - (c - y), c = (2^(53 - bits) + 1) y, is y rounded to `bits`
  // bits in f64 arithmetic (it works in the precise run, where casts to f32 do not round).
  ValueId where_inexact(ValueId y, ValueId perturbation, int bits, ValueId sh) {
    if (bits >= 53) return perturbation;
    const ValueId c = b_.binary(BK::Mul, y, splat(std::ldexp(1.0, 53 - bits) + 1, sh));
    const ValueId hi = b_.binary(BK::Sub, c, b_.binary(BK::Sub, c, y));
    const ValueId exact = b_.compare(ir::CompareKind::Eq, hi, y);
    return finite_only(b_.select(exact, splat(0, sh), perturbation), sh);
  }
  // perturbation where a sum may have rounded, else 0: a sum of integer terms is exact when the sum
  // of their squares q (>= sum |t_k|, which bounds every partial sum) is an integer below 2^bits.
  // (That the final sum is representable is not enough: 64 x f32(1/3) is, its partial sums are not.)
  ValueId where_sum_inexact(ValueId y, ValueId q, ValueId perturbation, int bits, ValueId sh) {
    if (bits >= 53) return perturbation;
    const ValueId yi = b_.compare(ir::CompareKind::Eq, b_.unary(UK::Floor, y), y);
    const ValueId qi = b_.compare(ir::CompareKind::Eq, b_.unary(UK::Floor, q), q);
    const ValueId small = b_.compare(ir::CompareKind::Lt, q, splat(std::ldexp(1.0, bits), sh));
    const ValueId exact = b_.binary(BK::And, yi, b_.binary(BK::And, qi, small));
    return finite_only(b_.select(exact, splat(0, sh), perturbation), sh);
  }
  ValueId to_f64(ValueId v) { return b_.type_of(v).dtype == ir::DType::F64 ? v : b_.cast(v, ir::DType::F64); }
  ValueId square(ValueId v) { return b_.binary(BK::Mul, v, v); }

  // f64 scalar: the number of elements of v (its shape's product).
  ValueId numel(ValueId v) { return b_.cast(b_.reduce(RK::Prod, b_.shape_of(v), {0}), ir::DType::F64); }
  ValueId extent(ValueId v, int64_t axis) {
    const ValueId d = b_.emit1(ir::GatherAttrs{ir::GatherKind::Axis, 0, 0},
                               {b_.shape_of(v), b_.scalar_int(ir::DType::I64, axis)});
    return b_.cast(d, ir::DType::F64);
  }
  // n of rd for node n (whose result is `result`), an f64 scalar (a constant when static).
  ValueId terms(const ir::Node& n, const Rounding& rd, ValueId result) {
    if (rd.terms >= 0) return b_.scalar_float(ir::DType::F64, static_cast<double>(rd.terms));
    ValueId len = ir::kNoValue;
    if (rd.axis >= 0)
      len = extent(n.inputs[0], rd.axis);
    else if (rd.axis == -1)
      len = b_.binary(BK::Div, numel(n.inputs[0]), numel(result));
    else
      len = b_.binary(BK::Div, numel(n.inputs[1]), extent(n.inputs[1], 0));
    return b_.binary(BK::Max, len, b_.scalar_float(ir::DType::F64, 1));  // an empty reduction: 1
  }
  // c0 + c1 * n, broadcast to sh.
  ValueId affine(ValueId n, double c0, double c1, ValueId sh) {
    const ValueId v = b_.binary(BK::Add, b_.scalar_float(ir::DType::F64, c0),
                                b_.binary(BK::Mul, n, b_.scalar_float(ir::DType::F64, c1)));
    return b_.broadcast(v, sh, {});
  }

  // The perturbation of float constant node `n` (result y, kRelative of rounding_of with half-width
  // `width` u), computed now (check/constant_noise.h: the same bits as the nodes of perturb(), in
  // one pass instead of in every run), as an f64 constant cast to y's dtype; it takes the rng
  // stream those nodes would have.
  Expected<std::vector<ir::Node>> constant_on_host(const ir::Node& n, const ir::ConstantData& c, ValueId y,
                                                   double width, double u) {
    const ir::DType dt = c.type.dtype;
    ir::Type f64 = c.type;
    f64.dtype = ir::DType::F64;
    const int64_t count = ir::shape_num_elements(c.type.shape);
    const uint64_t stream = stream_++;  // the stream of the rng node this replaces
    std::vector<uint8_t> bytes(static_cast<size_t>(count) * sizeof(double));
    double* out = reinterpret_cast<double*>(bytes.data());
    perturb_constant(dt == ir::DType::F32, c.data, count, seed_, stream, width * u, out);
    b_.set_provenance(n.prov);
    b_.set_step("noise");
    b_.begin_region({});
    // The perturbed values replace the constant's when no other node reads it: the precise run
    // would widen the unread f32 weights to f64 (make_precise_graph) in every run.
    const uint32_t index = ir::attrs<ir::Op::Constant>(n).value.index;
    ValueId v = ir::kNoValue;
    if (index < constant_nodes_.size() && constant_nodes_[index] == 1) {
      g_.constants[index] = ir::ConstantData::owned(f64, std::move(bytes));  // (c is read: not used after)
      v = b_.emit1(ir::ConstantAttrs{ir::ConstRef{index}}, {});
    } else {
      v = b_.constant(ir::ConstantData::owned(f64, std::move(bytes)));  // (c may move: read it before)
    }
    if (dt != ir::DType::F64) v = b_.cast(v, dt);
    ir::Region r = b_.end_region({});
    PLUMB_RETURN_IF_ERROR(b_.status());
    if (r.nodes.empty() || r.nodes.back().outputs.size() != 1 || r.nodes.back().outputs[0] != v)
      return internal_error("stochastic graph: the perturbed constant does not end in its result");
    r.nodes.back().outputs[0] = y;
    return std::move(r.nodes);
  }

  // The nodes that perturb y0 into y (y's id is kept for the last node's result).
  // With want_sigma, *sigma is a value (in the emitted nodes, before the last) holding the
  // perturbation's standard deviation per element.
  Expected<std::vector<ir::Node>> perturb(const ir::Node& n, const Rounding& rd, ValueId y0, ValueId y,
                                          double u, bool want_sigma, ValueId* sigma) {
    b_.set_provenance(n.prov);
    b_.set_step("noise");
    b_.begin_region({});
    const ir::DType dt = g_.type_of(y).dtype;
    const ValueId yd = to_f64(y0);
    const int bits = static_cast<int>(std::lround(-std::log2(u)));  // u = 2^-bits
    ValueId out = ir::kNoValue;
    if (rd.kind == Rounding::kRelative || rd.kind == Rounding::kProduct) {
      // y = y0 (1 + delta), delta uniform in +-width u (products: width sqrt(n)): inf stays inf.
      const ValueId sh = b_.shape_of(y0);
      ValueId d = uniform(y0, rd.kind == Rounding::kRelative ? rd.width * u : u);
      if (rd.kind == Rounding::kProduct)
        d = b_.binary(BK::Mul, d, b_.broadcast(b_.unary(UK::Sqrt, terms(n, rd, y0)), sh, {}));
      width_ = rd.kind == Rounding::kRelative
                   ? b_.broadcast(b_.scalar_float(ir::DType::F64, rd.width), sh, {})
                   : b_.broadcast(b_.unary(UK::Sqrt, terms(n, rd, y0)), sh, {});
      const ValueId pert = b_.binary(BK::Mul, yd, d);
      out = b_.binary(BK::Add, yd,
                      rd.constant ? where_not_half_integer(yd, pert, sh) : where_inexact(yd, pert, bits, sh));
    } else {
      ValueId q = ir::kNoValue;  // sum of the squared terms: the op on squared operands
      if (n.op == ir::Op::MatMul || n.op == ir::Op::Conv) {
        std::vector<ir::Attr> attrs = n.attrs;
        q = b_.emit1(n.op, {square(n.inputs[0]), square(n.inputs[1])}, attrs);
      } else if (n.op == ir::Op::Pool) {
        q = b_.emit(n.op, {square(n.inputs[0])}, n.attrs, {}, 1)[0];
      } else {
        q = b_.emit1(n.op, {square(n.inputs[0])}, n.attrs);
      }
      // var / u^2 = (n+1)/9 y^2 + ((n+1)/6 + 1)/3 q; z uniform with unit variance (+-sqrt 3) times u
      const ValueId sh = b_.shape_of(y0);
      const ValueId k = terms(n, rd, y0);
      const ValueId qd = to_f64(q);
      const ValueId v = b_.binary(BK::Add, b_.binary(BK::Mul, square(yd), affine(k, 1.0 / 9, 1.0 / 9, sh)),
                                  b_.binary(BK::Mul, qd, affine(k, 7.0 / 18, 1.0 / 18, sh)));
      sd_ = b_.unary(UK::Sqrt, v);
      out = b_.binary(
          BK::Add, yd,
          where_sum_inexact(yd, qd, b_.binary(BK::Mul, sd_, uniform(y0, std::sqrt(3.0) * u)), bits, sh));
    }
    // sigma of the perturbation (for the report's local term): width u |y| / sqrt 3, or u sqrt(v)
    if (want_sigma)
      *sigma = rd.kind == Rounding::kSum
                   ? b_.binary(BK::Mul, sd_, splat(u, b_.shape_of(y0)))
                   : b_.binary(BK::Mul, b_.binary(BK::Mul, b_.unary(UK::Abs, yd), width_),
                               splat(u / std::sqrt(3.0), b_.shape_of(y0)));
    if (dt != ir::DType::F64) out = b_.cast(out, dt);
    ir::Region r = b_.end_region({});
    PLUMB_RETURN_IF_ERROR(b_.status());
    if (r.nodes.empty() || r.nodes.back().outputs.size() != 1 || r.nodes.back().outputs[0] != out)
      return internal_error("stochastic graph: the perturbation does not end in its result");
    r.nodes.back().outputs[0] = y;
    return std::move(r.nodes);
  }

 private:
  ir::Graph& g_;
  ir::Builder b_;
  uint64_t seed_;
  uint64_t stream_ = 0;
  bool constants_on_host_ = true;
  std::vector<int> constant_nodes_;  // per constant: the constant nodes that read it

  void count_constant_nodes(const ir::Region& r) {
    constant_nodes_.resize(g_.constants.size());
    for (const ir::Node& n : r.nodes) {
      if (n.op == ir::Op::Constant) {
        const uint32_t index = ir::attrs<ir::Op::Constant>(n).value.index;
        if (index < constant_nodes_.size()) ++constant_nodes_[index];
      }
      for (const ir::Region& sub : n.regions) count_constant_nodes(sub);
    }
  }
  ValueId sd_ = ir::kNoValue, width_ = ir::kNoValue;
};

// The unit roundoff of the ONNX dtype each top-level node's results are judged in: the coarsest
// float dtype among the ONNX-named results of its ONNX node (the lowering may compute in f64).
std::vector<double> working_roundoff(const ir::Graph& g, const std::vector<OnnxNodeInfo>& nodes) {
  std::vector<double> u(g.body.nodes.size(), 0.0);
  for (const OnnxNodeInfo& info : nodes) {
    double w = 0;
    for (size_t k = info.first; k <= info.last && k < g.body.nodes.size(); ++k)
      for (ValueId v : g.body.nodes[k].outputs)
        if (!g.values[v].onnx_name.empty() && is_float_tensor(g.type_of(v)))
          w = std::max(w, eps_of(g.type_of(v).dtype) / 2);
    for (size_t k = info.first; k <= info.last && k < g.body.nodes.size(); ++k) u[k] = w;
  }
  return u;
}

// Rewrites one region; `sigmas` (top level only) collects (value, sigma value) for the values asked.
// `declared` (top level only): the extra half-widths of NoiseOptions::declared, by value.
Status rewrite(ir::Graph& g, ir::Region& region, double work_u, const std::vector<double>* top_u,
               Perturber& p, const std::set<ValueId>* want, std::map<ValueId, ValueId>* sigmas,
               const std::map<ValueId, double>* declared = nullptr) {
  std::vector<ir::Node> in = std::move(region.nodes);
  region.nodes.clear();
  region.nodes.reserve(in.size() * 2);
  for (size_t k = 0; k < in.size(); ++k) {
    ir::Node n = std::move(in[k]);
    const double wu = top_u ? (*top_u)[k] : work_u;
    for (ir::Region& sub : n.regions)
      PLUMB_RETURN_IF_ERROR(rewrite(g, sub, wu, nullptr, p, nullptr, nullptr));
    const Rounding rd = rounding_of(g, n);
    if (rd.constant && p.constants_on_host() && n.outputs.size() == 1 &&
        !(want && want->count(n.outputs[0]) > 0)) {
      const double u = std::max(wu, eps_of(g.type_of(n.outputs[0]).dtype) / 2);
      if (const ir::ConstantData* c = host_perturbable(g, n, n.outputs[0])) {
        PLUMB_ASSIGN_OR_RETURN(std::vector<ir::Node> nodes,
                               p.constant_on_host(n, *c, n.outputs[0], rd.width, u));
        for (ir::Node& m : nodes) region.nodes.push_back(std::move(m));
        continue;
      }
    }
    auto extra = [&](ValueId y) {
      if (!declared) return 0.0;
      auto it = declared->find(y);
      return it == declared->end() ? 0.0 : it->second;
    };
    std::vector<std::pair<ValueId, ValueId>> renamed;  // (y, y0)
    for (ValueId& y : n.outputs) {
      const ir::Type t = g.type_of(y);
      if (!is_float_tensor(t) || (rd.kind == Rounding::kNone && extra(y) <= 0)) continue;
      const ValueId y0 = g.add_value(t);
      renamed.emplace_back(y, y0);
      y = y0;
    }
    ir::Node node;  // what the perturbation reads of n (not its regions)
    node.op = n.op;
    node.inputs = n.inputs;
    node.attrs = n.attrs;
    node.prov = n.prov;
    region.nodes.push_back(std::move(n));
    for (const auto& [y, y0] : renamed) {
      const double u = std::max(wu, eps_of(g.type_of(y).dtype) / 2);
      const bool want_sigma = want && want->count(y) > 0;
      ValueId sigma = ir::kNoValue;
      // The declared error: a relative rounding (or none) widened, else a second one after it.
      Rounding own = rd, second;
      if (const double w = extra(y); w > 0) {
        if (own.kind == Rounding::kNone || own.kind == Rounding::kRelative) {
          own.width = own.kind == Rounding::kNone ? w : own.width + w;
          own.kind = Rounding::kRelative;
        } else {
          second.kind = Rounding::kRelative;
          second.width = w;
        }
      }
      const ValueId mid = second.kind == Rounding::kNone ? y : g.add_value(g.type_of(y));
      PLUMB_ASSIGN_OR_RETURN(std::vector<ir::Node> nodes,
                             p.perturb(node, own, y0, mid, u, want_sigma && mid == y, &sigma));
      for (ir::Node& m : nodes) region.nodes.push_back(std::move(m));
      if (mid != y) {
        PLUMB_ASSIGN_OR_RETURN(nodes, p.perturb(node, second, mid, y, u, want_sigma, &sigma));
        for (ir::Node& m : nodes) region.nodes.push_back(std::move(m));
      }
      if (want_sigma) (*sigmas)[y] = sigma;
    }
  }
  return Status();
}

}  // namespace

Expected<StochasticGraph> stochastic_graph(const ir::Graph& g, const std::vector<OnnxNodeInfo>& nodes,
                                           const NoiseOptions& o) {
  StochasticGraph sg;
  sg.graph = g;
  ir::Graph& out = sg.graph;
  Perturber p(out, o.seed, o.constants_on_host);
  std::map<ValueId, ValueId> sigmas;
  if (o.ops) {
    const std::vector<double> top_u = working_roundoff(out, nodes);
    const std::set<ValueId> want(o.sigma_of.begin(), o.sigma_of.end());
    std::map<ValueId, double> declared;
    for (const rt::DeclaredError& d : o.declared) declared[d.value] += d.width;
    PLUMB_RETURN_IF_ERROR(rewrite(out, out.body, 0, &top_u, p, &want, &sigmas, &declared));
  }
  sg.sigma_result.assign(o.sigma_of.size(), -1);
  for (size_t k = 0; k < o.sigma_of.size(); ++k)
    if (auto it = sigmas.find(o.sigma_of[k]); it != sigmas.end()) {
      sg.sigma_result[k] = static_cast<int>(out.body.results.size());
      out.body.results.push_back(it->second);
      out.output_names.push_back(out.values[o.sigma_of[k]].onnx_name + " (noise sigma)");
    }
  return sg;
}

}  // namespace plumb::check
