// ref's matmul and conv kernels as they were before issue 17 (main at f3e2b4c), kept verbatim
// as the baseline that the blocked, threaded kernels must equal bit for bit: the bench
// (bench/ref_ops_bench.cpp runs both in one program), the unit test
// (tests/ref_bits/ref_bits_test.cpp) and the "baseline" backend of plumb_testbackend
// (tests/ref_bits/baseline_backend.h, tests/ref_bits/ref_bits.sh). Never shipped.
// spec/ops/conv.md: result[n, o, e..] = sum over c (ascending), then kernel positions k.. (row-major)
// of input[n, g*Cg + c, i..] * weight[o, c, k..], where each input position
// p = e*stride + k*dilation - pad_low lies on the lhs-dilated input (0 <= p < (D-1)*lhs_dilation+1,
// p % lhs_dilation == 0, i = p / lhs_dilation); other positions (padding, holes) add no term.
// Direct loops: for each (n, o) a plane of accumulators; for each (c, tap) a pass over the plane,
// so each result element still receives its terms in the spec's order.
#include <algorithm>
#include <vector>

#include "runtime/cpu/ref/accumulate.h"
#include "runtime/cpu/ref/index.h"
#include "runtime/cpu/ref/kernel.h"
#include "tests/ref_baseline/baseline_kernels.h"

namespace plumb::rt::ref_baseline {
using namespace plumb::rt::ref;

namespace {

struct ConvGeometry {
  int64_t ns = 0;                   // spatial dims
  std::vector<int64_t> in, k, out;  // spatial sizes of input, kernel, result
  std::vector<int64_t> stride, dil, ldil, pad_lo;
  std::vector<int64_t> in_strides;  // row-major strides of one input plane
  int64_t in_plane = 1, k_plane = 1, out_plane = 1;
};

// Input index along spatial dim d for result index e and kernel index kd, or -1 when that position
// is padding or a hole of the lhs dilation.
inline int64_t input_index(const ConvGeometry& g, int64_t d, int64_t e, int64_t kd) {
  const int64_t p = e * g.stride[d] + kd * g.dil[d] - g.pad_lo[d];
  if (p < 0 || p % g.ldil[d] != 0) return -1;
  const int64_t i = p / g.ldil[d];
  return i < g.in[d] ? i : -1;
}

// acc[e..] += plane[i(e, tap)..] * w for every result position whose input position is real.
// `e` (ns - 1 entries) is the caller's, so that no call allocates it.
template <typename A>
void accumulate_tap(const ConvGeometry& g, const std::vector<int64_t>& tap, const A* __restrict plane, A w,
                    A* __restrict acc, std::vector<int64_t>& e) {
  const int64_t last = g.ns - 1;
  const int64_t e_len = g.out[last];
  const int64_t s = g.stride[last], ld = g.ldil[last];
  const int64_t base = tap[last] * g.dil[last] - g.pad_lo[last];  // p = e*s + base
  // Result range along the last dim whose input position is inside [0, dilated extent).
  const int64_t dilated = (g.in[last] - 1) * ld + 1;
  int64_t e_lo = base >= 0 ? 0 : (-base + s - 1) / s;
  int64_t e_hi =
      g.in[last] == 0 || dilated - 1 - base < 0 ? -1 : std::min(e_len - 1, (dilated - 1 - base) / s);
  std::fill(e.begin(), e.end(), 0);  // index over the outer result dims
  const int64_t rows = g.out_plane / std::max<int64_t>(e_len, 1);
  for (int64_t row = 0; row < rows; ++row) {
    int64_t off = 0;
    bool real = true;
    for (int64_t d = 0; d < last && real; ++d) {
      const int64_t i = input_index(g, d, e[d], tap[d]);
      real = i >= 0;
      off += i * g.in_strides[d];
    }
    if (real) {
      const A* __restrict in_row = plane + off;
      A* __restrict acc_row = acc + row * e_len;
      if (ld == 1 && s == 1) {
        for (int64_t x = e_lo; x <= e_hi; ++x) acc_row[x] += in_row[x + base] * w;
      } else if (ld == 1) {
        for (int64_t x = e_lo; x <= e_hi; ++x) acc_row[x] += in_row[x * s + base] * w;
      } else {
        for (int64_t x = e_lo; x <= e_hi; ++x) {
          const int64_t p = x * s + base;
          if (p % ld == 0) acc_row[x] += in_row[p / ld] * w;
        }
      }
    }
    for (int64_t d = last - 1; d >= 0; --d) {  // next outer index, row-major
      if (++e[d] < g.out[d]) break;
      e[d] = 0;
    }
  }
}

template <typename A>
void conv_typed(const Tensor& input, const Tensor& weight, Tensor& result, const ConvGeometry& g,
                int64_t groups) {
  const int64_t batch = input.shape[0], c_all = input.shape[1], o_all = weight.shape[0];
  const int64_t cg = c_all / groups, og = o_all / groups;
  const Widened<A> in(input), wt(weight);
  std::vector<A> acc(static_cast<size_t>(g.out_plane));
  std::vector<int64_t> tap(static_cast<size_t>(g.ns)), e(static_cast<size_t>(g.ns - 1));
  for (int64_t nn = 0; nn < batch; ++nn) {
    for (int64_t o = 0; o < o_all; ++o) {
      const int64_t grp = o / og;
      std::fill(acc.begin(), acc.end(), A(0));
      for (int64_t c = 0; c < cg; ++c) {
        const A* plane = in.data() + (nn * c_all + grp * cg + c) * g.in_plane;
        const A* w = wt.data() + (o * cg + c) * g.k_plane;
        std::fill(tap.begin(), tap.end(), 0);
        for (int64_t t = 0; t < g.k_plane; ++t) {
          accumulate_tap<A>(g, tap, plane, w[t], acc.data(), e);
          for (int64_t d = g.ns - 1; d >= 0; --d) {  // next kernel position, row-major
            if (++tap[d] < g.k[d]) break;
            tap[d] = 0;
          }
        }
      }
      store_from<A>(acc.data(), g.out_plane, result, (nn * o_all + o) * g.out_plane);
    }
  }
}

}  // namespace

Status conv(ref::KernelCtx& cx) {
  const Tensor& input = cx.inputs[0]->tensor();
  const Tensor& weight = cx.inputs[1]->tensor();
  Tensor& result = cx.outputs[0]->tensor();
  const ir::Node& n = cx.node;
  ConvGeometry g;
  g.ns = input.rank() - 2;
  if (g.ns < 1 || weight.rank() != input.rank() || result.rank() != input.rank())
    return internal_error("conv: unverified operand ranks");
  g.in.assign(input.shape.begin() + 2, input.shape.end());
  g.k.assign(weight.shape.begin() + 2, weight.shape.end());
  g.out.assign(result.shape.begin() + 2, result.shape.end());
  g.stride = ir::attrs<ir::Op::Conv>(n).strides;
  g.dil = ir::attrs<ir::Op::Conv>(n).dilations;
  g.ldil = ir::attrs<ir::Op::Conv>(n).lhs_dilations;
  g.pad_lo = ir::attrs<ir::Op::Conv>(n).pads_low;
  g.in_strides = to_vector(row_major_strides(g.in));
  g.in_plane = num_elements(g.in);
  g.k_plane = num_elements(g.k);
  g.out_plane = num_elements(g.out);
  const int64_t groups = ir::attrs<ir::Op::Conv>(n).groups;
  if (result.numel() == 0) return Status::ok();
  if (ir::is_float(result.dtype)) {
    if (input.dtype == ir::DType::F64 || result.dtype == ir::DType::F64)
      conv_typed<double>(input, weight, result, g, groups);
    else
      conv_typed<float>(input, weight, result, g, groups);
  } else if (ir::dtype_bits(result.dtype) == 64) {
    conv_typed<uint64_t>(input, weight, result, g, groups);
  } else {
    conv_typed<uint32_t>(input, weight, result, g, groups);
  }
  return Status::ok();
}

}  // namespace plumb::rt::ref_baseline
