// ref's matmul and conv kernels as they were before issue 17 (main at f3e2b4c), kept verbatim
// as the baseline that the blocked, threaded kernels must equal bit for bit: the bench
// (bench/ref_ops_bench.cpp runs both in one program), the unit test
// (tests/ref_bits/ref_bits_test.cpp) and the "baseline" backend of plumb_testbackend
// (tests/ref_bits/baseline_backend.h, tests/ref_bits/ref_bits.sh). Never shipped.
// spec/ops/matmul.md: result[b.., m, n] = sum over k ascending of lhs[b.., m, k] * rhs[b.., k, n],
// one accumulator per result element, computed in the accumulator type (f32 for f32/f16/bf16/f8,
// f64 for f64, integers modulo 2^32 or 2^64), starting at +0, each product and each sum rounded.
#include <algorithm>
#include <vector>

#include "runtime/cpu/ref/accumulate.h"
#include "runtime/cpu/ref/kernel.h"
#include "tests/ref_baseline/baseline_kernels.h"

namespace plumb::rt::ref_baseline {
using namespace plumb::rt::ref;

namespace {

// result[M,N] = lhs[M,K] x rhs[K,N]. Loop order i-k-j over column blocks of rhs that stay in
// cache; every result element still sees its products in ascending k, one at a time.
template <typename A>
void matmul_2d(const A* __restrict lhs, const A* __restrict rhs, A* __restrict result, int64_t m, int64_t k,
               int64_t n) {
  const int64_t bytes_per_row = std::max<int64_t>(1, k) * static_cast<int64_t>(sizeof(A));
  const int64_t block = std::clamp<int64_t>((int64_t{256} << 10) / bytes_per_row / 16 * 16, 16, 1024);
  for (int64_t j0 = 0; j0 < n; j0 += block) {
    const int64_t nb = std::min(block, n - j0);
    for (int64_t i = 0; i < m; ++i) {
      A* __restrict acc = result + i * n + j0;
      for (int64_t j = 0; j < nb; ++j) acc[j] = A(0);
      const A* lhs_row = lhs + i * k;
      for (int64_t kk = 0; kk < k; ++kk) {
        const A a = lhs_row[kk];
        const A* __restrict rhs_row = rhs + kk * n + j0;
        for (int64_t j = 0; j < nb; ++j) acc[j] += a * rhs_row[j];  // acc = acc + lhs * rhs
      }
    }
  }
}

template <typename A>
void matmul_typed(const Tensor& lhs, const Tensor& rhs, Tensor& result, int64_t batch, int64_t m, int64_t k,
                  int64_t n) {
  std::vector<A> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n)), c(static_cast<size_t>(m * n));
  for (int64_t bt = 0; bt < batch; ++bt) {
    load_as<A>(lhs, bt * m * k, m * k, a.data());
    load_as<A>(rhs, bt * k * n, k * n, b.data());
    matmul_2d<A>(a.data(), b.data(), c.data(), m, k, n);
    store_from<A>(c.data(), m * n, result, bt * m * n);
  }
}

}  // namespace

Status matmul(ref::KernelCtx& cx) {
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
      matmul_typed<double>(lhs, rhs, result, batch, m, k, n);
    else
      matmul_typed<float>(lhs, rhs, result, batch, m, k, n);
  } else if (ir::dtype_bits(result.dtype) == 64) {
    matmul_typed<uint64_t>(lhs, rhs, result, batch, m, k, n);
  } else {
    matmul_typed<uint32_t>(lhs, rhs, result, batch, m, k, n);
  }
  return Status::ok();
}

}  // namespace plumb::rt::ref_baseline
