#include "tests/hunt/wrong_backend.h"

#include <algorithm>
#include <map>

#include "ir/attrs.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/plan.h"

namespace plumb::hunt::testing {

namespace {

bool is_tanh(const ir::Node& n) {
  return n.op == ir::Op::Unary && ir::attrs<ir::Op::Unary>(n).kind == ir::UnaryKind::Tanh;
}

class WrongSpan final : public rt::CompiledSpan {
 public:
  WrongSpan(const ir::Graph& g, const rt::Plan& plan, const rt::SpanSignature& sig, rt::NumericMode mode)
      : g_(g), plan_(plan), sig_(sig), mode_(mode) {}

  Status run(const rt::SpanArgs& args, rt::Stream*) override {
    const uint32_t i = sig_.span.begin;
    if (plan_.node_skip[i]) return Status::ok();
    std::map<ir::ValueId, const rt::RtValue*> in;
    std::map<ir::ValueId, rt::RtValue*> out;
    for (size_t k = 0; k < sig_.inputs.size(); ++k) in[sig_.inputs[k]] = args.inputs[k];
    for (size_t k = 0; k < sig_.outputs.size(); ++k) out[sig_.outputs[k]] = args.outputs[k];
    const ir::Node& n = g_.body.nodes[i];
    rt::NodeCall call{n, {}, {}, mode_, &g_};
    for (ir::ValueId v : n.inputs) call.inputs.push_back(in.at(v));
    for (ir::ValueId v : n.outputs) call.outputs.push_back(out.at(v));
    PLUMB_RETURN_IF_ERROR(rt::ref::run_kernel(call));
    rt::Tensor& t = call.outputs[0]->tensor();
    if (t.dtype == ir::DType::F32)
      for (int64_t k = 0; k < t.numel(); ++k) t.as<float>()[k] += 0.25f;
    if (t.dtype == ir::DType::F64)
      for (int64_t k = 0; k < t.numel(); ++k) t.as<double>()[k] += 0.25;
    return Status::ok();
  }

 private:
  const ir::Graph& g_;
  const rt::Plan& plan_;
  rt::SpanSignature sig_;
  rt::NumericMode mode_;
};

class WrongPrepared final : public rt::PreparedGraph {
 public:
  WrongPrepared(const ir::Graph& g, rt::NumericMode mode) : g_(g), mode_(mode) {}
  Expected<rt::CompiledOrDeclined> compile(size_t, const rt::SpanSignature& sig,
                                           const rt::Plan& plan) override {
    const ir::Node& n = g_.body.nodes[sig.span.begin];
    for (ir::ValueId v : n.outputs)
      if (std::find(sig.outputs.begin(), sig.outputs.end(), v) == sig.outputs.end() &&
          !plan.node_skip[sig.span.begin])
        return rt::CompiledOrDeclined{nullptr, rt::Support::no("wrong_tanh: a result is read by nothing")};
    return rt::CompiledOrDeclined{std::make_unique<WrongSpan>(g_, plan, sig, mode_), rt::Support::ok()};
  }

 private:
  const ir::Graph& g_;
  rt::NumericMode mode_;
};

class WrongBackend final : public rt::Backend {
 public:
  std::string_view name() const override { return "wrong_tanh"; }
  std::vector<rt::Claim> partition(const ir::Graph& g, rt::NumericMode) const override {
    std::vector<rt::Claim> claims;
    for (uint32_t i = 0; i < g.body.nodes.size(); ++i)
      if (is_tanh(g.body.nodes[i])) claims.push_back(rt::Claim{rt::NodeSpan{i, i + 1}, rt::Support::ok()});
    return claims;
  }
  Expected<std::unique_ptr<rt::PreparedGraph>> prepare(const ir::Graph& g, const std::vector<rt::NodeSpan>&,
                                                       const rt::PrepareOptions& options) override {
    return std::unique_ptr<rt::PreparedGraph>(std::make_unique<WrongPrepared>(g, options.mode));
  }
};

std::unique_ptr<rt::Backend> make_wrong() { return std::make_unique<WrongBackend>(); }

}  // namespace

rt::BackendEntry wrong_tanh_backend() { return rt::BackendEntry{"wrong_tanh", make_wrong}; }

}  // namespace plumb::hunt::testing
