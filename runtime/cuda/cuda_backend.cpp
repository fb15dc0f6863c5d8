#include "runtime/cuda/cuda_backend.h"

#include <algorithm>
#include <map>
#include <string>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "ir/attrs.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cuda/claims.h"
#include "runtime/cuda/kernels.h"
#include "runtime/cuda/memory_pool.h"
#include "runtime/node_error.h"
#include "runtime/partition.h"
#include "runtime/plan.h"

namespace plumb::rt::cuda {
namespace {

constexpr int64_t kAlign = 256;  // cudaMalloc's alignment; every scratch slot keeps it
int64_t aligned(int64_t b) { return (b + kAlign - 1) / kAlign * kAlign; }

// The message is made only for an error: a span's run allocates nothing on the host.
Status cuda_status(cudaError_t e, std::string_view what) {
  if (e == cudaSuccess) return Status::ok();
  return runtime_error("", "cuda: " + std::string(what) + ": " + cudaGetErrorString(e));
}

Status blas_status(cublasStatus_t e, std::string_view what) {
  if (e == CUBLAS_STATUS_SUCCESS) return Status::ok();
  return runtime_error("", "cuda: " + std::string(what) + ": " + cublasGetStatusString(e));
}

class DeviceMemory final : public RawMemory {
 public:
  Expected<void*> alloc(int64_t bytes) override {
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, static_cast<size_t>(bytes));
    if (e != cudaSuccess) {
      (void)cudaGetLastError();  // an out-of-memory is not sticky: clear it for the retry
      return runtime_error("", strfmt("cuda: cannot allocate %lld bytes of device memory: %s",
                                      static_cast<long long>(bytes), cudaGetErrorString(e)));
    }
    return p;
  }
  void free(void* p) override { (void)cudaFree(p); }
};

// The pool and its raw memory, shared by the allocator and every block it handed out (a block
// may outlive the backend: a session's arena is dropped after it).
struct PoolState {
  DeviceMemory raw;
  CachingPool pool{raw};
};

class CudaStream final : public Stream {
 public:
  ~CudaStream() override {
    if (blas) cublasDestroy(blas);
    if (stream) {
      (void)cudaStreamSynchronize(stream);
      (void)cudaStreamDestroy(stream);
    }
  }
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
};

cudaStream_t stream_of(Stream* s) {
  auto* cs = dynamic_cast<CudaStream*>(s);
  return cs ? cs->stream : nullptr;  // null: the legacy default stream (constants, before a session has one)
}

class CudaAllocator final : public Allocator {
 public:
  Device device() const override { return Device::kDevice; }
  Expected<std::shared_ptr<uint8_t>> allocate(int64_t bytes) override {
    PLUMB_ASSIGN_OR_RETURN(void* p, state_->pool.take(bytes));
    // Zero-filled, as the interface promises; on the legacy default stream, which waits for the
    // sessions' (blocking) streams, so a reused block is not cleared under a running kernel.
    const cudaError_t e = cudaMemset(p, 0, static_cast<size_t>(bytes));
    if (e != cudaSuccess) {
      state_->pool.give_back(p, bytes);
      return cuda_status(e, "cudaMemset");
    }
    std::shared_ptr<PoolState> state = state_;
    return std::shared_ptr<uint8_t>(static_cast<uint8_t*>(p),
                                    [state, bytes](uint8_t* q) { state->pool.give_back(q, bytes); });
  }
  Status copy_from_host(const void* host_src, void* dst, int64_t bytes, Stream* stream) override {
    if (bytes <= 0) return Status::ok();
    // From pageable memory the call returns once the source has been staged: the caller may
    // free it at once.
    return cuda_status(
        cudaMemcpyAsync(dst, host_src, static_cast<size_t>(bytes), cudaMemcpyHostToDevice, stream_of(stream)),
        "copy to the device");
  }
  Status copy_to_host(const void* src, void* host_dst, int64_t bytes, Stream* stream) override {
    if (bytes <= 0) return Status::ok();
    cudaStream_t s = stream_of(stream);
    PLUMB_RETURN_IF_ERROR(
        cuda_status(cudaMemcpyAsync(host_dst, src, static_cast<size_t>(bytes), cudaMemcpyDeviceToHost, s),
                    "copy to the host"));
    // The host reads it next; an error of an earlier kernel on the stream surfaces here.
    return cuda_status(cudaStreamSynchronize(s), "a kernel before the copy to the host");
  }
  PoolStats stats() const { return state_->pool.stats(); }

 private:
  std::shared_ptr<PoolState> state_ = std::make_shared<PoolState>();
};

std::vector<int64_t> dims_of(const ir::Type& t) {
  std::vector<int64_t> d;
  for (const ir::Dim& x : t.shape) d.push_back(x.size);
  return d;
}

bool static_tensor(const ir::Type& t) {
  if (!t.is_tensor() || !t.ranked) return false;
  for (const ir::Dim& d : t.shape)
    if (!d.is_static()) return false;
  return true;
}

int64_t elements(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

View row_major_view(const std::vector<int64_t>& d) {
  View v;
  v.rank = static_cast<int>(d.size());
  for (size_t k = 0; k < d.size(); ++k) v.size[k] = d[k];
  set_row_major(v);
  return v;
}

// Where a value of the span lives during a run.
struct Slot {
  enum Kind { kInput, kOutput, kScratch } kind = kScratch;
  int64_t index = 0;  // kInput / kOutput: position in SpanArgs; kScratch: byte offset
};

// One node of a compiled span, its shapes resolved.
struct Step {
  uint32_t node = 0;
  std::vector<Slot> in, out;
  std::vector<std::vector<int64_t>> in_dims;
  std::vector<ir::DType> in_dt;
  std::vector<int64_t> out_dims;
  ir::DType out_dt = ir::DType::F32;
  ReducePlan reduce;
  View src_view;                             // transpose, broadcast
  int64_t batch = 0, M = 0, N = 0, K = 0;    // matmul
  ConvShape conv;                            // conv
  int64_t col_offset = 0;                    // conv f32: its im2col matrix in scratch
  Window window;                             // pool
  int64_t src_offset = 0;                    // slice: its first element in the operand
  PadSpec pad;                               // pad
  int64_t outer = 0, extent = 0, inner = 0;  // gather axis: operand [outer, extent, inner]
  int64_t flag_offset = 0;                   // gather: its gather.R1 flag in scratch
  std::vector<const void*> in_ptrs;          // the operands' buffers of the current run (sized at compile)
};

// The window of one op from its attributes and resolved shapes.
Window make_window(const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                   const std::vector<int64_t>& win, const std::vector<int64_t>& strides,
                   const std::vector<int64_t>& dil, const std::vector<int64_t>* lhs_dil,
                   const std::vector<int64_t>& pads_low) {
  Window w;
  w.rank = static_cast<int>(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    w.in[d] = in[d];
    w.out[d] = out[d];
    w.win[d] = win[d];
    w.stride[d] = strides[d];
    w.dil[d] = dil[d];
    w.lhs_dil[d] = lhs_dil ? (*lhs_dil)[d] : 1;
    w.pad_lo[d] = pads_low[d];
  }
  return w;
}

class CudaSpan final : public CompiledSpan {
 public:
  CudaSpan(const ir::Graph& g, std::vector<Step> steps, int64_t scratch, int64_t guard_offset)
      : g_(g),
        steps_(std::move(steps)),
        scratch_(scratch),
        guard_offset_(guard_offset),
        preorder_(body_preorder(g)) {}
  int64_t scratch_bytes() const override { return scratch_; }

  Status run(const SpanArgs& args, Stream* stream) override {
    auto* cs = dynamic_cast<CudaStream*>(stream);
    if (!cs) return internal_error("cuda: a span ran without its session's CUDA stream");
    for (Step& st : steps_) {
      Status s = run_step(st, args, *cs);
      if (!s.is_ok()) return node_error(std::move(s), g_.body.nodes[st.node], preorder_[st.node]);
    }
    return Status::ok();
  }

 private:
  Expected<void*> ptr(const Slot& s, const SpanArgs& args) const {
    if (s.kind == Slot::kScratch) return static_cast<void*>(args.scratch + s.index);
    const RtValue* v = s.kind == Slot::kInput ? args.inputs[s.index] : args.outputs[s.index];
    if (!v || !v->is_tensor() || v->tensor().device != Device::kDevice)
      return internal_error("cuda: a span's buffer is not in device memory");
    return v->tensor().data;
  }

  Status run_step(Step& st, const SpanArgs& args, CudaStream& cs) const {
    const ir::Node& n = g_.body.nodes[st.node];
    std::vector<const void*>& in = st.in_ptrs;
    for (size_t k = 0; k < st.in.size(); ++k) {
      PLUMB_ASSIGN_OR_RETURN(void* p, ptr(st.in[k], args));
      in[k] = p;
    }
    PLUMB_ASSIGN_OR_RETURN(void* out, ptr(st.out[0], args));
    const int64_t n_out = elements(st.out_dims);
    cudaStream_t s = cs.stream;
    const std::string_view what = ir::op_name(n.op);
    switch (n.op) {
      case ir::Op::Unary:
        return cuda_status(launch_unary(ir::attrs<ir::Op::Unary>(n).kind, st.in_dt[0], in[0], out, n_out, s),
                           what);
      case ir::Op::Binary:
        return cuda_status(
            launch_binary(ir::attrs<ir::Op::Binary>(n).kind, st.in_dt[0], in[0], in[1], out, n_out, s), what);
      case ir::Op::Compare:
        return cuda_status(
            launch_compare(ir::attrs<ir::Op::Compare>(n).kind, st.in_dt[0], in[0], in[1], out, n_out, s),
            what);
      case ir::Op::Select:
        return cuda_status(launch_select(static_cast<int>(runtime_elem_bytes(st.out_dt)), in[0], in[1], in[2],
                                         out, n_out, s),
                           what);
      case ir::Op::Cast: return cuda_status(launch_cast(st.in_dt[0], st.out_dt, in[0], out, n_out, s), what);
      case ir::Op::Reduce:
        return cuda_status(
            launch_reduce(ir::attrs<ir::Op::Reduce>(n).kind, st.in_dt[0], in[0], out, st.reduce, s), what);
      case ir::Op::Reshape:
        if (n_out == 0) return Status::ok();
        return cuda_status(
            cudaMemcpyAsync(out, in[0], static_cast<size_t>(n_out * runtime_elem_bytes(st.out_dt)),
                            cudaMemcpyDeviceToDevice, s),
            what);
      case ir::Op::Transpose:
      case ir::Op::Broadcast:
        return cuda_status(launch_strided_copy(static_cast<int>(runtime_elem_bytes(st.out_dt)), in[0],
                                               st.src_view, out, 0, row_major_view(st.out_dims), s),
                           what);
      case ir::Op::Concat: return run_concat(n, st, in, out, s);
      case ir::Op::Gather: return run_gather(n, st, in, out, args, s);
      case ir::Op::Slice: {
        const int64_t w = runtime_elem_bytes(st.out_dt);
        return cuda_status(
            launch_strided_copy(static_cast<int>(w), static_cast<const uint8_t*>(in[0]) + st.src_offset * w,
                                st.src_view, out, 0, row_major_view(st.out_dims), s),
            what);
      }
      case ir::Op::Pad:
        return cuda_status(
            launch_pad(static_cast<int>(runtime_elem_bytes(st.out_dt)), in[0], row_major_view(st.in_dims[0]),
                       out, row_major_view(st.out_dims), st.pad, in[3], s),
            what);
      case ir::Op::MatMul: return run_matmul(st, in, out, args, cs);
      case ir::Op::Conv: return run_conv(st, in, out, args, cs);
      case ir::Op::Pool: {
        int64_t* indices = nullptr;
        if (st.out.size() > 1) {
          PLUMB_ASSIGN_OR_RETURN(void* p, ptr(st.out[1], args));
          indices = static_cast<int64_t*>(p);
        }
        return cuda_status(launch_pool(ir::attrs<ir::Op::Pool>(n).kind == ir::PoolKind::Max, st.in_dt[0],
                                       in[0], out, indices, st.window, s),
                           what);
      }
      default: return internal_error("cuda: " + std::string(what) + " was compiled but has no kernel");
    }
  }

  Status run_concat(const ir::Node& n, const Step& st, const std::vector<const void*>& in, void* out,
                    cudaStream_t s) const {
    const int64_t axis = ir::attrs<ir::Op::Concat>(n).axis;
    const View whole = row_major_view(st.out_dims);
    int64_t offset = 0;
    for (size_t k = 0; k < in.size(); ++k) {
      View dst = whole;
      dst.size[axis] = st.in_dims[k][static_cast<size_t>(axis)];
      PLUMB_RETURN_IF_ERROR(cuda_status(
          launch_strided_copy(static_cast<int>(runtime_elem_bytes(st.out_dt)), in[k],
                              row_major_view(st.in_dims[k]), out, offset * whole.stride[axis], dst, s),
          "concat"));
      offset += dst.size[axis];
    }
    return Status::ok();
  }

  Status run_matmul(const Step& st, const std::vector<const void*>& in, void* out, const SpanArgs& args,
                    CudaStream& cs) const {
    const int64_t total = st.batch * st.M * st.N;
    if (total == 0) return Status::ok();
    const bool blas = st.in_dt[0] == ir::DType::F32 && st.K > 0;
    if (!blas)
      return cuda_status(launch_matmul_plain(st.in_dt[0], st.in_dt[1], st.out_dt, in[0], in[1], out, st.batch,
                                             st.M, st.N, st.K, nullptr, cs.stream),
                         "matmul");
    // f32: the guard's flag, cuBLAS (full f32, pedantic math: no TF32), -0 -> +0, and the spec's
    // loop over the same result when the guard flagged a possible overflow or a special operand.
    auto* partial = reinterpret_cast<float*>(args.scratch + guard_offset_);
    auto* flag =
        reinterpret_cast<int*>(args.scratch + guard_offset_ + aligned(2 * kGuardBlocks * sizeof(float)));
    const auto* a = static_cast<const float*>(in[0]);
    const auto* b = static_cast<const float*>(in[1]);
    PLUMB_RETURN_IF_ERROR(
        cuda_status(launch_matmul_guard(a, st.batch * st.M * st.K, b, st.batch * st.K * st.N, st.K, partial,
                                        flag, cs.stream),
                    "matmul guard"));
    const GemmArgs g = row_major_gemm(st.batch, st.M, st.N, st.K);
    const float one = 1.0f, zero = 0.0f;
    PLUMB_RETURN_IF_ERROR(
        blas_status(cublasSgemmStridedBatched_64(cs.blas, CUBLAS_OP_N, CUBLAS_OP_N, g.m, g.n, g.k, &one, b,
                                                 g.lda, g.stride_a, a, g.ldb, g.stride_b, &zero,
                                                 static_cast<float*>(out), g.ldc, g.stride_c, g.batch),
                    "cublasSgemmStridedBatched"));
    PLUMB_RETURN_IF_ERROR(
        cuda_status(launch_plus_zero(static_cast<float*>(out), total, cs.stream), "matmul"));
    return cuda_status(launch_matmul_plain(ir::DType::F32, ir::DType::F32, ir::DType::F32, a, b, out,
                                           st.batch, st.M, st.N, st.K, flag, cs.stream),
                       "matmul");
  }

  // gather axis, then one read of its gather.R1 flag (a host sync); when set, ref's kernel runs
  // on host copies of the operands to give ref's error, word for word.
  Status run_gather(const ir::Node& n, const Step& st, const std::vector<const void*>& in, void* out,
                    const SpanArgs& args, cudaStream_t s) const {
    auto* flag = reinterpret_cast<int*>(args.scratch + st.flag_offset);
    const int64_t J = elements(st.in_dims[1]);
    PLUMB_RETURN_IF_ERROR(cuda_status(
        launch_gather_axis(static_cast<int>(runtime_elem_bytes(st.out_dt)), in[0], in[1],
                           st.in_dt[1] == ir::DType::I64, out, st.outer, st.extent, J, st.inner, flag, s),
        "gather"));
    int host_flag = 0;
    PLUMB_RETURN_IF_ERROR(cuda_status(
        cudaMemcpyAsync(&host_flag, flag, sizeof(int), cudaMemcpyDeviceToHost, s), "gather flag"));
    PLUMB_RETURN_IF_ERROR(cuda_status(cudaStreamSynchronize(s), "gather"));
    if (!host_flag) return Status::ok();
    std::vector<RtValue> host;
    for (size_t k = 0; k < 2; ++k) {
      Tensor t = Tensor::allocate(st.in_dt[k], st.in_dims[k]);
      PLUMB_RETURN_IF_ERROR(cuda_status(
          cudaMemcpyAsync(t.data, in[k], static_cast<size_t>(t.nbytes()), cudaMemcpyDeviceToHost, s),
          "gather"));
      host.emplace_back(std::move(t));
    }
    PLUMB_RETURN_IF_ERROR(cuda_status(cudaStreamSynchronize(s), "gather"));
    RtValue result(Tensor::allocate(st.out_dt, st.out_dims));
    NodeCall call{n, {&host[0], &host[1]}, {&result}, NumericMode::kNative, &g_};
    Status err = ref::run_kernel(call);
    if (err.is_ok()) return internal_error("cuda: gather flagged an index that ref's gather accepts");
    return err;
  }

  // conv f32: per batch element, im2col into the span's scratch and one strided-batched cuBLAS
  // product over the groups; then, as for matmul, -0 -> +0 and the spec's loop where the guard
  // flagged (an inf or NaN operand, also one the padding would skip, or a possible overflow).
  Status run_conv(const Step& st, const std::vector<const void*>& in, void* out, const SpanArgs& args,
                  CudaStream& cs) const {
    const ConvShape& c = st.conv;
    const int64_t E = window_out_size(c.spatial), Kn = window_size(c.spatial), D = window_in_size(c.spatial);
    const int64_t Cg = c.channels / c.groups, Og = c.outputs / c.groups;
    const int64_t total = c.batch * c.outputs * E;
    if (total == 0) return Status::ok();
    if (st.in_dt[0] != ir::DType::F32 || Cg * Kn == 0)
      return cuda_status(
          launch_conv_plain(st.in_dt[0], st.in_dt[1], st.out_dt, in[0], in[1], out, c, nullptr, cs.stream),
          "conv");
    auto* partial = reinterpret_cast<float*>(args.scratch + guard_offset_);
    auto* flag =
        reinterpret_cast<int*>(args.scratch + guard_offset_ + aligned(2 * kGuardBlocks * sizeof(float)));
    auto* col = reinterpret_cast<float*>(args.scratch + st.col_offset);
    const auto* x = static_cast<const float*>(in[0]);
    const auto* w = static_cast<const float*>(in[1]);
    auto* y = static_cast<float*>(out);
    PLUMB_RETURN_IF_ERROR(cuda_status(launch_matmul_guard(x, c.batch * c.channels * D, w, c.outputs * Cg * Kn,
                                                          Cg * Kn, partial, flag, cs.stream),
                                      "conv guard"));
    const GemmArgs g = row_major_gemm(c.groups, Og, E, Cg * Kn);
    const float one = 1.0f, zero = 0.0f;
    for (int64_t b = 0; b < c.batch; ++b) {
      PLUMB_RETURN_IF_ERROR(cuda_status(launch_im2col(x, col, c, b, cs.stream), "conv im2col"));
      PLUMB_RETURN_IF_ERROR(
          blas_status(cublasSgemmStridedBatched_64(cs.blas, CUBLAS_OP_N, CUBLAS_OP_N, g.m, g.n, g.k, &one,
                                                   col, g.lda, g.stride_a, w, g.ldb, g.stride_b, &zero,
                                                   y + b * c.outputs * E, g.ldc, g.stride_c, g.batch),
                      "cublasSgemmStridedBatched"));
    }
    PLUMB_RETURN_IF_ERROR(cuda_status(launch_plus_zero(y, total, cs.stream), "conv"));
    return cuda_status(
        launch_conv_plain(ir::DType::F32, ir::DType::F32, ir::DType::F32, x, w, out, c, flag, cs.stream),
        "conv");
  }

  const ir::Graph& g_;
  std::vector<Step> steps_;
  int64_t scratch_ = 0;
  int64_t guard_offset_ = 0;
  std::vector<int64_t> preorder_;
};

// The plan's known i64[n] value %v (a constant or a folded value), or null.
const Tensor* known_i64(const Plan& plan, ir::ValueId v, size_t n) {
  if (v >= plan.known.size() || !plan.known[v].is_tensor()) return nullptr;
  const Tensor& t = plan.known[v].tensor();
  if (t.dtype != ir::DType::I64 || t.rank() != 1 || t.shape[0] != static_cast<int64_t>(n) ||
      (n > 0 && !t.data))
    return nullptr;
  return &t;
}

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
      if (Support s = shape_step(n, st, plan); !s.yes) return declined(i, s.why_not);
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
    return CompiledOrDeclined{std::make_unique<CudaSpan>(g_, std::move(steps), scratch, guard_offset),
                              Support::ok()};
  }

 private:
  CompiledOrDeclined declined(uint32_t node, const std::string& why) const {
    return CompiledOrDeclined{nullptr, Support::no(strfmt("cuda: node %u: ", node) + why)};
  }

  // The per-op planning of a step from its resolved shapes.
  Support shape_step(const ir::Node& n, Step& st, const Plan& plan) const {
    switch (n.op) {
      case ir::Op::Reduce: {
        const auto& axes = ir::attrs<ir::Op::Reduce>(n).axes;
        st.reduce = plan_reduce(static_cast<int>(st.in_dims[0].size()), st.in_dims[0].data(),
                                static_cast<int>(axes.size()), axes.data());
        return Support::ok();
      }
      case ir::Op::Transpose: {
        const auto& perm = ir::attrs<ir::Op::Transpose>(n).perm;
        st.src_view =
            transpose_view(static_cast<int>(st.in_dims[0].size()), st.in_dims[0].data(), perm.data());
        return Support::ok();
      }
      case ir::Op::Broadcast: {
        const auto& dims = ir::attrs<ir::Op::Broadcast>(n).dims;
        for (size_t k = 0; k < dims.size(); ++k)
          if (st.in_dims[0][k] != 1 && st.in_dims[0][k] != st.out_dims[static_cast<size_t>(dims[k])])
            return Support::no(
                "broadcast of a dim that is neither 1 nor the result's (broadcast.R2, ref reports it)");
        st.src_view = broadcast_view(static_cast<int>(st.in_dims[0].size()), st.in_dims[0].data(),
                                     dims.data(), static_cast<int>(st.out_dims.size()), st.out_dims.data());
        return Support::ok();
      }
      case ir::Op::Slice: {
        // start, size, stride: constants (claims.cpp), so the view and slice.R1-R3 are settled
        // here; a slice that breaks them is declined and ref reports it.
        std::vector<const int64_t*> p;
        for (size_t k = 1; k < 4; ++k) {
          const Tensor* t = known_i64(plan, n.inputs[k], st.in_dims[0].size());
          if (!t) return Support::no("slice bounds known only at run time");
          p.push_back(t->as<int64_t>());
        }
        const View in = row_major_view(st.in_dims[0]);
        View v;
        v.rank = in.rank;
        st.src_offset = 0;
        bool empty = false;
        for (int d = 0; d < in.rank; ++d) empty = empty || p[1][d] == 0;
        for (int d = 0; d < in.rank; ++d) {
          const int64_t start = p[0][d], size = p[1][d], stride = p[2][d], len = in.size[d];
          if (stride == 0 || size < 0)
            return Support::no("slice stride 0 or negative size (slice.R1/R2, ref reports it)");
          if (size != st.out_dims[static_cast<size_t>(d)])
            return Support::no("slice size differs from the planned result");
          if (!empty) {
            const __int128 last = static_cast<__int128>(start) + static_cast<__int128>(size - 1) * stride;
            if (start < 0 || start >= len || last < 0 || last >= len)
              return Support::no("slice out of range (slice.R3, ref reports it)");
          }
          v.size[d] = size;
          v.stride[d] = stride * in.stride[d];
          st.src_offset += empty ? 0 : start * in.stride[d];
        }
        st.src_view = v;
        return Support::ok();
      }
      case ir::Op::Gather: {
        const auto axis = static_cast<size_t>(ir::attrs<ir::Op::Gather>(n).axis);
        const auto& x = st.in_dims[0];
        st.outer = 1;
        st.inner = 1;
        for (size_t d = 0; d < axis; ++d) st.outer *= x[d];
        for (size_t d = axis + 1; d < x.size(); ++d) st.inner *= x[d];
        st.extent = x[axis];
        return Support::ok();
      }
      case ir::Op::Pad: {
        const size_t r = st.in_dims[0].size();
        const Tensor* lo = known_i64(plan, n.inputs[1], r);
        const Tensor* hi = known_i64(plan, n.inputs[2], r);
        if (!lo || !hi) return Support::no("pad amounts known only at run time");
        st.pad.mode = ir::attrs<ir::Op::Pad>(n).mode;
        for (size_t d = 0; d < r; ++d) {
          const int64_t l = lo->as<int64_t>()[d], h = hi->as<int64_t>()[d], len = st.in_dims[0][d];
          const bool padded = l > 0 || h > 0;
          if (l < 0 || h < 0 || len + l + h != st.out_dims[d])
            return Support::no("pad amounts negative or not the planned result (pad.R1, ref reports it)");
          if (st.pad.mode == ir::PadMode::Reflect && padded && (l >= len || h >= len))
            return Support::no("reflect pad as large as the dim (pad.R2, ref reports it)");
          if ((st.pad.mode == ir::PadMode::Edge || st.pad.mode == ir::PadMode::Wrap) && padded && len == 0)
            return Support::no("edge/wrap pad of an empty dim (pad.R3, ref reports it)");
          st.pad.low[d] = l;
        }
        return Support::ok();
      }
      case ir::Op::Reshape:
        if (elements(st.in_dims[0]) != elements(st.out_dims))
          return Support::no("reshape changes the element count");
        return Support::ok();
      case ir::Op::Concat: {
        const size_t axis = static_cast<size_t>(ir::attrs<ir::Op::Concat>(n).axis);
        int64_t along = 0;
        for (const auto& d : st.in_dims) {
          for (size_t k = 0; k < d.size(); ++k)
            if (k != axis && d[k] != st.out_dims[k])
              return Support::no("concat operands differ off the axis (concat.R1, ref reports it)");
          along += d[axis];
        }
        if (along != st.out_dims[axis]) return Support::no("concat operands do not fill the result");
        return Support::ok();
      }
      case ir::Op::MatMul: {
        const auto& a = st.in_dims[0];
        const auto& b = st.in_dims[1];
        const size_t r = a.size();
        if (b.size() != r || r < 2) return Support::no("matmul operands of different ranks");
        st.batch = 1;
        for (size_t k = 0; k + 2 < r; ++k) {
          if (a[k] != b[k]) return Support::no("matmul batch dims differ at run time");
          st.batch *= a[k];
        }
        st.M = a[r - 2];
        st.K = a[r - 1];
        st.N = b[r - 1];
        if (b[r - 2] != st.K) return Support::no("matmul contraction dims differ at run time");
        return Support::ok();
      }
      case ir::Op::Conv: {
        const auto& a = ir::attrs<ir::Op::Conv>(n);
        const auto& x = st.in_dims[0];
        const auto& w = st.in_dims[1];
        const std::vector<int64_t> D(x.begin() + 2, x.end()), K(w.begin() + 2, w.end()),
            E(st.out_dims.begin() + 2, st.out_dims.end());
        st.conv.batch = x[0];
        st.conv.channels = x[1];
        st.conv.outputs = w[0];
        st.conv.groups = a.groups;
        if (a.groups < 1 || x[1] % a.groups != 0 || w[0] % a.groups != 0 || w[1] * a.groups != x[1])
          return Support::no("conv groups do not divide the channels at run time");
        st.conv.spatial = make_window(D, E, K, a.strides, a.dilations, &a.lhs_dilations, a.pads_low);
        return Support::ok();
      }
      case ir::Op::Pool: {
        const auto& a = ir::attrs<ir::Op::Pool>(n);
        st.window =
            make_window(st.in_dims[0], st.out_dims, a.window, a.strides, a.dilations, nullptr, a.pads_low);
        return Support::ok();
      }
      default: {
        // Elementwise: every operand has the result's shape (no implicit broadcasting).
        for (const auto& d : st.in_dims)
          if (d != st.out_dims) return Support::no("elementwise operand shape differs from the result's");
        return Support::ok();
      }
    }
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
