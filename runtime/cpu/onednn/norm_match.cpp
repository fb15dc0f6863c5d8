#include "runtime/cpu/onednn/norm_match.h"

#include <algorithm>
#include <optional>
#include <set>

#include "ir/attrs.h"
#include "runtime/cpu/onednn/graph_uses.h"
#include "runtime/plan.h"

namespace plumb::rt::onednn {
namespace {

using ir::BinaryKind;
using ir::DType;
using ir::Op;
using ir::ValueId;

// softmax() and layer_norm()'s answer where the nodes are not that pattern at all ("": matched).
const char* const kNotIt = "not this pattern";

class NormMatcher {
 public:
  explicit NormMatcher(const ir::Graph& g) : g_(g), nodes_(g.body.nodes), u_(uses_of(g)) {}

  NormMatch run(NumericMode mode) {
    NormMatch m;
    if (mode == NumericMode::kPrecise) return m;  // f64 throughout: oneDNN has no f64 primitives
    for (uint32_t i = 0; i < nodes_.size(); ++i) {
      const ir::Node& n = nodes_[i];
      if (n.op != Op::Cast || ir::attrs<Op::Cast>(n).to != DType::F32 || n.outputs.size() != 1 ||
          g_.type_of(n.inputs[0]).dtype != DType::F64)
        continue;
      if (!m.spans.empty() && m.spans.back().span.end > i) continue;
      for (const NormSpan::Kind kind : {NormSpan::Kind::kSoftmax, NormSpan::Kind::kLayerNorm}) {
        pattern_ = {i};
        recognized_ = false;
        NormSpan s;
        s.kind = kind;
        const std::string why = kind == NormSpan::Kind::kSoftmax ? softmax(i, s) : layer_norm(i, s);
        if (why.empty()) {
          // an earlier span that this one overlaps (it cannot: each ends at its own cast) is kept
          if (m.spans.empty() || m.spans.back().span.end <= s.span.begin) m.spans.push_back(std::move(s));
          break;
        }
        if (recognized_ && why != kNotIt) {
          m.declines.push_back(
              Claim{NodeSpan{i, i + 1}, Support::no(s.description() + " not mapped: " + why)});
          break;
        }
      }
    }
    return m;
  }

 private:
  const ir::Node* def(ValueId v) {
    if (v >= u_.def.size() || u_.def[v] < 0) return nullptr;
    pattern_.insert(static_cast<uint32_t>(u_.def[v]));
    return &nodes_[u_.def[v]];
  }
  const ir::Node* def_op(ValueId v, Op op) {
    if (v >= u_.def.size() || u_.def[v] < 0 || nodes_[u_.def[v]].op != op) return nullptr;
    return def(v);
  }
  const ir::Node* binary(ValueId v, BinaryKind k) {
    if (v >= u_.def.size() || u_.def[v] < 0) return nullptr;
    const ir::Node& n = nodes_[u_.def[v]];
    if (n.op != Op::Binary || ir::attrs<Op::Binary>(n).kind != k) return nullptr;
    return def(v);
  }
  const ir::Node* unary(ValueId v, ir::UnaryKind k) {
    if (v >= u_.def.size() || u_.def[v] < 0) return nullptr;
    const ir::Node& n = nodes_[u_.def[v]];
    if (n.op != Op::Unary || ir::attrs<Op::Unary>(n).kind != k) return nullptr;
    return def(v);
  }
  // reduce `kind` over the single axis `axis` (-1: any, then set): its input, or kNoValue
  ValueId reduce(ValueId v, ir::ReduceKind kind, int& axis) {
    if (v >= u_.def.size() || u_.def[v] < 0) return ir::kNoValue;
    const ir::Node& n = nodes_[u_.def[v]];
    if (n.op != Op::Reduce) return ir::kNoValue;
    const auto& a = ir::attrs<Op::Reduce>(n);
    if (a.kind != kind || a.axes.size() != 1 || (axis >= 0 && a.axes[0] != axis)) return ir::kNoValue;
    axis = static_cast<int>(a.axes[0]);
    def(v);
    return n.inputs[0];
  }
  // A broadcast with these dims: its source (its shape operand joins the pattern), or kNoValue.
  ValueId broadcast(ValueId v, const std::vector<int64_t>& dims) {
    const ir::Node* n = v < u_.def.size() && u_.def[v] >= 0 ? &nodes_[u_.def[v]] : nullptr;
    if (!n || n->op != Op::Broadcast || ir::attrs<Op::Broadcast>(*n).dims != dims) return ir::kNoValue;
    def(v);
    def(n->inputs[1]);
    return n->inputs[0];
  }
  // The reduced value broadcast back over `axis` of a rank-r shape: dims all but axis.
  ValueId unreduce(ValueId v, int axis, size_t rank) {
    std::vector<int64_t> dims;
    for (size_t d = 0; d < rank; ++d)
      if (static_cast<int>(d) != axis) dims.push_back(static_cast<int64_t>(d));
    return broadcast(v, dims);
  }
  std::optional<Tensor> constant(ValueId v) {
    const ir::Node* n = def_op(v, Op::Constant);
    if (!n) return std::nullopt;
    const uint32_t ci = ir::attrs<Op::Constant>(*n).value.index;
    if (ci >= g_.constants.size()) return std::nullopt;
    auto t = constant_tensor(g_.constants[ci]);
    if (!t) return std::nullopt;
    return std::move(*t);
  }
  std::optional<double> scalar(ValueId v) {
    auto t = constant(v);
    if (!t || t->numel() != 1) return std::nullopt;
    if (t->dtype == DType::F64) return t->as<double>()[0];
    if (t->dtype == DType::F32) return t->as<float>()[0];
    return std::nullopt;
  }
  // broadcast(scalar constant, shape) with dims []: its value
  std::optional<double> splat(ValueId v) {
    const ValueId s = broadcast(v, {});
    return s == ir::kNoValue ? std::nullopt : scalar(s);
  }
  // broadcast along `axis` of an f32 [C] constant (through a cast to f64), or of an f64 [C]
  // constant whose values f32 holds exactly: the values
  std::optional<std::vector<float>> vec(ValueId v, int axis, int64_t c) {
    ValueId s = broadcast(v, {axis});
    if (s == ir::kNoValue) return std::nullopt;
    if (const ir::Node* cast = def_op(s, Op::Cast)) {
      if (g_.type_of(cast->inputs[0]).dtype != DType::F32) return std::nullopt;
      s = cast->inputs[0];
    }
    auto t = constant(s);
    if (!t || t->rank() != 1 || t->shape[0] != c) return std::nullopt;
    std::vector<float> out(static_cast<size_t>(c));
    for (int64_t k = 0; k < c; ++k) {
      if (t->dtype == DType::F32) {
        out[k] = t->as<float>()[k];
      } else if (t->dtype == DType::F64 &&
                 static_cast<double>(static_cast<float>(t->as<double>()[k])) == t->as<double>()[k]) {
        out[k] = static_cast<float>(t->as<double>()[k]);
      } else {
        return std::nullopt;
      }
    }
    return out;
  }
  // The row length: a constant C, or the reduce sum over axis of a broadcast 1 (counted at run time).
  bool count(ValueId v, int axis, int64_t c) {
    if (auto k = scalar(v)) return *k == static_cast<double>(c);
    int a = axis;
    const ValueId ones = reduce(v, ir::ReduceKind::Sum, a);
    if (ones == ir::kNoValue) return false;
    const auto one = splat(ones);
    return one && *one == 1;
  }
  // x64 = cast x to f64, x a static f32 tensor: x (else kNoValue)
  ValueId source(ValueId x64) {
    const ir::Node* c = def_op(x64, Op::Cast);
    if (!c || ir::attrs<Op::Cast>(*c).to != DType::F64) return ir::kNoValue;
    const ir::Type& t = g_.type_of(c->inputs[0]);
    if (!t.is_tensor() || !t.ranked || t.dtype != DType::F32) return ir::kNoValue;
    for (const ir::Dim& d : t.shape)
      if (!d.is_static()) return ir::kNoValue;
    return c->inputs[0];
  }

  // The span's f32 source behind x64, of the result type t's shape and not empty, with its axis.
  std::string take_source(ValueId x64, const ir::Type& t, int axis, NormSpan& s) {
    s.src = source(x64);
    if (s.src == ir::kNoValue) return "the source is not an f32 tensor of static shape cast to f64";
    if (g_.type_of(s.src).shape != t.shape) return "the result's shape is not the source's";
    for (const ir::Dim& dim : t.shape)
      if (dim.size == 0) return "an empty tensor";
    s.axis = axis;
    return "";
  }

  // The span from x64's cast to the last cast `last`, if the pattern is closed; else why not.
  std::string close(uint32_t last, ValueId x64, NormSpan& s) {
    const uint32_t first = static_cast<uint32_t>(u_.def[x64]);
    for (uint32_t k : pattern_)
      if (nodes_[k].op != Op::Constant && (k < first || k > last)) return "its nodes are not consecutive";
    for (uint32_t k = first; k <= last; ++k) {
      const bool in = pattern_.count(k) > 0;
      if (!in && nodes_[k].op != Op::Constant) return "another node lies between its nodes";
      if (!in && nodes_[k].op == Op::Constant) continue;  // checked below: read only inside
    }
    for (uint32_t k = first; k <= last; ++k)
      for (ValueId v : nodes_[k].outputs) {
        if (k == last) continue;
        if (u_.results[v] > 0) return "a value inside it is a graph result";
        for (uint32_t r : u_.readers[v])
          if (r < first || r > last) return "a value inside it is read after it";
      }
    if (u_.def[s.src] >= static_cast<int64_t>(first)) return "its source is defined inside it";
    s.span = NodeSpan{first, last + 1};
    return "";
  }

  std::string softmax(uint32_t i, NormSpan& s) {
    const ir::Node& last = nodes_[i];
    const ir::Node* div = binary(last.inputs[0], BinaryKind::Div);
    if (!div) return kNotIt;
    const ir::Node* e2 = unary(div->inputs[0], ir::UnaryKind::Exp);
    if (!e2) return kNotIt;
    int axis = -1;
    const ir::Type& t = g_.type_of(last.outputs[0]);
    if (!t.is_tensor() || !t.ranked) return kNotIt;
    // the sum's broadcast: dims are all but the reduced axis, which the reduce names
    const ir::Node* sb = def_op(div->inputs[1], Op::Broadcast);
    if (!sb) return kNotIt;
    const ValueId e1 = reduce(sb->inputs[0], ir::ReduceKind::Sum, axis);
    if (e1 == ir::kNoValue || unreduce(div->inputs[1], axis, t.shape.size()) != sb->inputs[0]) return kNotIt;
    const ValueId d = e2->inputs[0];
    if (e1 != div->inputs[0]) {
      const ir::Node* exp1 = unary(e1, ir::UnaryKind::Exp);
      if (!exp1 || exp1->inputs[0] != d) return kNotIt;
    }
    recognized_ = true;  // exp(d) / broadcast(sum(exp(d)))
    const ir::Node* sub = binary(d, BinaryKind::Sub);
    if (!sub) return "the exponent is not x - max";
    const ValueId x64 = sub->inputs[0];
    int max_axis = axis;
    if (reduce(unreduce(sub->inputs[1], axis, t.shape.size()), ir::ReduceKind::Max, max_axis) != x64)
      return "the exponent is not x - broadcast(reduce max x) over the summed axis";
    if (std::string why = take_source(x64, t, axis, s); !why.empty()) return why;
    s.result = last.outputs[0];
    s.declared = s.result;
    s.width = kSoftmaxDeclaredWidth;
    return close(i, x64, s);
  }

  std::string layer_norm(uint32_t i, NormSpan& s) {
    const ir::Node& last = nodes_[i];
    const ir::Type& t = g_.type_of(last.outputs[0]);
    if (!t.is_tensor() || !t.ranked || t.shape.empty() || !t.shape.back().is_static()) return kNotIt;
    const int axis = static_cast<int>(t.shape.size()) - 1;
    const int64_t c = t.shape.back().size;
    // [+ beta] after (d * inv) * gamma
    ValueId z = last.inputs[0];
    std::optional<std::vector<float>> beta;
    if (const ir::Node* add = binary(z, BinaryKind::Add)) {
      for (int k = 0; k < 2 && !beta; ++k)
        if ((beta = vec(add->inputs[k], axis, c))) z = add->inputs[1 - k];
      if (!beta) return kNotIt;
    }
    const ir::Node* sc = binary(z, BinaryKind::Mul);
    if (!sc) return kNotIt;
    std::optional<std::vector<float>> gamma;
    ValueId nrm = ir::kNoValue;
    for (int k = 0; k < 2 && !gamma; ++k)
      if ((gamma = vec(sc->inputs[k], axis, c))) nrm = sc->inputs[1 - k];
    if (!gamma) return kNotIt;
    const ir::Node* mul = binary(nrm, BinaryKind::Mul);
    if (!mul) return kNotIt;
    const ir::Node* inv = nullptr;
    ValueId d = ir::kNoValue;
    for (int k = 0; k < 2 && !inv; ++k)
      if ((inv = binary(mul->inputs[k], BinaryKind::Div))) d = mul->inputs[1 - k];
    if (!inv) return kNotIt;
    const ir::Node* sd = unary(inv->inputs[1], ir::UnaryKind::Sqrt);
    if (!sd) return kNotIt;
    recognized_ = true;  // (d * 1 / sqrt(..)) * gamma
    const auto one = splat(inv->inputs[0]);
    if (!one || *one != 1) return "the inverse is not 1 / sqrt";
    const ir::Node* ve = binary(sd->inputs[0], BinaryKind::Add);
    if (!ve) return "the square root is not of variance + epsilon";
    std::optional<double> eps;
    ValueId varb = ir::kNoValue;
    for (int k = 0; k < 2 && !eps; ++k)
      if ((eps = splat(ve->inputs[k]))) varb = ve->inputs[1 - k];
    if (!eps) return "epsilon is not a constant";
    if (!(*eps >= 0) || static_cast<double>(static_cast<float>(*eps)) != *eps)
      return "epsilon is not a nonnegative f32 value";
    const ir::Node* var = binary(unreduce(varb, axis, t.shape.size()), BinaryKind::Div);
    if (!var) return "the variance is not a sum / n";
    int a = axis;
    const ValueId sq = reduce(var->inputs[0], ir::ReduceKind::Sum, a);
    const ir::Node* sqn = sq == ir::kNoValue ? nullptr : binary(sq, BinaryKind::Mul);
    if (!sqn || sqn->inputs[0] != d || sqn->inputs[1] != d || !count(var->inputs[1], axis, c))
      return "the variance is not the mean of d * d over the last axis";
    const ir::Node* sub = binary(d, BinaryKind::Sub);
    if (!sub) return "the centred value is not x - mean";
    const ValueId x64 = sub->inputs[0];
    const ir::Node* mean = binary(unreduce(sub->inputs[1], axis, t.shape.size()), BinaryKind::Div);
    a = axis;
    if (!mean || reduce(mean->inputs[0], ir::ReduceKind::Sum, a) != x64 || !count(mean->inputs[1], axis, c))
      return "the mean is not the sum of x over the last axis / n";
    if (std::string why = take_source(x64, t, axis, s); !why.empty()) return why;
    s.gamma = std::move(*gamma);
    if (beta) s.beta = std::move(*beta);
    s.eps = static_cast<float>(*eps);
    s.result = last.outputs[0];
    s.declared = nrm;
    s.width = kLayerNormDeclaredWidth;
    return close(i, x64, s);
  }

  const ir::Graph& g_;
  const std::vector<ir::Node>& nodes_;
  Uses u_;
  std::set<uint32_t> pattern_;  // the nodes the current try has visited (the span's own)
  bool recognized_ = false;     // the try got past the pattern's distinctive nodes
};

}  // namespace

std::string NormSpan::description() const { return kind == Kind::kSoftmax ? "softmax" : "layer_norm"; }

NormMatch match_norms(const ir::Graph& g, NumericMode mode) { return NormMatcher(g).run(mode); }

}  // namespace plumb::rt::onednn
