// The cuda backend's index and launch arithmetic (runtime/cuda/index_math.h), run on the CPU:
// the views, reduce plans and cuBLAS argument mapping the kernels use, checked against the
// spec's definitions computed directly.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "runtime/cuda/index_math.h"

namespace plumb::rt::cuda {
namespace {

std::vector<int64_t> iota_values(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 100);
  return v;
}

// What the strided-copy kernel does, on the host: dst[dst_offset + offset_of(dv, i)] = src[offset_of(sv, i)].
void strided_copy(const std::vector<int64_t>& src, const View& sv, std::vector<int64_t>& dst,
                  int64_t dst_offset, const View& dv) {
  for (int64_t i = 0; i < numel(sv); ++i) dst[dst_offset + offset_of(dv, i)] = src[offset_of(sv, i)];
}

View row_major(std::vector<int64_t> d) {
  View v;
  v.rank = static_cast<int>(d.size());
  for (size_t k = 0; k < d.size(); ++k) v.size[k] = d[k];
  set_row_major(v);
  return v;
}

TEST(CudaIndexMath, RowMajorStridesAndOffsets) {
  const View v = row_major({2, 3, 4});
  EXPECT_EQ(v.stride[0], 12);
  EXPECT_EQ(v.stride[1], 4);
  EXPECT_EQ(v.stride[2], 1);
  for (int64_t i = 0; i < 24; ++i) EXPECT_EQ(offset_of(v, i), i);
  EXPECT_EQ(numel(View{}), 1);  // rank 0: one element
  EXPECT_EQ(offset_of(View{}, 0), 0);
  EXPECT_EQ(numel(row_major({3, 0, 2})), 0);
}

TEST(CudaIndexMath, TransposeViewMatchesTheDefinition) {
  const std::vector<int64_t> in = {2, 3, 4, 5};
  const std::vector<int64_t> perm = {2, 0, 3, 1};
  const std::vector<int64_t> x = iota_values(120);
  const View sv = transpose_view(4, in.data(), perm.data());
  const std::vector<int64_t> out_dims = {4, 2, 5, 3};
  std::vector<int64_t> y(120, -1);
  strided_copy(x, sv, y, 0, row_major(out_dims));
  // result[i0, i1, i2, i3] = operand[j] with j[perm[k]] = i_k
  for (int64_t a = 0; a < 4; ++a)
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t c = 0; c < 5; ++c)
        for (int64_t d = 0; d < 3; ++d) {
          int64_t j[4];
          j[perm[0]] = a;
          j[perm[1]] = b;
          j[perm[2]] = c;
          j[perm[3]] = d;
          const int64_t src = ((j[0] * 3 + j[1]) * 4 + j[2]) * 5 + j[3];
          EXPECT_EQ(y[static_cast<size_t>(((a * 2 + b) * 5 + c) * 3 + d)], x[static_cast<size_t>(src)]);
        }
}

TEST(CudaIndexMath, BroadcastViewRepeatsSizeOneAndMissingDims) {
  // operand [3, 1] -> result [2, 3, 4] with dims = {1, 2}
  const std::vector<int64_t> in = {3, 1}, dims = {1, 2}, out = {2, 3, 4};
  const std::vector<int64_t> x = {7, 8, 9};
  const View sv = broadcast_view(2, in.data(), dims.data(), 3, out.data());
  std::vector<int64_t> y(24, -1);
  strided_copy(x, sv, y, 0, row_major(out));
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t b = 0; b < 3; ++b)
      for (int64_t c = 0; c < 4; ++c)
        EXPECT_EQ(y[static_cast<size_t>((a * 3 + b) * 4 + c)], x[static_cast<size_t>(b)]);
}

TEST(CudaIndexMath, ConcatIsStridedCopiesAtOffsets) {
  // [2, 2, 3] ++ [2, 1, 3] along axis 1 -> [2, 3, 3], as CudaSpan::run_concat builds the views
  const std::vector<int64_t> a = iota_values(12), b = {1, 2, 3, 4, 5, 6};
  const View whole = row_major({2, 3, 3});
  std::vector<int64_t> y(18, -1);
  View da = whole;
  da.size[1] = 2;
  strided_copy(a, row_major({2, 2, 3}), y, 0, da);
  View db = whole;
  db.size[1] = 1;
  strided_copy(b, row_major({2, 1, 3}), y, 2 * whole.stride[1], db);
  const std::vector<int64_t> want = {100, 101, 102, 103, 104, 105, 1, 2, 3,
                                     106, 107, 108, 109, 110, 111, 4, 5, 6};
  EXPECT_EQ(y, want);
}

TEST(CudaIndexMath, ReducePlanWalksTheSpecOrder) {
  // operand [2, 3, 4], axes {0, 2}: result [3]; each result reads its 8 elements in row-major
  // order over the reduced dims (i0 outer, i2 inner).
  const std::vector<int64_t> in = {2, 3, 4}, axes = {0, 2};
  const ReducePlan p = plan_reduce(3, in.data(), 2, axes.data());
  ASSERT_EQ(p.kept.rank, 1);
  ASSERT_EQ(p.reduced.rank, 2);
  EXPECT_EQ(numel(p.kept), 3);
  EXPECT_EQ(numel(p.reduced), 8);
  for (int64_t o = 0; o < 3; ++o) {
    std::vector<int64_t> order, want;
    for (int64_t r = 0; r < 8; ++r) order.push_back(offset_of(p.kept, o) + offset_of(p.reduced, r));
    for (int64_t i0 = 0; i0 < 2; ++i0)
      for (int64_t i2 = 0; i2 < 4; ++i2) want.push_back(i0 * 12 + o * 4 + i2);
    EXPECT_EQ(order, want) << "result " << o;
  }
  // axes = [] : every element reduced over itself
  const ReducePlan q = plan_reduce(3, in.data(), 0, nullptr);
  EXPECT_EQ(numel(q.kept), 24);
  EXPECT_EQ(q.reduced.rank, 0);
  EXPECT_EQ(numel(q.reduced), 1);
}

TEST(CudaIndexMath, RowMajorGemmArgumentsComputeTheRowMajorProduct) {
  // A column-major gemm with row_major_gemm's arguments, evaluated on the host, is the row-major
  // batched product.
  const int64_t batch = 2, M = 3, N = 4, K = 5;
  std::vector<double> A(batch * M * K), B(batch * K * N), C(batch * M * N, 0), want(batch * M * N, 0);
  for (size_t i = 0; i < A.size(); ++i) A[i] = static_cast<double>(i % 7) - 3;
  for (size_t i = 0; i < B.size(); ++i) B[i] = static_cast<double>(i % 5) - 2;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n)
        for (int64_t k = 0; k < K; ++k)
          want[(b * M + m) * N + n] += A[(b * M + m) * K + k] * B[(b * K + k) * N + n];
  const GemmArgs g = row_major_gemm(batch, M, N, K);
  // cuBLAS: C_b(i, j) = sum_l X_b(i, l) Y_b(l, j), X = first operand (B), Y = second (A),
  // column-major: X(i, l) at i + l * lda.
  for (int64_t b = 0; b < g.batch; ++b)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double acc = 0;
        for (int64_t l = 0; l < g.k; ++l)
          acc += B[b * g.stride_a + i + l * g.lda] * A[b * g.stride_b + l + j * g.ldb];
        C[b * g.stride_c + i + j * g.ldc] = acc;
      }
  EXPECT_EQ(C, want);
}

TEST(CudaIndexMath, LaunchCoversEveryItemWithBoundedGrids) {
  for (int64_t n :
       {int64_t{1}, int64_t{255}, int64_t{256}, int64_t{257}, int64_t{1} << 20, int64_t{1} << 40}) {
    const Launch l = plan_launch(n);
    EXPECT_EQ(l.threads, kThreads);
    EXPECT_GE(l.blocks, 1);
    EXPECT_LE(l.blocks, kMaxBlocks);
    // A grid-stride loop covers n when blocks * threads > 0; no more blocks than items need.
    EXPECT_LE(static_cast<int64_t>(l.blocks - 1) * l.threads, n);
  }
  EXPECT_EQ(plan_launch(0).blocks, 1);
}

}  // namespace
}  // namespace plumb::rt::cuda
