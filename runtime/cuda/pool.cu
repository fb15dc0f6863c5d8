// pool on the GPU (spec/ops/pool.md): one thread per result element walks its window in
// row-major order, as the spec's loop: max keeps the first NaN, else the first maximum with
// -0 < +0, copied bit for bit with its row-major flat index (-1 for a window wholly in the
// padding, whose value is the dtype's lowest); sum adds the real elements from +0 in the
// accumulator (f32 for f16/bf16/f32, f64, the integer's own width, wrapping).
#include <cmath>

#include "runtime/cuda/device_types.cuh"
#include "runtime/cuda/kernels.h"

namespace plumb::rt::cuda {
namespace {

template <typename Codec>
__global__ void pool_float(bool is_max, const typename Codec::Storage* x, typename Codec::Storage* y,
                           int64_t* idx, Window w) {
  using C = typename Codec::Compute;
  const int64_t E = window_out_size(w), Kn = window_size(w);
  PLUMB_CUDA_FOR(e, E) {
    if (!is_max) {
      C acc = C(0);
      for (int64_t k = 0; k < Kn; ++k) {
        const int64_t q = window_source(w, e, k);
        if (q >= 0) acc = acc + Codec::load(x[q]);
      }
      y[e] = Codec::store(acc);
      continue;
    }
    int64_t best = -1;
    C bv = C(0);
    for (int64_t k = 0; k < Kn; ++k) {
      const int64_t q = window_source(w, e, k);
      if (q < 0) continue;
      const C v = Codec::load(x[q]);
      if (best < 0 ||
          (!(bv != bv) && (v != v || v > bv || (v == 0 && bv == 0 && signbit(bv) && !signbit(v))))) {
        best = q;
        bv = v;
      }
    }
    y[e] = best >= 0 ? x[best] : Codec::store(-C(INFINITY));
    if (idx) idx[e] = best;
  }
}

template <typename T>
__global__ void pool_int(bool is_max, const T* x, T* y, int64_t* idx, Window w, T lowest) {
  using U = std::make_unsigned_t<T>;
  const int64_t E = window_out_size(w), Kn = window_size(w);
  PLUMB_CUDA_FOR(e, E) {
    if (!is_max) {
      U acc = 0;
      for (int64_t k = 0; k < Kn; ++k) {
        const int64_t q = window_source(w, e, k);
        if (q >= 0) acc = static_cast<U>(acc + static_cast<U>(x[q]));
      }
      y[e] = static_cast<T>(acc);
      continue;
    }
    int64_t best = -1;
    for (int64_t k = 0; k < Kn; ++k) {
      const int64_t q = window_source(w, e, k);
      if (q >= 0 && (best < 0 || x[q] > x[best])) best = q;
    }
    y[e] = best >= 0 ? x[best] : lowest;
    if (idx) idx[e] = best;
  }
}

}  // namespace

cudaError_t launch_pool(bool is_max, ir::DType dt, const void* x, void* y, int64_t* indices, const Window& w,
                        cudaStream_t s) {
  const int64_t E = window_out_size(w);
  cudaError_t err = cudaErrorInvalidValue;
  if (visit_float(dt, [&](auto codec) {
        using C = decltype(codec);
        using S = typename C::Storage;
        err =
            launch_1d(pool_float<C>, E, s, is_max, static_cast<const S*>(x), static_cast<S*>(y), indices, w);
      }))
    return err;
  visit_int(dt, [&](auto tag) {
    using T = decltype(tag);
    using U = std::make_unsigned_t<T>;
    const T lowest =
        std::is_signed_v<T> ? static_cast<T>(-static_cast<T>(static_cast<U>(~U(0)) >> 1) - 1) : T(0);
    err = launch_1d(pool_int<T>, E, s, is_max, static_cast<const T*>(x), static_cast<T*>(y), indices, w,
                    lowest);
  });
  return err;
}

}  // namespace plumb::rt::cuda
