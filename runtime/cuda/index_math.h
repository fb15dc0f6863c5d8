// Index and launch arithmetic of the cuda backend, shared by the kernels (device) and the host
// code that plans them. Plain C++ marked __host__ __device__ under nvcc, so tests/cuda/ checks it
// on the CPU: a wrong stride here would be a wrong element on the GPU.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define PLUMB_HD __host__ __device__
#else
#define PLUMB_HD
#endif

namespace plumb::rt::cuda {

// Ranks beyond this are declined by partition (the core allows more; no model here has them).
constexpr int kMaxRank = 8;

// A strided view: element (i0, .., ir-1) of `size` lives at sum(ik * stride[k]) elements from
// the base. Strides may be 0 (broadcast) and need not be row-major (transpose).
struct View {
  int rank = 0;
  int64_t size[kMaxRank] = {};
  int64_t stride[kMaxRank] = {};
};

PLUMB_HD inline int64_t numel(const View& v) {
  int64_t n = 1;
  for (int k = 0; k < v.rank; ++k) n *= v.size[k];
  return n;
}

// Row-major strides for v.size (the layout of every rt::Tensor).
PLUMB_HD inline void set_row_major(View& v) {
  int64_t s = 1;
  for (int k = v.rank - 1; k >= 0; --k) {
    v.stride[k] = s;
    s *= v.size[k];
  }
}

// The offset in `v` of the element whose row-major position over v.size is `linear`.
PLUMB_HD inline int64_t offset_of(const View& v, int64_t linear) {
  int64_t off = 0;
  for (int k = v.rank - 1; k >= 0; --k) {
    const int64_t q = linear / v.size[k];
    off += (linear - q * v.size[k]) * v.stride[k];
    linear = q;
  }
  return off;
}

// A 1-D launch: `blocks` blocks of `threads` threads, each thread striding by blocks * threads
// over n items (a grid-stride loop, so huge n needs no huge grid).
struct Launch {
  int blocks = 0;
  int threads = 0;
};

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 65535;

PLUMB_HD inline Launch plan_launch(int64_t n) {
  Launch l;
  l.threads = kThreads;
  const int64_t b = (n + kThreads - 1) / kThreads;
  l.blocks = static_cast<int>(b < 1 ? 1 : (b > kMaxBlocks ? kMaxBlocks : b));
  return l;
}

// How reduce walks its operand: one result element per thread (`kept`: the result's dims with
// the operand's strides), and in it the reduced elements in row-major order (`reduced`), the
// spec's sequential order.
struct ReducePlan {
  View kept;
  View reduced;
};

// `rank` operand dims of `size`, `axes` ascending (reduce.C2).
PLUMB_HD inline ReducePlan plan_reduce(int rank, const int64_t* size, int naxes, const int64_t* axes) {
  View all;
  all.rank = rank;
  for (int k = 0; k < rank; ++k) all.size[k] = size[k];
  set_row_major(all);
  ReducePlan p;
  int a = 0;
  for (int k = 0; k < rank; ++k) {
    View& to = (a < naxes && axes[a] == k) ? p.reduced : p.kept;
    if (&to == &p.reduced) ++a;
    to.size[to.rank] = all.size[k];
    to.stride[to.rank] = all.stride[k];
    ++to.rank;
  }
  return p;
}

// The operand's view in the result's index space for transpose: result dim j is operand dim
// perm[j] (spec/ops/transpose.md).
PLUMB_HD inline View transpose_view(int rank, const int64_t* in_size, const int64_t* perm) {
  View in;
  in.rank = rank;
  for (int k = 0; k < rank; ++k) in.size[k] = in_size[k];
  set_row_major(in);
  View v;
  v.rank = rank;
  for (int j = 0; j < rank; ++j) {
    v.size[j] = in.size[perm[j]];
    v.stride[j] = in.stride[perm[j]];
  }
  return v;
}

// The operand's view in the result's index space for broadcast: operand dim k is result dim
// dims[k], of size 1 (stride 0: repeated) or the result's size; result dims no operand dim maps
// to repeat it too (spec/ops/broadcast.md).
PLUMB_HD inline View broadcast_view(int in_rank, const int64_t* in_size, const int64_t* dims, int out_rank,
                                    const int64_t* out_size) {
  View in;
  in.rank = in_rank;
  for (int k = 0; k < in_rank; ++k) in.size[k] = in_size[k];
  set_row_major(in);
  View v;
  v.rank = out_rank;
  for (int j = 0; j < out_rank; ++j) {
    v.size[j] = out_size[j];
    v.stride[j] = 0;
  }
  for (int k = 0; k < in_rank; ++k)
    if (in.size[k] != 1) v.stride[dims[k]] = in.stride[k];
  return v;
}

// cuBLAS is column-major; a row-major C[M,N] = A[M,K] B[K,N] is the column-major
// C^T[N,M] = B^T[N,K] A^T[K,M]: cuBLAS's (m, n, k) = (N, M, K), its first operand B with leading
// dimension N, its second A with K, the result with N; one batch is one matrix of each.
struct GemmArgs {
  int64_t m = 0, n = 0, k = 0;
  int64_t lda = 0, ldb = 0, ldc = 0;                 // cuBLAS's first operand (B), second (A), C
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;  // between batches, in elements
  int64_t batch = 0;
};

PLUMB_HD inline GemmArgs row_major_gemm(int64_t batch, int64_t M, int64_t N, int64_t K) {
  GemmArgs g;
  g.m = N;
  g.n = M;
  g.k = K;
  g.lda = N;  // B[K,N] row-major read as B^T[N,K] column-major
  g.ldb = K;  // A[M,K] row-major read as A^T[K,M] column-major
  g.ldc = N;
  g.stride_a = K * N;
  g.stride_b = M * K;
  g.stride_c = M * N;
  g.batch = batch;
  return g;
}

// A sliding window over `rank` dims (pool: every dim of the operand; conv: the spatial dims):
// result position e (row-major over `out`) and window position k (row-major over `win`) read the
// operand at p = e * stride + k * dil - pad_lo per dim, in the operand dilated by lhs_dil (conv's
// lhs_dilations; 1 for pool); a p in the padding or in a hole of the dilation reads nothing.
struct Window {
  int rank = 0;
  int64_t in[kMaxRank] = {};   // operand sizes
  int64_t out[kMaxRank] = {};  // result sizes (E)
  int64_t win[kMaxRank] = {};  // window sizes
  int64_t stride[kMaxRank] = {};
  int64_t dil[kMaxRank] = {};
  int64_t lhs_dil[kMaxRank] = {};
  int64_t pad_lo[kMaxRank] = {};
};

// The row-major offset in the operand (over `in`) that result e and window position k read, or
// -1 when they read padding or a hole (no term: spec/ops/conv.md, pool.md).
PLUMB_HD inline int64_t window_source(const Window& w, int64_t e, int64_t k) {
  int64_t off = 0, mult = 1;
  for (int d = w.rank - 1; d >= 0; --d) {
    const int64_t ed = e % w.out[d], kd = k % w.win[d];
    e /= w.out[d];
    k /= w.win[d];
    const int64_t p = ed * w.stride[d] + kd * w.dil[d] - w.pad_lo[d];
    const int64_t dilated = w.in[d] == 0 ? 0 : (w.in[d] - 1) * w.lhs_dil[d] + 1;
    if (p < 0 || p >= dilated || p % w.lhs_dil[d] != 0) return -1;
    off += (p / w.lhs_dil[d]) * mult;
    mult *= w.in[d];
  }
  return off;
}

PLUMB_HD inline int64_t window_size(const Window& w) {
  int64_t n = 1;
  for (int d = 0; d < w.rank; ++d) n *= w.win[d];
  return n;
}
PLUMB_HD inline int64_t window_in_size(const Window& w) {
  int64_t n = 1;
  for (int d = 0; d < w.rank; ++d) n *= w.in[d];
  return n;
}
PLUMB_HD inline int64_t window_out_size(const Window& w) {
  int64_t n = 1;
  for (int d = 0; d < w.rank; ++d) n *= w.out[d];
  return n;
}

// conv's shape: input [N, C, D..], weight [O, C / groups, K..], result [N, O, E..]; `spatial`
// is the window over D with K.
struct ConvShape {
  int64_t batch = 0, channels = 0, outputs = 0, groups = 1;
  Window spatial;
};

}  // namespace plumb::rt::cuda
