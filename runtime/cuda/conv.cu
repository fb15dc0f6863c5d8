// conv on the GPU (spec/ops/conv.md). The spec's loop (one thread per result element, channels
// first, then kernel positions row-major, each product rounded then added, padding and dilation
// holes contributing no term) for the f16/bf16/integer rows and for guarded f32 results; and, for
// f32, im2col: the input unfolded into a [groups, C/groups * prod(K), prod(E)] matrix (zeros in
// the padding) that cuBLAS multiplies by the weights (cuda_backend.cpp).
#include "runtime/cuda/device_types.cuh"
#include "runtime/cuda/kernels.h"

namespace plumb::rt::cuda {
namespace {

__global__ void conv_plain(Operand x, Operand w, ir::DType to, void* y, ConvShape s, const int* only_if) {
  if (only_if && *only_if == 0) return;
  const Window& win = s.spatial;
  const int64_t E = window_out_size(win), Kn = window_size(win), D = window_in_size(win);
  const int64_t Cg = s.channels / s.groups, Og = s.outputs / s.groups;
  const int64_t total = s.batch * s.outputs * E;
  PLUMB_CUDA_FOR(i, total) {
    const int64_t e = i % E, bo = i / E;
    const int64_t o = bo % s.outputs, b = bo / s.outputs;
    const int64_t g = o / Og;
    const int64_t xbase = (b * s.channels + g * Cg) * D, wbase = o * Cg * Kn;
    if (float_operand(x.dt)) {
      float acc = 0.0f;
      for (int64_t c = 0; c < Cg; ++c)
        for (int64_t k = 0; k < Kn; ++k) {
          const int64_t src = window_source(win, e, k);
          if (src >= 0) acc = __fadd_rn(acc, __fmul_rn(x.f(xbase + c * D + src), w.f(wbase + c * Kn + k)));
        }
      store_float_acc(y, i, to, acc);
    } else {
      uint64_t acc = 0;
      for (int64_t c = 0; c < Cg; ++c)
        for (int64_t k = 0; k < Kn; ++k) {
          const int64_t src = window_source(win, e, k);
          if (src >= 0) acc += x.u(xbase + c * D + src) * w.u(wbase + c * Kn + k);
        }
      store_int_acc(y, i, to, acc);
    }
  }
}

// col[g][c * prod(K) + k][e] for batch element b.
__global__ void im2col(const float* x, float* col, ConvShape s, int64_t b) {
  const Window& win = s.spatial;
  const int64_t E = window_out_size(win), Kn = window_size(win), D = window_in_size(win);
  const int64_t rows = s.channels * Kn;  // groups * (C / groups) * prod(K)
  const int64_t total = rows * E;
  PLUMB_CUDA_FOR(i, total) {
    const int64_t e = i % E, row = i / E;
    const int64_t k = row % Kn, ch = row / Kn;  // ch = g * Cg + c: the input channel
    const int64_t src = window_source(win, e, k);
    col[i] = src >= 0 ? x[(b * s.channels + ch) * D + src] : 0.0f;
  }
}

}  // namespace

cudaError_t launch_conv_plain(ir::DType in, ir::DType weight, ir::DType to, const void* x, const void* w,
                              void* y, const ConvShape& shape, const int* only_if, cudaStream_t s) {
  const int64_t total = shape.batch * shape.outputs * window_out_size(shape.spatial);
  return launch_1d(conv_plain, total, s, Operand{in, x}, Operand{weight, w}, to, y, shape, only_if);
}

cudaError_t launch_im2col(const float* x, float* col, const ConvShape& shape, int64_t b, cudaStream_t s) {
  const int64_t total = shape.channels * window_size(shape.spatial) * window_out_size(shape.spatial);
  return launch_1d(im2col, total, s, x, col, shape, b);
}

}  // namespace plumb::rt::cuda
