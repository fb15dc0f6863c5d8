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

// conv by the spec's pseudo-code, directly (spec/ops/conv.md), 2-D, on small integers (exact in
// double, so any order gives the same sums).
struct ConvCase {
  int64_t N = 2, C = 4, O = 6, groups = 2, H = 5, W = 7, KH = 3, KW = 2;
  int64_t sh = 2, sw = 1, dh = 1, dw = 2, lh = 1, lw = 2, ph = 1, pw = 0, qh = 2, qw = 1;  // q: pads_high
};

int64_t extent(int64_t D, int64_t K, int64_t s, int64_t d, int64_t l, int64_t lo, int64_t hi) {
  const int64_t dil_in = D == 0 ? 0 : (D - 1) * l + 1, padded = dil_in + lo + hi, dk = (K - 1) * d + 1;
  return (padded - dk) / s + 1;  // padded >= dk in these cases
}

std::vector<double> conv_by_definition(const ConvCase& c, const std::vector<double>& x,
                                       const std::vector<double>& w, int64_t EH, int64_t EW) {
  const int64_t Cg = c.C / c.groups, Og = c.O / c.groups;
  std::vector<double> y(static_cast<size_t>(c.N * c.O * EH * EW), 0);
  for (int64_t b = 0; b < c.N; ++b)
    for (int64_t o = 0; o < c.O; ++o)
      for (int64_t eh = 0; eh < EH; ++eh)
        for (int64_t ew = 0; ew < EW; ++ew) {
          const int64_t g = o / Og;
          double acc = 0;
          for (int64_t ch = 0; ch < Cg; ++ch)
            for (int64_t kh = 0; kh < c.KH; ++kh)
              for (int64_t kw = 0; kw < c.KW; ++kw) {
                const int64_t ph = eh * c.sh + kh * c.dh - c.ph, pw = ew * c.sw + kw * c.dw - c.pw;
                const int64_t dih = (c.H - 1) * c.lh + 1, diw = (c.W - 1) * c.lw + 1;
                if (ph < 0 || ph >= dih || ph % c.lh || pw < 0 || pw >= diw || pw % c.lw) continue;
                acc += x[static_cast<size_t>(((b * c.C + g * Cg + ch) * c.H + ph / c.lh) * c.W + pw / c.lw)] *
                       w[static_cast<size_t>(((o * Cg + ch) * c.KH + kh) * c.KW + kw)];
              }
          y[static_cast<size_t>(((b * c.O + o) * EH + eh) * EW + ew)] = acc;
        }
  return y;
}

ConvShape conv_shape(const ConvCase& c, int64_t EH, int64_t EW) {
  ConvShape s;
  s.batch = c.N;
  s.channels = c.C;
  s.outputs = c.O;
  s.groups = c.groups;
  Window& w = s.spatial;
  w.rank = 2;
  const int64_t in[2] = {c.H, c.W}, out[2] = {EH, EW}, win[2] = {c.KH, c.KW}, st[2] = {c.sh, c.sw},
                dil[2] = {c.dh, c.dw}, lhs[2] = {c.lh, c.lw}, lo[2] = {c.ph, c.pw};
  for (int d = 0; d < 2; ++d) {
    w.in[d] = in[d];
    w.out[d] = out[d];
    w.win[d] = win[d];
    w.stride[d] = st[d];
    w.dil[d] = dil[d];
    w.lhs_dil[d] = lhs[d];
    w.pad_lo[d] = lo[d];
  }
  return s;
}

TEST(CudaIndexMath, ConvThroughWindowSourceAndIm2colGemmIsTheDefinition) {
  const ConvCase c;
  const int64_t EH = extent(c.H, c.KH, c.sh, c.dh, c.lh, c.ph, c.qh);
  const int64_t EW = extent(c.W, c.KW, c.sw, c.dw, c.lw, c.pw, c.qw);
  ASSERT_GT(EH, 0);
  ASSERT_GT(EW, 0);
  std::vector<double> x(static_cast<size_t>(c.N * c.C * c.H * c.W)),
      w(static_cast<size_t>(c.O * c.C / c.groups * c.KH * c.KW));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i * 7 % 11) - 5;
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<double>(i * 5 % 9) - 4;
  const std::vector<double> want = conv_by_definition(c, x, w, EH, EW);
  const ConvShape s = conv_shape(c, EH, EW);
  const int64_t E = window_out_size(s.spatial), Kn = window_size(s.spatial), D = window_in_size(s.spatial);
  const int64_t Cg = c.C / c.groups, Og = c.O / c.groups;
  // conv.cu's conv_plain, on the host
  std::vector<double> plain(want.size(), 0);
  for (int64_t i = 0; i < static_cast<int64_t>(plain.size()); ++i) {
    const int64_t e = i % E, bo = i / E, o = bo % c.O, b = bo / c.O, g = o / Og;
    double acc = 0;
    for (int64_t ch = 0; ch < Cg; ++ch)
      for (int64_t k = 0; k < Kn; ++k) {
        const int64_t src = window_source(s.spatial, e, k);
        if (src >= 0)
          acc += x[static_cast<size_t>((b * c.C + g * Cg + ch) * D + src)] *
                 w[static_cast<size_t>((o * Cg + ch) * Kn + k)];
      }
    plain[static_cast<size_t>(i)] = acc;
  }
  EXPECT_EQ(plain, want);
  // conv.cu's im2col and cuda_backend.cpp's strided-batched gemm over the groups, on the host
  std::vector<double> gemm(want.size(), 0), col(static_cast<size_t>(c.C * Kn * E));
  const GemmArgs ga = row_major_gemm(c.groups, Og, E, Cg * Kn);
  for (int64_t b = 0; b < c.N; ++b) {
    for (int64_t i = 0; i < static_cast<int64_t>(col.size()); ++i) {
      const int64_t e = i % E, row = i / E, k = row % Kn, ch = row / Kn;
      const int64_t src = window_source(s.spatial, e, k);
      col[static_cast<size_t>(i)] = src >= 0 ? x[static_cast<size_t>((b * c.C + ch) * D + src)] : 0.0;
    }
    double* y = gemm.data() + b * c.O * E;
    for (int64_t bt = 0; bt < ga.batch; ++bt)
      for (int64_t i = 0; i < ga.m; ++i)
        for (int64_t j = 0; j < ga.n; ++j) {
          double acc = 0;
          for (int64_t l = 0; l < ga.k; ++l)
            acc += col[static_cast<size_t>(bt * ga.stride_a + i + l * ga.lda)] *
                   w[static_cast<size_t>(bt * ga.stride_b + l + j * ga.ldb)];
          y[bt * ga.stride_c + i + j * ga.ldc] = acc;
        }
  }
  EXPECT_EQ(gemm, want);
}

TEST(CudaIndexMath, PoolWindowSkipsThePadding) {
  // operand [1, 1, 4] (rank 3, windows over all dims), window [1, 1, 3], stride 2, pads_low 1:
  // result 0 reads positions {-1, 0, 1} -> {pad, 0, 1}; result 1 reads {1, 2, 3}.
  Window w;
  w.rank = 3;
  const int64_t in[3] = {1, 1, 4}, out[3] = {1, 1, 2}, win[3] = {1, 1, 3};
  for (int d = 0; d < 3; ++d) {
    w.in[d] = in[d];
    w.out[d] = out[d];
    w.win[d] = win[d];
    w.stride[d] = d == 2 ? 2 : 1;
    w.dil[d] = 1;
    w.lhs_dil[d] = 1;
    w.pad_lo[d] = d == 2 ? 1 : 0;
  }
  EXPECT_EQ(window_source(w, 0, 0), -1);
  EXPECT_EQ(window_source(w, 0, 1), 0);
  EXPECT_EQ(window_source(w, 0, 2), 1);
  EXPECT_EQ(window_source(w, 1, 0), 1);
  EXPECT_EQ(window_source(w, 1, 2), 3);
  EXPECT_EQ(window_size(w), 3);
  EXPECT_EQ(window_out_size(w), 2);
}

}  // namespace
}  // namespace plumb::rt::cuda
