#include "runtime/cpu/ref/ref_backend.h"

namespace plumb::rt::ref {
namespace {

// The executor runs every unclaimed node on the ref kernels, so ref claims nothing: its schedule
// is all kNode (and if/while) steps, in the planner's arena layout.
class RefPrepared final : public PreparedGraph {
 public:
  Expected<CompiledOrDeclined> compile(size_t, const SpanSignature&, const Plan&) override {
    return internal_error("ref: compile called, but ref claims no span");
  }
};

class RefBackend final : public Backend {
 public:
  std::string_view name() const override { return "ref"; }
  std::vector<Claim> partition(const ir::Graph&, NumericMode) const override { return {}; }
  Expected<std::unique_ptr<PreparedGraph>> prepare(const ir::Graph&, const std::vector<NodeSpan>&,
                                                   const PrepareOptions&) override {
    return std::unique_ptr<PreparedGraph>(std::make_unique<RefPrepared>());
  }
};

}  // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<RefBackend>(); }

}  // namespace plumb::rt::ref
