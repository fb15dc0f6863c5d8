#include "runtime/cpu/ref/ref_backend.h"

#include "runtime/cpu/ref/kernel.h"
#include "runtime/executor.h"
#include "runtime/plan.h"

namespace plumb::rt::ref {
namespace {

class RefRunner final : public NodeRunner {
 public:
  Status run_node(KernelCtx& cx) override { return run_kernel(cx); }
};

class RefProgram final : public Program {
 public:
  RefProgram(const ir::Graph& g, const Plan& plan, const CompileOptions& options)
      : executor_(g, plan, runner_, options) {}
  Status run(BufferTable& buffers, Stream* /*stream*/) override { return executor_.run(buffers); }

 private:
  RefRunner runner_;
  Executor executor_;
};

class RefBackend final : public Backend {
 public:
  std::string_view name() const override { return "ref"; }
  Support supports(const ir::Node& /*node*/) const override { return Support::ok(); }
  Expected<std::unique_ptr<Program>> compile(const ir::Graph& g, const Plan& plan,
                                             const CompileOptions& options) override {
    return std::unique_ptr<Program>(std::make_unique<RefProgram>(g, plan, options));
  }
};

}  // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<RefBackend>(); }

}  // namespace plumb::rt::ref
