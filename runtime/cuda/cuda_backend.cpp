#include "runtime/cuda/cuda_backend.h"

#include <algorithm>
#include <map>
#include <string>

#include "runtime/cuda/claims.h"
#include "runtime/cuda/device.h"
#include "runtime/cuda/span.h"
#include "runtime/cuda/step.h"
#include "runtime/plan.h"

namespace plumb::rt::cuda {
namespace {

class CudaPrepared final : public PreparedGraph {
 public:
  explicit CudaPrepared(const ir::Graph& g) : g_(g) {}

  Expected<CompiledOrDeclined> compile(size_t, const SpanSignature& sig, const Plan& plan) override {
    std::map<ir::ValueId, Slot> where;
    for (size_t k = 0; k < sig.inputs.size(); ++k)
      where[sig.inputs[k]] = Slot{Slot::kInput, static_cast<int64_t>(k)};
    for (size_t k = 0; k < sig.outputs.size(); ++k)
      where[sig.outputs[k]] = Slot{Slot::kOutput, static_cast<int64_t>(k)};
    int64_t scratch = 0;
    bool needs_guard = false;
    std::vector<Step> steps;
    for (uint32_t i = sig.span.begin; i < sig.span.end; ++i) {
      if (plan.node_skip[i]) continue;
      const ir::Node& n = g_.body.nodes[i];
      Step st;
      st.node = i;
      for (ir::ValueId v : n.inputs) {
        const ir::Type& t = plan.values[v].type;
        if (!static_tensor(t)) return declined(i, "operand shape known only at run time");
        auto it = where.find(v);
        if (it == where.end()) return declined(i, strfmt("operand %%%u has no buffer in the span", v));
        st.in.push_back(it->second);
        st.in_dims.push_back(dims_of(t));
        st.in_dt.push_back(t.dtype);
      }
      for (ir::ValueId v : n.outputs) {
        const ir::Type& t = plan.values[v].type;
        if (!static_tensor(t)) return declined(i, "result shape known only at run time");
        if (!where.count(v)) {  // read only inside the span: the backend's own, in scratch
          where[v] = Slot{Slot::kScratch, scratch};
          scratch += aligned(std::max<int64_t>(1, elements(dims_of(t)) * runtime_elem_bytes(t.dtype)));
        }
        st.out.push_back(where[v]);
      }
      const ir::Type& rt = plan.values[n.outputs[0]].type;
      st.out_dims = dims_of(rt);
      st.in_ptrs.assign(st.in.size(), nullptr);
      st.out_dt = rt.dtype;
      if (Support s = plan_step(n, st, plan); !s.yes) return declined(i, s.why_not);
      needs_guard = needs_guard || uses_cublas(g_, n);
      if (n.op == ir::Op::Gather) {
        st.flag_offset = scratch;
        scratch += kAlign;
      }
      if (n.op == ir::Op::Conv && uses_cublas(g_, n)) {
        st.col_offset = scratch;
        scratch += aligned(std::max<int64_t>(1, st.conv.channels * window_size(st.conv.spatial) *
                                                    window_out_size(st.conv.spatial) *
                                                    static_cast<int64_t>(sizeof(float))));
      }
      steps.push_back(std::move(st));
    }
    const int64_t guard_offset = scratch;
    if (needs_guard) scratch += aligned(2 * kGuardBlocks * sizeof(float)) + kAlign;
    return CompiledOrDeclined{make_span(g_, std::move(steps), scratch, guard_offset), Support::ok()};
  }

 private:
  CompiledOrDeclined declined(uint32_t node, const std::string& why) const {
    return CompiledOrDeclined{nullptr, Support::no(strfmt("cuda: node %u: ", node) + why)};
  }

  const ir::Graph& g_;
};

class CudaBackend final : public Backend {
 public:
  std::string_view name() const override { return "cuda"; }
  Allocator& allocator() override { return allocator_; }
  Status available() const override { return device_status(); }

  Expected<std::unique_ptr<Stream>> make_stream() override {
    PLUMB_RETURN_IF_ERROR(device_status());
    auto s = std::make_unique<CudaStream>();
    PLUMB_RETURN_IF_ERROR(cuda_status(cudaStreamCreate(&s->stream), "cudaStreamCreate"));
    PLUMB_RETURN_IF_ERROR(blas_status(cublasCreate(&s->blas), "cublasCreate"));
    PLUMB_RETURN_IF_ERROR(blas_status(cublasSetStream(s->blas, s->stream), "cublasSetStream"));
    // Full f32: no TF32 or other reduced-precision paths (spec/numerics.md, cuda).
    PLUMB_RETURN_IF_ERROR(blas_status(cublasSetMathMode(s->blas, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode"));
    return std::unique_ptr<Stream>(std::move(s));
  }

  std::vector<Claim> partition(const ir::Graph& g, NumericMode) const override { return claim_spans(g); }

  Expected<std::unique_ptr<PreparedGraph>> prepare(const ir::Graph& g, const std::vector<NodeSpan>&,
                                                   const PrepareOptions&) override {
    return std::unique_ptr<PreparedGraph>(std::make_unique<CudaPrepared>(g));
  }

 private:
  CudaAllocator allocator_;
};

}  // namespace

Status device_status() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return unsupported(std::string("cuda: no CUDA device: ") + cudaGetErrorString(e));
  }
  if (n == 0) return unsupported("cuda: no CUDA device: cudaGetDeviceCount found none");
  return Status::ok();
}

std::unique_ptr<Backend> make_backend() { return std::make_unique<CudaBackend>(); }

}  // namespace plumb::rt::cuda
