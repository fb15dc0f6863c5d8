#include "runtime/cpu/onednn/cpu_backend.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>

#include <oneapi/dnnl/dnnl.hpp>

#include "runtime/cpu/onednn/fusion.h"
#include "runtime/cpu/onednn/island.h"
#include "runtime/cpu/onednn/norm_match.h"
#include "runtime/cpu/onednn/norm_span.h"
#include "runtime/cpu/onednn/omp_threads.h"
#include "runtime/cpu/onednn/primitive.h"
#include "runtime/cpu/onednn/ref_path.h"
#include "runtime/partition.h"
#include "runtime/plan.h"

namespace plumb::rt::cpu {
namespace {

using onednn::Fused;
using onednn::Island;
using onednn::NormSpan;

bool overlaps(const NodeSpan& a, const NodeSpan& b) { return a.begin < b.end && b.begin < a.end; }

// What the backend claims of g: the conv/matmul/pool islands (fusion.h) and the softmax and layer
// norm spans (norm_match.h) that no island overlaps, with both matchers' declines, sorted.
struct Claims {
  onednn::Match m;
  std::vector<NormSpan> norms;  // the claimed ones
  std::vector<Claim> claims;
};

Claims claims_of(const ir::Graph& g, NumericMode mode) {
  Claims c{onednn::match_graph(g, mode), {}, {}};
  onednn::NormMatch n = onednn::match_norms(g, mode);
  auto taken = [&](const NodeSpan& s) {
    for (const Claim& k : c.m.claims)
      if (k.support.yes && overlaps(k.span, s)) return true;
    return false;
  };
  c.claims = c.m.claims;
  for (NormSpan& s : n.spans) {
    if (taken(s.span)) continue;
    c.claims.push_back(Claim{s.span, Support::ok()});
    c.norms.push_back(std::move(s));
  }
  for (const Claim& d : n.declines)
    if (!taken(d.span)) c.claims.push_back(d);
  std::stable_sort(c.claims.begin(), c.claims.end(),
                   [](const Claim& a, const Claim& b) { return a.span.begin < b.span.begin; });
  return c;
}

bool known(const Plan& plan, ir::ValueId v) {
  return plan.values[v].storage == Storage::kConstant || plan.values[v].storage == Storage::kFolded;
}

int64_t count(const ir::Type& t) {
  int64_t n = 1;
  for (const ir::Dim& d : t.shape) n *= d.size;
  return n;
}

class CpuPrepared final : public PreparedGraph {
 public:
  // order: per claim, a norm span (true: its index in norms) or an island (its index in islands)
  CpuPrepared(const ir::Graph& g, std::vector<Island> islands, std::vector<NormSpan> norms,
              std::vector<std::pair<bool, size_t>> order, const PrepareOptions& o)
      : g_(g),
        islands_(std::move(islands)),
        norms_(std::move(norms)),
        order_(std::move(order)),
        preorder_(body_preorder(g)),
        mode_(o.mode),
        threads_(std::max(1, o.threads)),
        eng_(dnnl::engine::kind::cpu, 0) {
    for (const Island& is : islands_) {
      first_unit_.push_back(fused_.size());
      for (const Fused& f : is.units) add_unit(f, o);
    }
  }

  Expected<CompiledOrDeclined> compile(size_t k, const SpanSignature& sig, const Plan& plan) override {
    if (k >= order_.size()) return internal_error("cpu: compile of an unknown claim");
    auto no = [](std::string why) { return CompiledOrDeclined{nullptr, Support::no(std::move(why))}; };
    if (order_[k].first) return compile_norm(norms_[order_[k].second], sig, plan);
    const size_t claim = order_[k].second;
    const Island& is = islands_[claim];
    if (sig.outputs != std::vector<ir::ValueId>{is.units.back().result})
      return no("the span's values are read after it (its only result must be the last post-op's)");
    for (const ir::ValueId v : sig.inputs) {
      bool expected = v == is.units[0].src || known(plan, v);
      for (const Fused& f : is.units) expected = expected || (!f.pool && v == f.weights) || v == f.residual;
      if (!expected)
        return no("the span reads %" + std::to_string(v) + ", which the pattern does not expect");
    }
    std::vector<Unit> units;
    const dnnl::memory::desc* prev = nullptr;
    for (size_t k = 0; k < is.units.size(); ++k) {
      Unit u;
      for (size_t j = 0; j < k; ++j)  // a summand kept inside the island: an earlier unit's result
        if (is.units[k].residual != ir::kNoValue && is.units[j].result == is.units[k].residual)
          u.plan.res_unit = static_cast<int>(j);
      for (size_t j = 0; j < k; ++j)  // a source kept inside the island: an earlier unit's result
        if (is.units[j].result == is.units[k].src) u.plan.src_unit = static_cast<int>(j);
      if (u.plan.src_unit >= 0) prev = &units[u.plan.src_unit].built->dst_md;
      const std::string why = compile_unit(first_unit_[claim] + k, u.plan.src_unit < 0, prev, sig, plan, u);
      if (!why.empty()) return no(is.units.size() > 1 ? is.units[k].description() + ": " + why : why);
      units.push_back(std::move(u));
      prev = &units.back().built->dst_md;
    }
    const Fused& f0 = is.units[0];
    try {
      auto span = std::make_unique<IslandSpan>(std::move(units), eng_, g_.body.nodes[f0.anchor],
                                               preorder_[f0.anchor], threads_);
      // from 0: the ref path runs instead of the units, reading only the span's inputs
      auto ref = std::make_unique<RefPath>(g_, plan, sig, 0, mode_);
      if (!ref->ok()) return no("a value inside the span has no static size");
      span->set_ref(std::move(ref));
      return CompiledOrDeclined{std::move(span), Support::ok()};
    } catch (const dnnl::error& e) {
      return no(std::string("oneDNN: ") + e.what());
    }
  }

 private:
  CompiledOrDeclined compile_norm(const NormSpan& ns, const SpanSignature& sig, const Plan& plan) {
    auto no = [&](std::string why) {
      return CompiledOrDeclined{nullptr, Support::no(ns.description() + ": " + std::move(why))};
    };
    if (sig.outputs != std::vector<ir::ValueId>{ns.result})
      return no("the span's values are read after it (its only result must be the last cast's)");
    if (plan.node_skip[ns.span.end - 1]) return no("the planner folded its result");
    int src_arg = -1;
    for (size_t k = 0; k < sig.inputs.size(); ++k)
      if (sig.inputs[k] == ns.src) src_arg = static_cast<int>(k);
    if (src_arg < 0) return no("its source is not an input of the span");
    const ir::Type& t = plan.values[ns.src].type;
    if (!static_f32(t) || t != plan.values[ns.result].type) return no("a shape known only at run time");
    auto ref = std::make_unique<RefPath>(g_, plan, sig, 0, mode_);
    if (!ref->ok()) return no("a value inside the span has no static size");
    try {
      return CompiledOrDeclined{
          std::make_unique<NormProgram>(ns, t, src_arg, eng_, threads_, std::move(ref),
                                        g_.body.nodes[ns.span.begin], preorder_[ns.span.begin]),
          Support::ok()};
    } catch (const dnnl::error& e) {
      return no(std::string("oneDNN: ") + e.what());
    }
  }

  void add_unit(const Fused& f, const PrepareOptions& o) {
    std::vector<float> b;
    if (f.bias != ir::kNoValue && o.constants && f.bias < o.constants->size() &&
        (*o.constants)[f.bias].is_tensor()) {
      const Tensor& t = (*o.constants)[f.bias].tensor();
      if (f.bias_axis < 0) {
        b.assign(t.as<float>(), t.as<float>() + t.numel());
      } else {  // the channel values of a folded broadcast (fusion.cpp checked the others equal)
        int64_t inner = 1;
        for (int64_t d = f.bias_axis + 1; d < t.rank(); ++d) inner *= t.shape[d];
        for (int64_t c = 0; c < t.shape[f.bias_axis]; ++c) b.push_back(t.as<float>()[c * inner]);
      }
    }
    bias_.push_back(std::move(b));
    const Tensor* w = nullptr;
    if (!f.pool && o.constants && f.weights < o.constants->size() && (*o.constants)[f.weights].is_tensor() &&
        (*o.constants)[f.weights].tensor().data)
      w = &(*o.constants)[f.weights].tensor();
    weights_.push_back(w ? std::optional<Tensor>(*w) : std::nullopt);
    fused_.push_back(f);
    cache_.emplace_back();
    // Static graph types: create the primitive and prepack the weights now, once per graph.
    const ir::Node& a = g_.body.nodes[f.anchor];
    if (weights_.back() && static_f32(g_.type_of(f.src)) && static_f32(g_.type_of(a.inputs[1])) &&
        static_f32(g_.type_of(a.outputs[0])))
      (void)get(cache_.size() - 1, g_.type_of(f.src), g_.type_of(a.inputs[1]), g_.type_of(a.outputs[0]),
                &*weights_.back(), nullptr);
  }

  // Unit `i` (of fused_) under this plan, or why not. first: it reads an input of the span (else
  // an earlier unit's result, whose layout is prev).
  std::string compile_unit(size_t i, bool first, const dnnl::memory::desc* prev, const SpanSignature& sig,
                           const Plan& plan, Unit& out) {
    const Fused& f = fused_[i];
    const ir::Node& a = g_.body.nodes[f.anchor];
    if (plan.node_skip[f.anchor]) return "the planner folded the " + f.description() + " anchor";
    const ir::Type& src_t = plan.values[f.src].type;
    // the rhs as the anchor reads it (a max pool has none: its source stands in, unused)
    const ir::Type& w_t = plan.values[a.inputs[f.pool ? 0 : 1]].type;
    const ir::Type& out_t = plan.values[a.outputs[0]].type;
    for (const ir::Type* t : {&src_t, &w_t, &out_t, &plan.values[f.result].type})
      if (!static_f32(*t)) return "a shape known only at run time: " + ir::type_to_string(*t);
    for (const ir::Type* t : {&src_t, &w_t, &out_t})
      for (const ir::Dim& d : t->shape)
        if (d.size == 0) return "an empty tensor";
    int src_arg = -1, w_arg = -1, res_arg = -1;
    for (size_t k = 0; k < sig.inputs.size(); ++k) {
      const ir::ValueId v = sig.inputs[k];
      if (v == f.src) src_arg = static_cast<int>(k);
      if (v == f.weights) w_arg = static_cast<int>(k);
      if (v == f.residual) res_arg = static_cast<int>(k);
    }
    if ((first && src_arg < 0) || (f.residual != ir::kNoValue && res_arg < 0 && out.plan.res_unit < 0))
      return "the pattern's operands are not the span's inputs";
    if (f.residual != ir::kNoValue && plan.values[f.residual].type != plan.values[f.result].type)
      return "the summand's type differs from the result's";
    if (f.bias != ir::kNoValue && bias_[i].empty()) return "the bias constant is not available";
    const Tensor* w = nullptr;
    if (weights_[i]) {
      w = &*weights_[i];
    } else if (!f.pool && known(plan, f.weights) && plan.known[f.weights].is_tensor()) {
      w = &plan.known[f.weights].tensor();
    }
    if (w || f.pool)
      w_arg = -1;  // packed, or none
    else if (w_arg < 0)
      return "the matmul rhs is not an input of the span";
    auto b = get(i, src_t, w_t, out_t, w, f.pool && !first ? prev : nullptr);
    if (!b) return b.status().message();
    SpanPlan& sp = out.plan;
    sp.src_arg = first ? src_arg : -1;
    sp.w_arg = w_arg;
    sp.res_arg = f.residual != ir::kNoValue && sp.res_unit < 0 ? res_arg : -1;
    sp.src_numel = count(src_t);
    sp.w_numel = count(w_t);
    sp.res_numel = f.residual != ir::kNoValue ? count(plan.values[f.residual].type) : 0;
    sp.dst_numel = count(plan.values[f.result].type);
    sp.terms = f.pool ? 0 : f.conv ? count(w_t) / w_t.shape[0].size : src_t.shape.back().size;
    sp.w_max = (*b)->w_max;
    sp.conv = f.conv;
    sp.pool = f.pool;
    for (float x : bias_[i]) sp.b_max = std::max(sp.b_max, std::isfinite(x) ? std::fabs(double{x}) : 0.0);
    sp.act = f.act;
    sp.act_fused = (*b)->act_post_op;
    sp.wb_finite = (*b)->w_finite;
    for (float x : bias_[i]) sp.wb_finite = sp.wb_finite && std::isfinite(x);
    sp.lo = f.lo;
    sp.hi = f.hi;
    if (f.gelu) {
      for (float x : bias_[i])  // a finite product plus a finite bias: no NaN for the pass to order
        if (!std::isfinite(x)) return "a gelu after a bias that is not finite";
      sp.gelu = true;
      sp.gelu_fused = (*b)->gelu_post_op;
      sp.gelu_c = f.gelu_c;
      sp.gelu_one = f.gelu_one;
      sp.gelu_k = f.gelu_k;
      sp.erf_first = f.erf_first;
      sp.x_first = f.x_first;
      sp.m_first = f.m_first;
    }
    out.built = *b;
    return "";
  }

  // The primitive for these shapes: cached per unit (a plan with other shapes builds another).
  // pool_src: a pool inside an island works in the previous unit's result layout (which these
  // shapes fix: the key need not name it).
  Expected<std::shared_ptr<Built>> get(size_t i, const ir::Type& s, const ir::Type& w, const ir::Type& o,
                                       const Tensor* weights, const dnnl::memory::desc* pool_src) {
    // Packed weights are per value: a constant's (one per graph), or a folded value's (its data,
    // which a plan computed), or none (given at run time).
    std::string key = ir::type_to_string(s) + ir::type_to_string(w);
    if (weights) key += weights_[i] ? " constant" : strfmt(" folded %p", weights->data);
    std::lock_guard<std::mutex> lock(mu_);
    auto& c = cache_[i];
    if (auto it = c.find(key); it != c.end()) return it->second;
    const OmpThreads threads(threads_);  // a primitive keeps the thread count it is created with
    PLUMB_ASSIGN_OR_RETURN(auto b, build(eng_, fused_[i], g_.body.nodes[fused_[i].anchor], s, w, o, weights,
                                         bias_[i], pool_src));
    c.emplace(key, b);
    return b;
  }

  const ir::Graph& g_;
  std::vector<Island> islands_;
  std::vector<NormSpan> norms_;
  std::vector<std::pair<bool, size_t>> order_;
  std::vector<size_t> first_unit_;  // per island: its first unit's index in fused_
  std::vector<Fused> fused_;        // every unit of every island, in order
  std::vector<int64_t> preorder_;
  NumericMode mode_;
  int threads_;  // oneDNN's threads for this session, at creation and at run time (omp_threads.h)
  dnnl::engine eng_;
  std::vector<std::vector<float>> bias_;
  std::vector<std::optional<Tensor>> weights_;  // the constant weights (views that keep their storage)
  std::mutex mu_;
  std::vector<std::map<std::string, std::shared_ptr<Built>>> cache_;
};

class CpuBackend final : public Backend {
 public:
  std::string_view name() const override { return "cpu"; }
  std::vector<Claim> partition(const ir::Graph& g, NumericMode mode) const override {
    return claims_of(g, mode).claims;
  }
  std::vector<DeclaredError> declared_error(const ir::Graph& g, NumericMode mode) const override {
    std::vector<DeclaredError> out;
    const Claims c = claims_of(g, mode);
    for (const NormSpan& s : c.norms) out.push_back(DeclaredError{s.declared, s.width});
    for (const Island& is : c.m.islands)
      for (const Fused& f : is.units)
        if (f.gelu_standard()) out.push_back(DeclaredError{f.result, onednn::kGeluDeclaredWidth});
    return out;
  }
  Expected<std::unique_ptr<PreparedGraph>> prepare(const ir::Graph& g, const std::vector<NodeSpan>& claimed,
                                                   const PrepareOptions& options) override {
    const Claims c = claims_of(g, options.mode);
    const onednn::Match& m = c.m;
    std::vector<Island> islands;
    std::vector<NormSpan> norms;
    std::vector<std::pair<bool, size_t>> order;
    for (const NodeSpan& s : claimed) {
      auto it =
          std::find_if(m.islands.begin(), m.islands.end(), [&](const Island& is) { return is.span == s; });
      if (it != m.islands.end()) {
        order.emplace_back(false, islands.size());
        islands.push_back(*it);
        continue;
      }
      auto nt = std::find_if(c.norms.begin(), c.norms.end(), [&](const NormSpan& n) { return n.span == s; });
      if (nt == c.norms.end())
        return internal_error(strfmt("cpu: claim [%u, %u) is not a matched span", s.begin, s.end));
      order.emplace_back(true, norms.size());
      norms.push_back(*nt);
    }
    try {
      return std::unique_ptr<PreparedGraph>(
          std::make_unique<CpuPrepared>(g, std::move(islands), std::move(norms), std::move(order), options));
    } catch (const dnnl::error& e) {
      return unsupported(std::string("cpu: oneDNN: ") + e.what());
    }
  }
};

}  // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace plumb::rt::cpu
