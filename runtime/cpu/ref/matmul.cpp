// spec/ops/matmul.md: result[b.., m, n] = sum over k ascending of lhs[b.., m, k] * rhs[b.., k, n],
// one accumulator per result element, computed in the accumulator type (f32 for f32/f16/bf16/f8,
// f64 for f64, integers modulo 2^32 or 2^64), starting at +0, each product and each sum rounded.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "runtime/cpu/ref/accumulate.h"
#include "runtime/cpu/ref/contract.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cpu/ref/parallel.h"

namespace plumb::rt::ref {

namespace {

// spec/ops/matmul.md: "for (k = 0; k < K; k++) acc = acc + acc_t(lhs[b.., m, k]) * acc_t(rhs[b.., k, n])
// // ascending, sequential, one accumulator per element". Each batch is one Contraction
// (runtime/cpu/ref/contract.h: register tiles of independent results, k the inner sequential
// loop, k blocks ascending); the batches and their row/column blocks share the threads.
template <typename A, int Rows>
void matmul_typed(const Tensor& lhs, const Tensor& rhs, Tensor& result, int64_t batch, int64_t m, int64_t k,
                  int64_t n, int threads) {
  using S = TileShape<A, Rows>;
  const Widened<A> a(lhs), b(rhs);
  const int64_t rhs_size = S::col_panels(n) * S::kCols * k;
  const auto rhs_packed = scratch<A>(batch * rhs_size);
  // The accumulators: the result itself when it has the accumulator's type, else a buffer that
  // store_from rounds or wraps into it.
  const bool in_place = result.dtype == (std::is_same_v<A, float>    ? ir::DType::F32
                                         : std::is_same_v<A, double> ? ir::DType::F64
                                                                     : ir::DType::String);
  const auto buffer = scratch<A>(in_place ? 0 : batch * m * n);
  A* acc = in_place ? result.as<A>() : buffer.get();
  std::vector<Contraction<A>> jobs(static_cast<size_t>(batch));
  // Packing rhs: blocks of 16 panels (of every batch) on the threads, 256K elements a thread at least.
  const int64_t panels = S::col_panels(n), blocks = (panels + 15) / 16;
  parallel_for(threads, batch * blocks,
               std::max<int64_t>(1, (int64_t{1} << 18) / std::max<int64_t>(1, 16 * S::kCols * k)),
               [&](int64_t i0, int64_t i1) {
                 for (int64_t i = i0; i < i1; ++i) {
                   const int64_t bt = i / blocks, q0 = i % blocks * 16;
                   pack_rhs<A, Rows>(b.data() + bt * k * n, k, n, n, rhs_packed.get() + bt * rhs_size, q0,
                                     std::min(q0 + 16, panels));
                 }
               });
  for (int64_t bt = 0; bt < batch; ++bt)
    jobs[static_cast<size_t>(bt)] = Contraction<A>{
        m, n, k, a.data() + bt * m * k, k, rhs_packed.get() + bt * rhs_size, acc + bt * m * n, n};
  contract<A, Rows>(jobs, threads);
  if (!in_place) store_from<A>(acc, batch * m * n, result, 0);
}

// Tiles of 4 rows, or of 1 row for a matrix-vector product (m < 4), where 4 would be mostly padding.
template <typename A>
void matmul_any(const Tensor& lhs, const Tensor& rhs, Tensor& result, int64_t batch, int64_t m, int64_t k,
                int64_t n, int threads) {
  if (m < 4)
    matmul_typed<A, 1>(lhs, rhs, result, batch, m, k, n, threads);
  else
    matmul_typed<A, 4>(lhs, rhs, result, batch, m, k, n, threads);
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
  const int64_t m = lhs.shape[r - 2], k = lhs.shape[r - 1], n = rhs.shape[r - 1];
  int64_t batch = 1;
  for (int64_t d = 0; d < r - 2; ++d) batch *= lhs.shape[d];
  if (batch == 0 || m == 0 || n == 0) return Status::ok();
  if (ir::is_float(result.dtype)) {
    if (lhs.dtype == ir::DType::F64 || result.dtype == ir::DType::F64)
      matmul_any<double>(lhs, rhs, result, batch, m, k, n, cx.threads);
    else
      matmul_any<float>(lhs, rhs, result, batch, m, k, n, cx.threads);
  } else if (ir::dtype_bits(result.dtype) == 64) {
    matmul_any<uint64_t>(lhs, rhs, result, batch, m, k, n, cx.threads);
  } else {
    matmul_any<uint32_t>(lhs, rhs, result, batch, m, k, n, cx.threads);
  }
  return Status::ok();
}

}  // namespace plumb::rt::ref
