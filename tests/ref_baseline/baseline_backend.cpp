#include "tests/ref_baseline/baseline_backend.h"

#include <algorithm>
#include <map>
#include <string>

#include "runtime/node_error.h"
#include "runtime/partition.h"
#include "runtime/plan.h"
#include "tests/ref_baseline/baseline_kernels.h"

namespace plumb::rt::ref_baseline {
namespace {

// One claimed node under one plan: its operands found among the span's buffers by value id (a
// value read twice is one span input).
class BaselineSpan final : public CompiledSpan {
 public:
  BaselineSpan(const ir::Graph& g, const Plan& plan, const SpanSignature& sig, NumericMode mode)
      : g_(g), plan_(plan), sig_(sig), mode_(mode), preorder_(body_preorder(g)) {}

  Status run(const SpanArgs& args, Stream*) override {
    const uint32_t i = sig_.span.begin;
    if (plan_.node_skip[i]) return Status::ok();
    std::map<ir::ValueId, const RtValue*> in;
    std::map<ir::ValueId, RtValue*> out;
    for (size_t k = 0; k < sig_.inputs.size(); ++k) in[sig_.inputs[k]] = args.inputs[k];
    for (size_t k = 0; k < sig_.outputs.size(); ++k) out[sig_.outputs[k]] = args.outputs[k];
    const ir::Node& n = g_.body.nodes[i];
    NodeCall call{n, {}, {}, mode_, &g_};
    for (ir::ValueId v : n.inputs) call.inputs.push_back(in.at(v));
    for (ir::ValueId v : n.outputs) call.outputs.push_back(out.at(v));
    Status st = kernel_of(n.op)(call);
    if (!st.is_ok()) return node_error(std::move(st), n, preorder_[i]);
    return Status::ok();
  }

 private:
  const ir::Graph& g_;
  const Plan& plan_;
  SpanSignature sig_;
  NumericMode mode_;
  std::vector<int64_t> preorder_;  // for the places of errors
};

class BaselinePrepared final : public PreparedGraph {
 public:
  BaselinePrepared(const ir::Graph& g, NumericMode mode) : g_(g), mode_(mode) {}
  Expected<CompiledOrDeclined> compile(size_t, const SpanSignature& sig, const Plan& plan) override {
    const ir::Node& n = g_.body.nodes[sig.span.begin];
    for (ir::ValueId v : n.outputs)  // a result nothing reads has no buffer: ref runs the node
      if (std::find(sig.outputs.begin(), sig.outputs.end(), v) == sig.outputs.end() &&
          !plan.node_skip[sig.span.begin])
        return CompiledOrDeclined{nullptr, Support::no("baseline: a result of the node is read by nothing")};
    return CompiledOrDeclined{std::make_unique<BaselineSpan>(g_, plan, sig, mode_), Support::ok()};
  }

 private:
  const ir::Graph& g_;
  NumericMode mode_;
};

class BaselineBackend final : public Backend {
 public:
  std::string_view name() const override { return "baseline"; }
  std::vector<Claim> partition(const ir::Graph& g, NumericMode) const override {
    std::vector<Claim> claims;
    for (uint32_t i = 0; i < g.body.nodes.size(); ++i)
      if (kernel_of(g.body.nodes[i].op)) claims.push_back(Claim{NodeSpan{i, i + 1}, Support::ok()});
    return claims;
  }
  Expected<std::unique_ptr<PreparedGraph>> prepare(const ir::Graph& g, const std::vector<NodeSpan>&,
                                                   const PrepareOptions& options) override {
    return std::unique_ptr<PreparedGraph>(std::make_unique<BaselinePrepared>(g, options.mode));
  }
};

}  // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<BaselineBackend>(); }

}  // namespace plumb::rt::ref_baseline
