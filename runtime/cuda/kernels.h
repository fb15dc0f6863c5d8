// The cuda backend's kernels (one .cu file per op family), as the host code calls them. Operands
// are dense row-major device buffers unless a View says otherwise; every launch goes on `stream`
// and returns the launch's error (cudaSuccess when it was queued). Which (kind, dtype) pairs a
// launch takes is decided by claims.cpp before any launch: a launch given another one returns
// cudaErrorInvalidValue rather than guessing.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "ir/dtype.h"
#include "ir/op.h"
#include "runtime/cuda/index_math.h"

namespace plumb::rt::cuda {

// elementwise.cu: y[i] = f(x[i]) / f(a[i], b[i]) over n elements, in the dtype's compute type.
cudaError_t launch_unary(ir::UnaryKind kind, ir::DType dt, const void* x, void* y, int64_t n, cudaStream_t s);
cudaError_t launch_binary(ir::BinaryKind kind, ir::DType dt, const void* a, const void* b, void* y, int64_t n,
                          cudaStream_t s);
cudaError_t launch_compare(ir::CompareKind kind, ir::DType dt, const void* a, const void* b, void* y,
                           int64_t n, cudaStream_t s);
// y[i] = c[i] ? a[i] : b[i] for elements of `elem_bytes` bytes (1, 2, 4 or 8): a copy, any dtype.
cudaError_t launch_select(int elem_bytes, const void* c, const void* a, const void* b, void* y, int64_t n,
                          cudaStream_t s);
// cast.cu
cudaError_t launch_cast(ir::DType from, ir::DType to, const void* x, void* y, int64_t n, cudaStream_t s);

// reduce.cu: one thread per result element, the reduced elements in row-major order.
cudaError_t launch_reduce(ir::ReduceKind kind, ir::DType dt, const void* x, void* y, const ReducePlan& plan,
                          cudaStream_t s);

// layout.cu: dst[dst_offset + offset_of(dst_view, i)] = src[offset_of(src_view, i)] for the
// numel(src_view) positions i (src_view and dst_view have the same sizes): transpose, broadcast,
// reshape, concat are this copy with different views.
cudaError_t launch_strided_copy(int elem_bytes, const void* src, const View& src_view, void* dst,
                                int64_t dst_offset, const View& dst_view, cudaStream_t s);

// layout.cu: pad with its amounts and mode resolved (in: the operand's row-major view, out: the
// result's); `value` is the device scalar read in constant mode.
struct PadSpec {
  ir::PadMode mode = ir::PadMode::Constant;
  int64_t low[kMaxRank] = {};
};
cudaError_t launch_pad(int elem_bytes, const void* src, const View& in, void* dst, const View& out,
                       const PadSpec& p, const void* value, cudaStream_t s);

// gather.cu: gather kind axis over operand [outer, extent, inner] with `num_indices` i32/i64
// indices; *flag (device memory) becomes 1 when an index is outside [0, extent) (gather.R1).
cudaError_t launch_gather_axis(int elem_bytes, const void* x, const void* indices, bool indices_i64, void* y,
                               int64_t outer, int64_t extent, int64_t num_indices, int64_t inner, int* flag,
                               cudaStream_t s);

// matmul.cu: the spec's matmul (one thread per result element, k ascending, products rounded
// then summed, no FMA) for the operand/result dtypes of spec/ops/matmul.md that cuBLAS does not
// take here. When `only_if` is not null the kernel does nothing unless *only_if != 0 (a device
// flag: the f32 overflow guard below).
cudaError_t launch_matmul_plain(ir::DType lhs, ir::DType rhs, ir::DType to, const void* a, const void* b,
                                void* c, int64_t batch, int64_t M, int64_t N, int64_t K, const int* only_if,
                                cudaStream_t s);
// The f32 guard (spec/numerics.md, cuda): *flag = 1 when an operand holds an inf or NaN, or
// K * max|a| * max|b| >= FLT_MAX / 2 (a partial sum could overflow, where cuBLAS's FMA order could
// give another special value than the spec's); else 0. `partial` holds 2 * kGuardBlocks floats
// of scratch. Two passes of fixed trees: no atomics, the same flag every run.
constexpr int kGuardBlocks = 256;
cudaError_t launch_matmul_guard(const float* a, int64_t na, const float* b, int64_t nb, int64_t K,
                                float* partial, int* flag, cudaStream_t s);

// conv.cu: the spec's loop (one thread per result element; `only_if` as for matmul), and the
// im2col matrix of batch element b: col[ch * prod(K) + k][e] (ch the input channel), zero where
// the window reads padding or a dilation hole.
cudaError_t launch_conv_plain(ir::DType in, ir::DType weight, ir::DType to, const void* x, const void* w,
                              void* y, const ConvShape& shape, const int* only_if, cudaStream_t s);
cudaError_t launch_im2col(const float* x, float* col, const ConvShape& shape, int64_t b, cudaStream_t s);

// pool.cu: max (with its i64 indices when `indices` is not null) or sum over the window `w`
// (every operand dim).
cudaError_t launch_pool(bool is_max, ir::DType dt, const void* x, void* y, int64_t* indices, const Window& w,
                        cudaStream_t s);

// y[i] = y[i] + 0: cuBLAS may leave a -0 where the spec's sum from +0 gives +0.
cudaError_t launch_plus_zero(float* y, int64_t n, cudaStream_t s);

}  // namespace plumb::rt::cuda
