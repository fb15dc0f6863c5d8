#include "runtime/cuda/span.h"

#include <string>
#include <string_view>

#include "ir/attrs.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cuda/device.h"
#include "runtime/cuda/kernels.h"
#include "runtime/node_error.h"
#include "runtime/partition.h"

namespace plumb::rt::cuda {
namespace {

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

}  // namespace

std::unique_ptr<CompiledSpan> make_span(const ir::Graph& g, std::vector<Step> steps, int64_t scratch,
                                        int64_t guard_offset) {
  return std::make_unique<CudaSpan>(g, std::move(steps), scratch, guard_offset);
}

}  // namespace plumb::rt::cuda
