// The blocked contraction shared by matmul and conv (issue 17):
//   out[i, j] = sum over kk ascending of lhs[i, kk] * rhs[kk, j]
// for every i < m, j < n, one accumulator per result, starting at +0, each product rounded to
// the accumulator type A and then added (no fused multiply-add): spec/ops/matmul.md's
// "the sum of element (m, n) is ((+0 + p0) + p1) + ... in ascending k. Blocking for cache is
// allowed, reordering the sum of one element is not." conv (spec/ops/conv.md) is the same sum with
// kk running over (channel, kernel position) in the spec's order.
//
// What is computed together is only ever independent results:
// - a register tile of kRows x kCols results (kCols = two SIMD vectors, runtime/cpu/ref/simd.h),
//   each lane one result, kk the inner sequential loop;
// - k blocks of kDepth: a tile's partial sums are stored in `out` (type A, so exactly) and the
//   next block continues them, so every result still sees kk = 0, 1, ..., k-1 in order;
// - work items (row block x column block) on threads (runtime/cpu/ref/parallel.h): each result
//   belongs to exactly one item.
// lhs comes as it is (row-major rows, `lda` apart); rhs comes packed (pack_rhs, or a kernel's own
// packer, as conv's im2col) in panels of kCols columns, each [k][kCols], zero past n. A tile's
// rows past m read row m - 1 again, and its results past m and n are never stored.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "runtime/cpu/ref/nan_choice.h"
#include "runtime/cpu/ref/parallel.h"
#include "runtime/cpu/ref/simd.h"

namespace plumb::rt::ref {

template <typename A, int Rows>
struct TileShape {
  static constexpr int kRows = Rows;                  // results per column of a tile
  static constexpr int kLanes = simd::kLanes<A>;      // results per vector
  static constexpr int kCols = 2 * kLanes;            // results per row of a tile
  static constexpr int64_t kDepth = 256;              // k block: a [kDepth][kCols] rhs panel is 16 KB
  static constexpr int64_t kRowPanels = 128 / Rows;   // row panels per work item (128 rows)
  static constexpr int64_t kColPanels = 256 / kCols;  // column panels per work item (8 KB of a row)
  static int64_t row_panels(int64_t m) { return (m + kRows - 1) / kRows; }
  static int64_t col_panels(int64_t n) { return (n + kCols - 1) / kCols; }
};

// One contraction: packed operands in, `out` (m rows of n results, row stride ld) out.
template <typename A>
struct Contraction {
  int64_t m = 0, n = 0, k = 0;
  const A* lhs = nullptr;  // lhs[i, kk] = lhs[i * lda + kk]
  int64_t lda = 0;
  const A* rhs = nullptr;  // TileShape::col_panels(n) panels of [k][kCols]
  A* out = nullptr;
  int64_t ld = 0;
};

// rhs[kk, j] = src[kk * k_stride + j], packed into panels of kCols columns: panels [q0, q1) of
// `dst` (all of them: q1 = TileShape::col_panels(n)). 16 rows at a time, so that each panel gets
// a kilobyte in one go rather than 64 bytes each far apart.
template <typename A, int Rows, typename T>
void pack_rhs(const T* src, int64_t k, int64_t n, int64_t k_stride, A* dst, int64_t q0, int64_t q1) {
  constexpr int kCols = TileShape<A, Rows>::kCols;
  for (int64_t k0 = 0; k0 < k; k0 += 16) {
    const int64_t k1 = std::min(k, k0 + 16);
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t j0 = q * kCols, cols = std::min<int64_t>(kCols, n - j0);
      A* out = dst + (q * k + k0) * kCols;
      for (int64_t kk = k0; kk < k1; ++kk, out += kCols) {
        const T* row = src + kk * k_stride + j0;
        // A full row of one type: memcpy, one vector copy (the loop, whose operands might alias
        // for all GCC knows, copied one element at a time).
        if constexpr (std::is_same_v<T, A>) {
          if (cols == kCols) {
            std::memcpy(out, row, sizeof(A) * kCols);
            continue;
          }
        }
        if (cols == kCols) {
          for (int c = 0; c < kCols; ++c) out[c] = static_cast<A>(row[c]);
        } else {
          for (int c = 0; c < kCols; ++c) out[c] = c < cols ? static_cast<A>(row[c]) : A(0);
        }
      }
    }
  }
}

// One term, acc + lhs * rhs, with the NaN of the result chosen explicitly (nan_choice.h): the
// scalar kernels before issue 17, as GCC compiled them, took the rhs's (conv: the input's) for
// the product and the product's for the sum. Vector code leaves the operand order to the compiler, so the
// kernels compute a result that came out NaN (whether it is NaN does not depend on the order) again with
// this, term by term in the same order: its bits are the old kernels' too.
template <typename A>
inline A add_term(A acc, A lhs, A rhs) {
  if constexpr (std::is_floating_point_v<A>) {
    const A product = first_operand_nan(rhs, rhs * lhs);
    return first_operand_nan(product, product + acc);
  } else {
    return acc + lhs * rhs;
  }
}

namespace contract_detail {

// One tile over one k block: acc[r][c] = acc[r][c] + lhs[r, kk] * rhs[kk, c] for kk ascending.
// `first`: the block at kk = 0 (the accumulators start at +0); otherwise they continue the sums
// stored in `out`. Only rows x cols results are read and written.
template <typename A, int Rows>
PLUMB_REF_INLINE void tile(int64_t kc, const A* const* lp, const A* __restrict rp, A* out, int64_t ld,
                           int rows, int cols, bool first) {
  using S = TileShape<A, Rows>;
  using V = simd::Vec<A>;
  constexpr int W = S::kLanes;
  A buf[Rows * S::kCols];
  V lo[Rows], hi[Rows];
  const bool full = rows == Rows && cols == S::kCols;
  PLUMB_REF_UNROLL
  for (int r = 0; r < Rows; ++r) {
    if (first) {
      simd::zero<A>(lo[r]);
      simd::zero<A>(hi[r]);
    } else if (full) {
      simd::load(lo[r], out + r * ld);
      simd::load(hi[r], out + r * ld + W);
    } else {
      for (int c = 0; c < S::kCols; ++c)
        buf[r * S::kCols + c] = r < rows && c < cols ? out[r * ld + c] : A(0);
      simd::load(lo[r], buf + r * S::kCols);
      simd::load(hi[r], buf + r * S::kCols + W);
    }
  }
  for (int64_t kk = 0; kk < kc; ++kk) {  // sequential: the spec's order for every lane
    V b_lo, b_hi;
    simd::load(b_lo, rp);
    simd::load(b_hi, rp + W);
    PLUMB_REF_UNROLL
    for (int r = 0; r < Rows; ++r) {
      V a;
      simd::splat(a, lp[r][kk]);
      lo[r] = lo[r] + a * b_lo;  // acc = acc + lhs * rhs: product rounded, then the sum
      hi[r] = hi[r] + a * b_hi;
    }
    rp += S::kCols;
  }
  PLUMB_REF_UNROLL
  for (int r = 0; r < Rows; ++r) {
    if (full) {
      simd::store(out + r * ld, lo[r]);
      simd::store(out + r * ld + W, hi[r]);
    } else if (r < rows) {
      simd::store(buf + r * S::kCols, lo[r]);
      simd::store(buf + r * S::kCols + W, hi[r]);
      for (int c = 0; c < cols; ++c) out[r * ld + c] = buf[r * S::kCols + c];
    }
  }
}

// The results of rows [p0, p1) x columns [q0, q1) that are NaN, computed again with add_term.
template <typename A, int Rows>
void redo_nan_results(const Contraction<A>& job, int64_t p0, int64_t p1, int64_t q0, int64_t q1) {
  using S = TileShape<A, Rows>;
  const int64_t j0 = q0 * S::kCols, j1 = std::min(q1 * S::kCols, job.n);
  for (int64_t i = p0 * Rows; i < std::min(p1 * Rows, job.m); ++i) {
    if (!simd::any_nan(job.out + i * job.ld + j0, j1 - j0)) continue;
    for (int64_t j = j0; j < j1; ++j) {
      A& result = job.out[i * job.ld + j];
      if (result == result) continue;  // not NaN
      const A* lp = job.lhs + i * job.lda;
      const A* rp = job.rhs + (j / S::kCols) * job.k * S::kCols + j % S::kCols;
      A acc = A(0);
      for (int64_t kk = 0; kk < job.k; ++kk) acc = add_term(acc, lp[kk], rp[kk * S::kCols]);
      result = acc;
    }
  }
}

// Work item `item` of `job`: row panels [p0, p1) x column panels [q0, q1).
// spec/ops/matmul.md: "Blocking for cache is allowed, reordering the sum of one element is not":
// k blocks ascending outermost, so each result's sum runs kk = 0..k-1 in order across blocks.
template <typename A, int Rows>
PLUMB_REF_INLINE void run_item(const Contraction<A>& job, int64_t item) {
  using S = TileShape<A, Rows>;
  const int64_t col_blocks = (S::col_panels(job.n) + S::kColPanels - 1) / S::kColPanels;
  const int64_t p0 = item / col_blocks * S::kRowPanels, q0 = item % col_blocks * S::kColPanels;
  const int64_t p1 = std::min(p0 + S::kRowPanels, S::row_panels(job.m));
  const int64_t q1 = std::min(q0 + S::kColPanels, S::col_panels(job.n));
  if (job.k == 0) {  // every result is +0
    for (int64_t i = p0 * Rows; i < std::min(p1 * Rows, job.m); ++i)
      for (int64_t j = q0 * S::kCols; j < std::min(q1 * S::kCols, job.n); ++j) job.out[i * job.ld + j] = A(0);
    return;
  }
  for (int64_t k0 = 0; k0 < job.k; k0 += S::kDepth) {
    const int64_t kc = std::min(S::kDepth, job.k - k0);
    for (int64_t q = q0; q < q1; ++q) {  // one rhs panel block stays in L1 across the row panels
      const A* rp = job.rhs + (q * job.k + k0) * S::kCols;
      const int cols = static_cast<int>(std::min<int64_t>(S::kCols, job.n - q * S::kCols));
      for (int64_t p = p0; p < p1; ++p) {
        const A* lp[Rows];
        for (int r = 0; r < Rows; ++r) lp[r] = job.lhs + std::min(p * Rows + r, job.m - 1) * job.lda + k0;
        const int rows = static_cast<int>(std::min<int64_t>(Rows, job.m - p * Rows));
        tile<A, Rows>(kc, lp, rp, job.out + p * Rows * job.ld + q * S::kCols, job.ld, rows, cols, k0 == 0);
      }
    }
  }
  if constexpr (std::is_floating_point_v<A>) redo_nan_results<A, Rows>(job, p0, p1, q0, q1);
}

template <typename A, int Rows>
PLUMB_REF_INLINE void run_items(const Contraction<A>* jobs, const int64_t* first, size_t njobs, int64_t begin,
                                int64_t end) {
  size_t j = static_cast<size_t>(std::upper_bound(first, first + njobs + 1, begin) - first) - 1;
  for (int64_t it = begin; it < end; ++it) {
    while (it >= first[j + 1]) ++j;
    run_item<A, Rows>(jobs[j], it - first[j]);
  }
}

#if PLUMB_REF_AVX2
template <typename A, int Rows>
PLUMB_REF_TARGET_AVX2 void run_items_avx2(const Contraction<A>* jobs, const int64_t* first, size_t njobs,
                                          int64_t begin, int64_t end) {
  run_items<A, Rows>(jobs, first, njobs, begin, end);
}
#endif

template <typename A, int Rows>
void run_items_portable(const Contraction<A>* jobs, const int64_t* first, size_t njobs, int64_t begin,
                        int64_t end) {
  run_items<A, Rows>(jobs, first, njobs, begin, end);
}

}  // namespace contract_detail

// Runs jobs[0, njobs) (independent contractions: a batch of matmuls, conv's groups) on up to
// `threads` threads; the results are the same bits for any `threads`. `first` is the caller's
// scratch of njobs + 1 entries (each job's first work item).
template <typename A, int Rows>
void contract(const Contraction<A>* jobs, size_t njobs, int64_t* first, int threads) {
  using S = TileShape<A, Rows>;
  first[0] = 0;
  double flops = 0;
  for (size_t j = 0; j < njobs; ++j) {
    const Contraction<A>& c = jobs[j];
    const int64_t items = c.m == 0 || c.n == 0
                              ? 0
                              : (S::row_panels(c.m) + S::kRowPanels - 1) / S::kRowPanels *
                                    ((S::col_panels(c.n) + S::kColPanels - 1) / S::kColPanels);
    first[j + 1] = first[j] + items;
    flops += 2.0 * static_cast<double>(c.m) * static_cast<double>(c.n) * static_cast<double>(c.k);
  }
  const int64_t items = first[njobs];
  if (items == 0) return;
  // A thread is worth starting for about 4 MFLOP of work (tens of microseconds).
  const double per_item = std::max(1.0, flops / static_cast<double>(items));
  const auto min_items = static_cast<int64_t>(std::max(1.0, 4e6 / per_item));
  [[maybe_unused]] const bool avx2 = simd::has_avx2();
  parallel_for(threads, items, min_items, [&](int64_t begin, int64_t end) {
#if PLUMB_REF_AVX2
    if (avx2) return contract_detail::run_items_avx2<A, Rows>(jobs, first, njobs, begin, end);
#endif
    contract_detail::run_items_portable<A, Rows>(jobs, first, njobs, begin, end);
  });
}

}  // namespace plumb::rt::ref
