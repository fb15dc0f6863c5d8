// spec/ops/matmul.md: result[b.., m, n] = sum over k ascending of lhs[b.., m, k] * rhs[b.., k, n],
// one accumulator per result element, computed in the accumulator type (f32 for f32/f16/bf16/f8,
// f64 for f64, integers modulo 2^32 or 2^64), starting at +0, each product and each sum rounded.
#include <algorithm>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/cpu/ref/accumulate.h"
#include "runtime/cpu/ref/contract.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cpu/ref/parallel.h"
#include "runtime/cpu/ref/scratch.h"

namespace plumb::rt::ref {

namespace {

// spec/ops/matmul.md: "for (k = 0; k < K; k++) acc = acc + acc_t(lhs[b.., m, k]) * acc_t(rhs[b.., k, n])
// // ascending, sequential, one accumulator per element". Each batch is one Contraction
// (runtime/cpu/ref/contract.h: register tiles of independent results, k the inner sequential
// loop, k blocks ascending); the batches and their row/column blocks share the threads.
// matmul_typed's temporaries, all taken from `s` (Scratch: the node's scratch; ScratchSize: its size).
template <typename A>
struct MatmulBuffers {
  A* lhs = nullptr;  // lhs widened to A (null when it is A already)
  A* rhs = nullptr;  // rhs widened to A (likewise)
  A* rhs_packed = nullptr;
  A* acc = nullptr;  // accumulators (null when the result has type A: it is its own)
  Contraction<A>* jobs = nullptr;
  int64_t* first = nullptr;
};

template <typename A, int Rows, typename Taker>
MatmulBuffers<A> matmul_buffers(Taker& s, ir::DType lhs, ir::DType rhs, ir::DType result, int64_t batch,
                                int64_t m, int64_t k, int64_t n) {
  using S = TileShape<A, Rows>;
  MatmulBuffers<A> b;
  if (!is_acc_dtype<A>(lhs)) b.lhs = s.template take<A>(batch * m * k);
  if (!is_acc_dtype<A>(rhs)) b.rhs = s.template take<A>(batch * k * n);
  b.rhs_packed = s.template take<A>(batch * S::col_panels(n) * S::kCols * k);
  if (!is_acc_dtype<A>(result)) b.acc = s.template take<A>(batch * m * n);
  b.jobs = s.template take<Contraction<A>>(batch);
  b.first = s.template take<int64_t>(batch + 1);
  return b;
}

#if !PLUMB_REF_COMPACT
template <typename A, int Rows>
void matmul_typed(const Tensor& lhs, const Tensor& rhs, Tensor& result, int64_t batch, int64_t m, int64_t k,
                  int64_t n, int threads, Scratch& scratch) {
  using S = TileShape<A, Rows>;
  const MatmulBuffers<A> buf =
      matmul_buffers<A, Rows>(scratch, lhs.dtype, rhs.dtype, result.dtype, batch, m, k, n);
  const A* a = widened<A>(lhs, buf.lhs);
  const A* b = widened<A>(rhs, buf.rhs);
  const int64_t rhs_size = S::col_panels(n) * S::kCols * k;
  // The accumulators: the result itself when it has the accumulator's type, else a buffer that
  // store_from rounds or wraps into it.
  const bool in_place = buf.acc == nullptr;
  A* acc = in_place ? result.as<A>() : buf.acc;
  // Packing rhs: blocks of 16 panels (of every batch) on the threads, 256K elements a thread at least.
  const int64_t panels = S::col_panels(n), blocks = (panels + 15) / 16;
  parallel_for(threads, batch * blocks,
               std::max<int64_t>(1, (int64_t{1} << 18) / std::max<int64_t>(1, 16 * S::kCols * k)),
               [&](int64_t i0, int64_t i1) {
                 for (int64_t i = i0; i < i1; ++i) {
                   const int64_t bt = i / blocks, q0 = i % blocks * 16;
                   pack_rhs<A, Rows>(b + bt * k * n, k, n, n, buf.rhs_packed + bt * rhs_size, q0,
                                     std::min(q0 + 16, panels));
                 }
               });
  for (int64_t bt = 0; bt < batch; ++bt)
    buf.jobs[bt] =
        Contraction<A>{m, n, k, a + bt * m * k, k, buf.rhs_packed + bt * rhs_size, acc + bt * m * n, n};
  contract<A, Rows>(buf.jobs, static_cast<size_t>(batch), buf.first, threads);
  if (!in_place) store_from<A>(acc, batch * m * n, result, 0);
}
#endif

#if PLUMB_REF_COMPACT
// The compact build (issue 18): each result's sum on its own, add_term by add_term (contract.h),
// in place of the register tiles. The tiles compute the same sums (kk ascending from +0, each
// product rounded, then added) and recompute a NaN result with add_term, so the bits are the
// same; what is left out is the packed rhs and the tile code per accumulator type.
template <typename A, typename Taker>
MatmulBuffers<A> matmul_compact_buffers(Taker& s, ir::DType lhs, ir::DType rhs, ir::DType result,
                                        int64_t batch, int64_t m, int64_t k, int64_t n) {
  MatmulBuffers<A> b;
  if (!is_acc_dtype<A>(lhs)) b.lhs = s.template take<A>(batch * m * k);
  if (!is_acc_dtype<A>(rhs)) b.rhs = s.template take<A>(batch * k * n);
  if (!is_acc_dtype<A>(result)) b.acc = s.template take<A>(batch * m * n);
  return b;
}

template <typename A>
void matmul_any(const Tensor& lhs, const Tensor& rhs, Tensor& result, int64_t batch, int64_t m, int64_t k,
                int64_t n, int, Scratch& scratch) {
  const MatmulBuffers<A> buf =
      matmul_compact_buffers<A>(scratch, lhs.dtype, rhs.dtype, result.dtype, batch, m, k, n);
  const A* a = widened<A>(lhs, buf.lhs);
  const A* b = widened<A>(rhs, buf.rhs);
  const bool in_place = buf.acc == nullptr;
  A* acc = in_place ? result.as<A>() : buf.acc;
  for (int64_t bt = 0; bt < batch; ++bt)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const A* lp = a + (bt * m + i) * k;
        const A* rp = b + bt * k * n + j;
        A sum = A(0);
        for (int64_t kk = 0; kk < k; ++kk) sum = add_term(sum, lp[kk], rp[kk * n]);
        acc[(bt * m + i) * n + j] = sum;
      }
  if (!in_place) store_from<A>(acc, batch * m * n, result, 0);
}
#else
// Tiles of 4 rows, or of 1 row for a matrix-vector product (m < 4), where 4 would be mostly padding.
template <typename A>
void matmul_any(const Tensor& lhs, const Tensor& rhs, Tensor& result, int64_t batch, int64_t m, int64_t k,
                int64_t n, int threads, Scratch& scratch) {
  if (m < 4)
    matmul_typed<A, 1>(lhs, rhs, result, batch, m, k, n, threads, scratch);
  else
    matmul_typed<A, 4>(lhs, rhs, result, batch, m, k, n, threads, scratch);
}
#endif

// The accumulator type of a matmul with these dtypes, as a tag for `f` (dispatch.h).
struct MatmulOp {
  static constexpr std::string_view name = "matmul";
};
template <typename F>
void with_acc(ir::DType lhs, ir::DType result, F&& f) {
  with_contraction_acc<MatmulOp>(lhs, result, std::forward<F>(f));
}

// batch, m, k, n of a matmul of these shapes (rank >= 2, verified).
struct MatmulDims {
  int64_t batch = 1, m = 0, k = 0, n = 0;
};
MatmulDims matmul_dims(const std::vector<int64_t>& lhs, const std::vector<int64_t>& rhs) {
  MatmulDims d;
  const size_t r = lhs.size();
  d.m = lhs[r - 2];
  d.k = lhs[r - 1];
  d.n = rhs[r - 1];
  for (size_t i = 0; i + 2 < r; ++i) d.batch *= lhs[i];
  return d;
}

}  // namespace

template <>
Status kernel<ir::Op::MatMul>(KernelCtx& cx) {
  const Tensor& lhs = cx.inputs[0]->tensor();
  const Tensor& rhs = cx.inputs[1]->tensor();
  Tensor& result = cx.outputs[0]->tensor();
  const int64_t r = lhs.rank();
  if (r < 2 || rhs.rank() != r || result.rank() != r)
    return internal_error("matmul: unverified operand ranks");
  const MatmulDims d = matmul_dims(lhs.shape, rhs.shape);
  if (d.batch == 0 || d.m == 0 || d.n == 0) return Status::ok();
  Scratch scratch(cx);
  with_acc(lhs.dtype, result.dtype, [&](auto tag) {
    using A = decltype(tag);
    matmul_any<A>(lhs, rhs, result, d.batch, d.m, d.k, d.n, cx.threads, scratch);
  });
  return Status::ok();
}

int64_t matmul_scratch_bytes(const ScratchQuery& q) {
  const ir::Type &lhs = *q.inputs[0], &rhs = *q.inputs[1], &result = *q.outputs[0];
  if (lhs.shape.size() < 2 || rhs.shape.size() != lhs.shape.size()) return 0;
  const MatmulDims d = matmul_dims(static_dims(lhs), static_dims(rhs));
  if (d.batch == 0 || d.m == 0 || d.n == 0) return 0;
  ScratchSize s;
  with_acc(lhs.dtype, result.dtype, [&](auto tag) {
    using A = decltype(tag);
#if PLUMB_REF_COMPACT
    matmul_compact_buffers<A>(s, lhs.dtype, rhs.dtype, result.dtype, d.batch, d.m, d.k, d.n);
#else
    if (d.m < 4)
      matmul_buffers<A, 1>(s, lhs.dtype, rhs.dtype, result.dtype, d.batch, d.m, d.k, d.n);
    else
      matmul_buffers<A, 4>(s, lhs.dtype, rhs.dtype, result.dtype, d.batch, d.m, d.k, d.n);
#endif
  });
  return s.bytes();
}

}  // namespace plumb::rt::ref
