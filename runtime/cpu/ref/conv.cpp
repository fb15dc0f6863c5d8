// spec/ops/conv.md: result[n, o, e..] = sum over c (ascending), then kernel positions k.. (row-major)
// of input[n, g*Cg + c, i..] * weight[o, c, k..], where each input position
// p = e*stride + k*dilation - pad_low lies on the lhs-dilated input (0 <= p < (D-1)*lhs_dilation+1,
// p % lhs_dilation == 0, i = p / lhs_dilation); other positions (padding, holes) add no term.
// Two loop nests: conv_tiled (a contraction per batch and group over an im2col matrix: register
// tiles, threads) and conv_direct (a row of results in SIMD lanes: few output channels per group,
// as depthwise convolutions, or weights with an inf or NaN); each result element receives its
// terms in the spec's order in both.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "ir/attr_ref.h"
#include "runtime/cpu/ref/accumulate.h"
#include "runtime/cpu/ref/contract.h"
#include "runtime/cpu/ref/index.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cpu/ref/parallel.h"
#include "runtime/cpu/ref/scratch.h"
#include "runtime/cpu/ref/simd.h"

namespace plumb::rt::ref {

namespace {

struct ConvGeometry {
  int64_t ns = 0;   // spatial dims
  Dims in, k, out;  // spatial sizes of input, kernel, result
  const int64_t *stride = nullptr, *dil = nullptr, *ldil = nullptr,
                *pad_lo = nullptr;  // the node's attributes
  Dims in_strides;                  // row-major strides of one input plane
  int64_t in_plane = 1, k_plane = 1, out_plane = 1;
  int64_t batch = 0, c_all = 0, o_all = 0, groups = 1;
};

// The geometry of conv node `n` with these operand and result shapes (ranks checked by the caller).
ConvGeometry conv_geometry(const ir::Node& n, const std::vector<int64_t>& input,
                           const std::vector<int64_t>& weight, const std::vector<int64_t>& result) {
  ConvGeometry g;
  g.ns = static_cast<int64_t>(input.size()) - 2;
  g.in.assign(input.data() + 2, input.data() + input.size());
  g.k.assign(weight.data() + 2, weight.data() + weight.size());
  g.out.assign(result.data() + 2, result.data() + result.size());
  g.stride = ir::attr(n, &ir::ConvAttrs::strides).data();
  g.dil = ir::attr(n, &ir::ConvAttrs::dilations).data();
  g.ldil = ir::attr(n, &ir::ConvAttrs::lhs_dilations).data();
  g.pad_lo = ir::attr(n, &ir::ConvAttrs::pads_low).data();
  g.in_strides = row_major_strides(g.in);
  g.in_plane = num_elements(g.in);
  g.k_plane = num_elements(g.k);
  g.out_plane = num_elements(g.out);
  g.batch = input[0];
  g.c_all = input[1];
  g.o_all = weight[0];
  g.groups = ir::attr(n, &ir::ConvAttrs::groups);
  return g;
}

// Input index along spatial dim d for result index e and kernel index kd, or -1 when that position
// is padding or a hole of the lhs dilation.
inline int64_t input_index(const ConvGeometry& g, int64_t d, int64_t e, int64_t kd) {
  const int64_t p = e * g.stride[d] + kd * g.dil[d] - g.pad_lo[d];
  if (p < 0 || p % g.ldil[d] != 0) return -1;
  const int64_t i = p / g.ldil[d];
  return i < g.in[d] ? i : -1;
}

// The last spatial dim at one kernel position: result x reads input position p = x * s + base
// (in the lhs-dilated input), and the results [lo, hi) are those whose p lies inside it.
struct TapSpan {
  int64_t s = 1, ld = 1, base = 0, lo = 0, hi = 0;
};

inline TapSpan tap_span(const ConvGeometry& g, const Dims& tap) {
  const int64_t last = g.ns - 1, e_len = g.out[last];
  TapSpan t;
  t.s = g.stride[last];
  t.ld = g.ldil[last];
  t.base = tap[last] * g.dil[last] - g.pad_lo[last];
  const int64_t dilated = (g.in[last] - 1) * t.ld + 1;
  t.lo = std::min(e_len, t.base >= 0 ? 0 : (-t.base + t.s - 1) / t.s);
  t.hi = g.in[last] == 0 || dilated - 1 - t.base < 0
             ? t.lo
             : std::max(t.lo, std::min(e_len - 1, (dilated - 1 - t.base) / t.s) + 1);
  return t;
}

// fn(row, off) for every row of result positions (the outer result dims, row-major): `off` is the
// offset, in one input plane, of the input row it reads at kernel position `tap`, or -1 where that
// row is padding or a hole. `e` (ns - 1 entries) is the caller's, so that no call allocates it.
template <typename F>
void for_each_row(const ConvGeometry& g, const Dims& tap, Dims& e, F fn) {
  const int64_t last = g.ns - 1;
  std::fill(e.begin(), e.end(), 0);
  const int64_t rows = g.out_plane / std::max<int64_t>(g.out[last], 1);
  for (int64_t row = 0; row < rows; ++row) {
    int64_t off = 0;
    bool real = true;
    for (int64_t d = 0; d < last && real; ++d) {
      const int64_t i = input_index(g, d, e[d], tap[d]);
      real = i >= 0;
      off += i * g.in_strides[d];
    }
    fn(row, real ? off : int64_t{-1});
    for (int64_t d = last - 1; d >= 0; --d) {  // next outer index, row-major
      if (++e[d] < g.out[d]) break;
      e[d] = 0;
    }
  }
}

// Per kernel position t (row-major): its span over the last result dim, and for each row of
// results (the outer result dims, row-major) the offset in one input plane of the input row it
// reads there, or -1 where that row is padding or a hole: offset[row * taps + t].
struct TapRows {
  TapSpan* span = nullptr;    // [k_plane]
  int64_t* offset = nullptr;  // [rows * k_plane]
};

template <typename Taker>
TapRows tap_rows_buffers(Taker& s, const ConvGeometry& g) {
  const int64_t rows = g.out_plane / std::max<int64_t>(g.out[g.ns - 1], 1);
  TapRows r;
  r.span = s.template take<TapSpan>(g.k_plane);
  r.offset = s.template take<int64_t>(rows * g.k_plane);
  return r;
}

TapRows tap_rows(const ConvGeometry& g, Scratch& s) {
  TapRows r = tap_rows_buffers(s, g);
  Dims tap(static_cast<size_t>(g.ns)), e(static_cast<size_t>(g.ns - 1));
  for (int64_t t = 0; t < g.k_plane; ++t) {
    r.span[static_cast<size_t>(t)] = tap_span(g, tap);
    for_each_row(g, tap, e,
                 [&](int64_t row, int64_t off) { r.offset[static_cast<size_t>(row * g.k_plane + t)] = off; });
    for (int64_t d = g.ns - 1; d >= 0; --d) {  // next kernel position, row-major
      if (++tap[d] < g.k[d]) break;
      tap[d] = 0;
    }
  }
  return r;
}

// acc[x] = acc[x] + w * in_row[p(x)] for the results x of one row whose input position p is real.
template <typename A>
PLUMB_REF_INLINE void add_terms(A* __restrict acc, A w, const A* __restrict in_row, const TapSpan& t) {
  if (t.ld == 1 && t.s == 1) {
    const A* src = in_row + t.base;
    PLUMB_REF_SIMD_LOOP
    for (int64_t x = t.lo; x < t.hi; ++x) acc[x] = acc[x] + w * src[x];
  } else if (t.ld == 1) {
    PLUMB_REF_SIMD_LOOP
    for (int64_t x = t.lo; x < t.hi; ++x) acc[x] = acc[x] + w * in_row[x * t.s + t.base];
  } else {
    for (int64_t x = t.lo; x < t.hi; ++x) {
      const int64_t p = x * t.s + t.base;
      if (p % t.ld == 0) acc[x] = acc[x] + w * in_row[p / t.ld];
    }
  }
}

// spec/ops/conv.md, the same loops, direct: "for (c = 0; c < Cg; c++) for_each(k in [K1..Kn],
// row-major) { ... acc = acc + acc_t(input[b, g * Cg + c, i]) * acc_t(weight[o, c, k]) }" with
// one row of results (b, o and the outer result dims fixed) in SIMD lanes: for each (c, k), one
// pass adds the term of every result of the row whose input position is real, so each result
// receives exactly its terms in the spec's order; padding and holes add none, so weights with an
// inf or NaN are exact here. For few output channels per group (depthwise convolutions: one),
// where conv_tiled's tiles would be mostly empty, and for non-finite weights. Rows are the work
// items of the threads.
template <typename A>
void conv_direct(const A* in, const A* wt, A* out, const ConvGeometry& g, int threads, Scratch& scratch) {
  const int64_t batch = g.batch, c_all = g.c_all, o_all = g.o_all, groups = g.groups;
  const int64_t cg = c_all / groups, og = o_all / groups;
  const int64_t e_len = g.out[g.ns - 1], rows = g.out_plane / std::max<int64_t>(e_len, 1);
  const TapRows tr = tap_rows(g, scratch);
  // The term of result x of `row` for (c, t), or false where its input position is not real.
  auto term = [&](const A* plane, int64_t row, int64_t t, int64_t x, A* value) {
    const int64_t off = tr.offset[static_cast<size_t>(row * g.k_plane + t)];
    const TapSpan& sp = tr.span[static_cast<size_t>(t)];
    const int64_t p = x * sp.s + sp.base;
    if (off < 0 || x < sp.lo || x >= sp.hi || p % sp.ld != 0) return false;
    *value = plane[off + p / sp.ld];
    return true;
  };
  const int64_t terms_per_row = std::max<int64_t>(1, cg * g.k_plane * e_len);
  parallel_for(threads, batch * o_all * rows, std::max<int64_t>(1, (int64_t{1} << 18) / terms_per_row),
               [&](int64_t begin, int64_t end) {
                 simd::with_widest([&] {
                   for (int64_t item = begin; item < end; ++item) {
                     const int64_t plane_out = item / rows, row = item % rows;  // plane_out = nn * o_all + o
                     const int64_t nn = plane_out / o_all, o = plane_out % o_all, grp = o / og;
                     const A* planes = in + (nn * c_all + grp * cg) * g.in_plane;
                     const A* w = wt + o * cg * g.k_plane;
                     A* acc = out + plane_out * g.out_plane + row * e_len;
                     std::fill(acc, acc + e_len, A(0));
                     for (int64_t c = 0; c < cg; ++c)
                       for (int64_t t = 0; t < g.k_plane; ++t) {
                         const int64_t off = tr.offset[static_cast<size_t>(row * g.k_plane + t)];
                         if (off >= 0)
                           add_terms(acc, w[c * g.k_plane + t], planes + c * g.in_plane + off,
                                     tr.span[static_cast<size_t>(t)]);
                       }
                     // A NaN result again, term by term with add_term (contract.h: the old kernel's NaN).
                     if constexpr (std::is_floating_point_v<A>) {
                       if (!simd::any_nan(acc, e_len)) continue;
                       for (int64_t x = 0; x < e_len; ++x) {
                         if (acc[x] == acc[x]) continue;
                         A sum = A(0), v = A(0);
                         for (int64_t c = 0; c < cg; ++c)
                           for (int64_t t = 0; t < g.k_plane; ++t)
                             if (term(planes + c * g.in_plane, row, t, x, &v))
                               sum = add_term(sum, w[c * g.k_plane + t], v);
                         acc[x] = sum;
                       }
                     }
                   }
                 });
               });
}

// col[e] = input[i(e, tap)] for every result position e whose input position is real, 0 for the
// others (padding, holes).
template <typename A>
void gather_tap(const ConvGeometry& g, const Dims& tap, const A* __restrict plane, A* __restrict col,
                Dims& e) {
  const TapSpan t = tap_span(g, tap);
  const int64_t e_len = g.out[g.ns - 1];
  for_each_row(g, tap, e, [&](int64_t row, int64_t off) {
    A* col_row = col + row * e_len;
    if (off < 0) {
      std::fill(col_row, col_row + e_len, A(0));
      return;
    }
    const A* in_row = plane + off;
    std::fill(col_row, col_row + t.lo, A(0));
    std::fill(col_row + t.hi, col_row + e_len, A(0));
    if (t.ld == 1 && t.s == 1) {
      std::copy(in_row + t.lo + t.base, in_row + t.hi + t.base, col_row + t.lo);
    } else if (t.ld == 1) {
      for (int64_t x = t.lo; x < t.hi; ++x) col_row[x] = in_row[x * t.s + t.base];
    } else {
      for (int64_t x = t.lo; x < t.hi; ++x) {
        const int64_t p = x * t.s + t.base;
        col_row[x] = p % t.ld == 0 ? in_row[p / t.ld] : A(0);
      }
    }
  });
}

// spec/ops/conv.md: "for (c = 0; c < Cg; c++) for_each(k in [K1..Kn], row-major) { ...
// acc = acc + acc_t(input[b, g * Cg + c, i]) * acc_t(weight[o, c, k]) }": per (batch, group) a
// contraction (runtime/cpu/ref/contract.h) of the weight rows [Og][Cg * taps] with the im2col
// matrix [Cg * taps][E], whose row kk = c * taps + tap runs in exactly that order. A skipped
// position (padding, a hole) is a 0 in the im2col matrix: acc + 0 * w == acc bit for bit when w
// is finite (the accumulator is never -0), so the caller sends weights with an inf or NaN to
// conv_direct instead.
// conv_tiled's temporaries (from `s`: Scratch at run time, ScratchSize at plan time).
template <typename A>
struct TiledBuffers {
  A* rhs_packed = nullptr;  // [groups][rhs_size]
  Contraction<A>* jobs = nullptr;
  int64_t* first = nullptr;
  A* rows = nullptr;  // im2col rows: kChunk * n per range of the threads (none when pointwise)
};

constexpr int64_t kChunk = 16;  // im2col rows gathered at a time

bool is_pointwise(const ConvGeometry& g) {
  bool pointwise = g.k_plane == 1;  // 1x1, stride 1, no padding or holes: result e reads input e
  for (int64_t d = 0; d < g.ns; ++d)
    pointwise = pointwise && g.stride[d] == 1 && g.ldil[d] == 1 && g.pad_lo[d] == 0 && g.in[d] == g.out[d];
  return pointwise;
}

// Items and the least items per thread of conv_tiled's im2col loop.
int64_t im2col_items(const ConvGeometry& g) { return g.groups * (g.c_all / g.groups) * g.k_plane; }
int64_t im2col_min_items(const ConvGeometry& g) {
  return std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(1, g.out_plane));
}

template <typename A, int Rows, typename Taker>
TiledBuffers<A> tiled_buffers(Taker& s, const ConvGeometry& g, int threads) {
  using S = TileShape<A, Rows>;
  const int64_t k = g.c_all / g.groups * g.k_plane, n = g.out_plane;
  TiledBuffers<A> b;
  b.rhs_packed = s.template take<A>(g.groups * S::col_panels(n) * S::kCols * k);
  b.jobs = s.template take<Contraction<A>>(g.groups);
  b.first = s.template take<int64_t>(g.groups + 1);
  if (!is_pointwise(g))
    b.rows = s.template take<A>(parallel_ranges(threads, im2col_items(g), im2col_min_items(g)) * kChunk * n);
  return b;
}

template <typename A, int Rows>
void conv_tiled(const A* in, const A* wt, A* out, const ConvGeometry& g, int threads, Scratch& scratch) {
  using S = TileShape<A, Rows>;
  const int64_t batch = g.batch, c_all = g.c_all, o_all = g.o_all, groups = g.groups;
  const int64_t cg = c_all / groups, og = o_all / groups;
  const int64_t k = cg * g.k_plane, n = g.out_plane;
  const int64_t rhs_size = S::col_panels(n) * S::kCols * k;
  const TiledBuffers<A> buf = tiled_buffers<A, Rows>(scratch, g, threads);
  A* const rhs_packed = buf.rhs_packed;
  const bool pointwise = is_pointwise(g);
  for (int64_t nn = 0; nn < batch; ++nn) {
    // im2col, packed into rhs panels, 16 rows (channel, tap) at a time, so that each panel gets
    // 16 consecutive rows of its [k][kCols] in one go; the rows are independent.
    parallel_for_ranges(
        threads, im2col_items(g), im2col_min_items(g), [&](int64_t range, int64_t r0, int64_t r1) {
          A* rows = pointwise ? nullptr : buf.rows + range * kChunk * n;
          Dims tap(static_cast<size_t>(g.ns)), e(static_cast<size_t>(g.ns - 1));
          for (int64_t r = r0; r < r1; r += kChunk) {
            const int64_t count = std::min(kChunk, r1 - r);
            for (int64_t i = 0; i < count; ++i) {
              const int64_t grp = (r + i) / k, kk = (r + i) % k, c = kk / g.k_plane;
              int64_t t = kk % g.k_plane;
              for (int64_t d = g.ns - 1; d >= 0; --d) {  // tap index t, row-major
                tap[static_cast<size_t>(d)] = t % g.k[static_cast<size_t>(d)];
                t /= g.k[static_cast<size_t>(d)];
              }
              if (!pointwise)
                gather_tap<A>(g, tap, in + (nn * c_all + grp * cg + c) * g.in_plane, rows + i * n, e);
            }
            for (int64_t q = 0; q < S::col_panels(n); ++q) {
              const int64_t j0 = q * S::kCols, cols = std::min<int64_t>(S::kCols, n - j0);
              for (int64_t i = 0; i < count; ++i) {
                const int64_t grp = (r + i) / k, kk = (r + i) % k;
                A* dst = rhs_packed + grp * rhs_size + (q * k + kk) * S::kCols;
                // A pointwise conv's im2col row is the input plane itself.
                const A* src =
                    pointwise ? in + (nn * c_all + grp * cg + kk) * g.in_plane + j0 : rows + i * n + j0;
                if (cols == S::kCols) {
                  // memcpy: one vector copy (the loop, whose src and dst might alias for all GCC
                  // knows, was copied one element at a time)
                  std::memcpy(dst, src, sizeof(A) * S::kCols);
                } else {
                  for (int c = 0; c < S::kCols; ++c) dst[c] = c < cols ? src[c] : A(0);
                }
              }
            }
          }
        });
    for (int64_t grp = 0; grp < groups; ++grp)
      buf.jobs[grp] = Contraction<A>{
          og, n, k, wt + grp * og * k, k, rhs_packed + grp * rhs_size, out + (nn * o_all + grp * og) * n, n};
    contract<A, Rows>(buf.jobs, static_cast<size_t>(groups), buf.first, threads);
  }
}

template <typename A>
bool all_finite(const A* p, int64_t n) {
  if constexpr (std::is_floating_point_v<A>) {
    bool finite = true;
    simd::with_widest([&] { finite = !simd::any_nan_or_inf(p, n); });
    return finite;
  }
  return true;
}

// The temporaries both loop nests share: the operands widened to A (where they are not A), the
// accumulators (where the result is not A).
template <typename A>
struct ConvBuffers {
  A* in = nullptr;
  A* wt = nullptr;
  A* out = nullptr;
};

template <typename A, typename Taker>
ConvBuffers<A> conv_buffers(Taker& s, const ConvGeometry& g, ir::DType input, ir::DType weight,
                            ir::DType result) {
  ConvBuffers<A> b;
  if (!is_acc_dtype<A>(input)) b.in = s.template take<A>(g.batch * g.c_all * g.in_plane);
  if (!is_acc_dtype<A>(weight)) b.wt = s.template take<A>(g.o_all * (g.c_all / g.groups) * g.k_plane);
  if (!is_acc_dtype<A>(result)) b.out = s.template take<A>(g.batch * g.o_all * g.out_plane);
  return b;
}

template <typename A>
void conv_typed(const Tensor& input, const Tensor& weight, Tensor& result, const ConvGeometry& g, int threads,
                Scratch& scratch) {
  const ConvBuffers<A> buf = conv_buffers<A>(scratch, g, input.dtype, weight.dtype, result.dtype);
  const A* in = widened<A>(input, buf.in);
  const A* wt = widened<A>(weight, buf.wt);
  // The accumulators: the result itself when it has the accumulator's type, else a buffer.
  const bool in_place = buf.out == nullptr;
  A* out = in_place ? result.as<A>() : buf.out;
#if PLUMB_REF_COMPACT
  // The compact build (issue 18) has the direct loops only: exact for any weights, and for finite
  // ones the same bits as conv_tiled's (which adds the padding's zeros too: a sum that starts at
  // +0 is not changed by them).
  conv_direct<A>(in, wt, out, g, threads, scratch);
#else
  if (!all_finite(wt, weight.numel()) || g.o_all / g.groups < 4)
    conv_direct<A>(in, wt, out, g, threads, scratch);
  else
    conv_tiled<A, 4>(in, wt, out, g, threads, scratch);
#endif
  if (!in_place) store_from<A>(out, result.numel(), result, 0);
}

// The accumulator type of a conv with these dtypes, as a tag for `f` (dispatch.h).
struct ConvOp {
  static constexpr std::string_view name = "conv";
};
template <typename F>
void with_acc(ir::DType input, ir::DType result, F&& f) {
  with_contraction_acc<ConvOp>(input, result, std::forward<F>(f));
}

}  // namespace

template <>
Status kernel<ir::Op::Conv>(KernelCtx& cx) {
  const Tensor& input = cx.inputs[0]->tensor();
  const Tensor& weight = cx.inputs[1]->tensor();
  Tensor& result = cx.outputs[0]->tensor();
  if (input.rank() < 3 || weight.rank() != input.rank() || result.rank() != input.rank())
    return internal_error("conv: unverified operand ranks");
  if (result.numel() == 0) return Status::ok();
  const ConvGeometry g = conv_geometry(cx.node, input.shape, weight.shape, result.shape);
  Scratch scratch(cx);
  with_acc(input.dtype, result.dtype, [&](auto tag) {
    using A = decltype(tag);
    conv_typed<A>(input, weight, result, g, cx.threads, scratch);
  });
  return Status::ok();
}

// The shared buffers, then the bigger of the two loop nests' (which one runs depends on the
// weights' values).
int64_t conv_scratch_bytes(const ScratchQuery& q) {
  const ir::Type &input = *q.inputs[0], &weight = *q.inputs[1], &result = *q.outputs[0];
  if (input.shape.size() < 3 || weight.shape.size() != input.shape.size() ||
      result.shape.size() != input.shape.size())
    return 0;
  const std::vector<int64_t> out_shape = static_dims(result);
  const ConvGeometry g = conv_geometry(q.node, static_dims(input), static_dims(weight), out_shape);
  if (g.batch * g.o_all * g.out_plane == 0) return 0;
  int64_t bytes = 0;
  with_acc(input.dtype, result.dtype, [&](auto tag) {
    using A = decltype(tag);
    ScratchSize shared, direct, tiled;
    conv_buffers<A>(shared, g, input.dtype, weight.dtype, result.dtype);
    tap_rows_buffers(direct, g);
#if !PLUMB_REF_COMPACT
    tiled_buffers<A, 4>(tiled, g, q.threads);
#endif
    bytes = shared.bytes() + std::max(direct.bytes(), tiled.bytes());
  });
  return bytes;
}

}  // namespace plumb::rt::ref
