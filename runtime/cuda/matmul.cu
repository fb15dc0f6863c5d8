// matmul's plain kernel and the f32 overflow guard (spec/ops/matmul.md). The f32 and f64 products
// go to cuBLAS (cuda_backend.cpp); this kernel is the spec's loop for the other rows of the
// dtype table (f16, bf16 -> f32 accumulation; 8- to 64-bit integers modulo 2^32 / 2^64) and for
// f32 operands that the guard flags: one thread per result element, k ascending, each product
// rounded and then added (explicit __fmul_rn / __fadd_rn: never contracted into an FMA).
#include <cfloat>
#include <cmath>

#include "runtime/cuda/device_types.cuh"
#include "runtime/cuda/dtype_sets.h"
#include "runtime/cuda/kernels.h"

namespace plumb::rt::cuda {
namespace {

__global__ void matmul_plain(Operand a, Operand b, ir::DType to, void* c, int64_t batch, int64_t M, int64_t N,
                             int64_t K, const int* only_if) {
  if (only_if && *only_if == 0) return;
  const int64_t total = batch * M * N;
  PLUMB_CUDA_FOR(i, total) {
    const int64_t bm = i / N, n = i - bm * N;  // bm = batch * M + m
    const int64_t bb = bm / M;
    const int64_t arow = bm * K, bcol = bb * K * N + n;
    if (float_operand(a.dt)) {
      float acc = 0.0f;  // +0: a result is never -0
      for (int64_t k = 0; k < K; ++k) acc = __fadd_rn(acc, __fmul_rn(a.f(arow + k), b.f(bcol + k * N)));
      store_float_acc(c, i, to, acc);
    } else {
      uint64_t acc = 0;  // modulo 2^64; its low 32 bits are the sum modulo 2^32
      for (int64_t k = 0; k < K; ++k) acc += a.u(arow + k) * b.u(bcol + k * N);
      store_int_acc(c, i, to, acc);
    }
  }
}

// Pass 1: block j writes the largest |x| of its slice of a (partial[j]) and of b
// (partial[kGuardBlocks + j]), or +inf for a slice holding an inf or NaN; a fixed tree in
// shared memory, so the same value every run.
__global__ void guard_partial(const float* a, int64_t na, const float* b, int64_t nb, float* partial) {
  __shared__ float m[2][kThreads];
  float ma = 0.0f, mb = 0.0f;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < na; i += stride) {
    const float v = fabsf(a[i]);
    ma = (v != v || v > FLT_MAX) ? INFINITY : fmaxf(ma, v);
  }
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < nb; i += stride) {
    const float v = fabsf(b[i]);
    mb = (v != v || v > FLT_MAX) ? INFINITY : fmaxf(mb, v);
  }
  m[0][threadIdx.x] = ma;
  m[1][threadIdx.x] = mb;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (static_cast<int>(threadIdx.x) < w) {
      m[0][threadIdx.x] = fmaxf(m[0][threadIdx.x], m[0][threadIdx.x + w]);
      m[1][threadIdx.x] = fmaxf(m[1][threadIdx.x], m[1][threadIdx.x + w]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = m[0][0];
    partial[kGuardBlocks + blockIdx.x] = m[1][0];
  }
}

// Pass 2 (one thread): the flag from the partial maxima, in double (no overflow of the bound).
__global__ void guard_final(const float* partial, int64_t K, int* flag) {
  float ma = 0.0f, mb = 0.0f;
  for (int j = 0; j < kGuardBlocks; ++j) {
    ma = fmaxf(ma, partial[j]);
    mb = fmaxf(mb, partial[kGuardBlocks + j]);
  }
  const bool special = ma > FLT_MAX || mb > FLT_MAX;
  *flag = (special || static_cast<double>(K) * ma * mb >= FLT_MAX / 2.0) ? 1 : 0;
}

// y + 0 in round-to-nearest: -0 becomes +0, every other value (NaN too) stays.
__global__ void plus_zero(float* y, int64_t n) { PLUMB_CUDA_FOR(i, n) y[i] = __fadd_rn(y[i], 0.0f); }

// f64 matmul is declined (claims.cpp), so the plain kernel is not instantiated for it.
bool plain_operand(ir::DType dt) {
  return (is_computed_float(dt) && dt != ir::DType::F64) || is_wide_int(dt);
}

}  // namespace

cudaError_t launch_matmul_plain(ir::DType lhs, ir::DType rhs, ir::DType to, const void* a, const void* b,
                                void* c, int64_t batch, int64_t M, int64_t N, int64_t K, const int* only_if,
                                cudaStream_t s) {
  if (!plain_operand(lhs) || !plain_operand(rhs)) return cudaErrorInvalidValue;
  return launch_1d(matmul_plain, batch * M * N, s, Operand{lhs, a}, Operand{rhs, b}, to, c, batch, M, N, K,
                   only_if);
}

cudaError_t launch_plus_zero(float* y, int64_t n, cudaStream_t s) { return launch_1d(plus_zero, n, s, y, n); }

cudaError_t launch_matmul_guard(const float* a, int64_t na, const float* b, int64_t nb, int64_t K,
                                float* partial, int* flag, cudaStream_t s) {
  guard_partial<<<kGuardBlocks, kThreads, 0, s>>>(a, na, b, nb, partial);
  guard_final<<<1, 1, 0, s>>>(partial, K, flag);
  return cudaGetLastError();
}

}  // namespace plumb::rt::cuda
