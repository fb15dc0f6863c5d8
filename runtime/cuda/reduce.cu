// reduce on the GPU (spec/ops/reduce.md): one thread per result element, which walks its reduced
// elements in row-major order with one accumulator, as ref does: the same order, so the same
// bits (sum and prod are Accumulation-class, but nothing is reordered here). No atomics, no
// split reductions: deterministic run to run.
#include <cmath>

#include "runtime/cuda/device_types.cuh"
#include "runtime/cuda/kernels.h"

namespace plumb::rt::cuda {
namespace {

template <typename Codec>
__global__ void reduce_float(ir::ReduceKind k, const typename Codec::Storage* x, typename Codec::Storage* y,
                             ReducePlan p) {
  using C = typename Codec::Compute;
  const int64_t n_out = numel(p.kept), n_red = numel(p.reduced);
  PLUMB_CUDA_FOR(o, n_out) {
    const typename Codec::Storage* base = x + offset_of(p.kept, o);
    C acc;
    switch (k) {
      case ir::ReduceKind::Sum: acc = n_red > 0 ? C(-0.0) : C(0); break;  // -0 + x0 = x0
      case ir::ReduceKind::Prod: acc = C(1); break;
      case ir::ReduceKind::Max: acc = -C(INFINITY); break;
      default: acc = C(INFINITY); break;
    }
    for (int64_t r = 0; r < n_red; ++r) {
      const C v = Codec::load(base[offset_of(p.reduced, r)]);
      switch (k) {
        case ir::ReduceKind::Sum: acc = acc + v; break;
        case ir::ReduceKind::Prod: acc = acc * v; break;
        case ir::ReduceKind::Max: acc = ieee_max(acc, v); break;
        default: acc = ieee_min(acc, v); break;
      }
    }
    y[o] = Codec::store(acc);
  }
}

template <typename T>
__global__ void reduce_int(ir::ReduceKind k, const T* x, T* y, ReducePlan p, T lowest, T highest) {
  using U = std::make_unsigned_t<T>;
  const int64_t n_out = numel(p.kept), n_red = numel(p.reduced);
  PLUMB_CUDA_FOR(o, n_out) {
    const T* base = x + offset_of(p.kept, o);
    U acc = k == ir::ReduceKind::Sum    ? U(0)
            : k == ir::ReduceKind::Prod ? U(1)
            : k == ir::ReduceKind::Max  ? static_cast<U>(lowest)
                                        : static_cast<U>(highest);
    for (int64_t r = 0; r < n_red; ++r) {
      const T v = base[offset_of(p.reduced, r)];
      switch (k) {
        case ir::ReduceKind::Sum: acc = static_cast<U>(acc + static_cast<U>(v)); break;
        case ir::ReduceKind::Prod: acc = static_cast<U>(acc * static_cast<U>(v)); break;
        case ir::ReduceKind::Max: acc = v > static_cast<T>(acc) ? static_cast<U>(v) : acc; break;
        default: acc = v < static_cast<T>(acc) ? static_cast<U>(v) : acc; break;
      }
    }
    y[o] = static_cast<T>(acc);
  }
}

// bool: max is "any", min is "all".
__global__ void reduce_bool(ir::ReduceKind k, const uint8_t* x, uint8_t* y, ReducePlan p) {
  const int64_t n_out = numel(p.kept), n_red = numel(p.reduced);
  PLUMB_CUDA_FOR(o, n_out) {
    const uint8_t* base = x + offset_of(p.kept, o);
    bool acc = k != ir::ReduceKind::Max;
    for (int64_t r = 0; r < n_red; ++r) {
      const bool v = base[offset_of(p.reduced, r)] != 0;
      acc = k == ir::ReduceKind::Max ? (acc || v) : (acc && v);
    }
    y[o] = acc ? 1 : 0;
  }
}

}  // namespace

cudaError_t launch_reduce(ir::ReduceKind kind, ir::DType dt, const void* x, void* y, const ReducePlan& plan,
                          cudaStream_t s) {
  const int64_t n_out = numel(plan.kept);
  if (dt == ir::DType::Bool) {
    if (kind != ir::ReduceKind::Max && kind != ir::ReduceKind::Min) return cudaErrorInvalidValue;
    return launch_1d(reduce_bool, n_out, s, kind, static_cast<const uint8_t*>(x), static_cast<uint8_t*>(y),
                     plan);
  }
  cudaError_t err = cudaErrorInvalidValue;
  if (visit_float(dt, [&](auto codec) {
        using C = decltype(codec);
        using S = typename C::Storage;
        err = launch_1d(reduce_float<C>, n_out, s, kind, static_cast<const S*>(x), static_cast<S*>(y), plan);
      }))
    return err;
  visit_int(dt, [&](auto tag) {
    using T = decltype(tag);
    using U = std::make_unsigned_t<T>;
    const T highest =
        std::is_signed_v<T> ? static_cast<T>(static_cast<U>(~U(0)) >> 1) : static_cast<T>(~U(0));
    const T lowest = std::is_signed_v<T> ? static_cast<T>(-highest - 1) : T(0);
    err = launch_1d(reduce_int<T>, n_out, s, kind, static_cast<const T*>(x), static_cast<T*>(y), plan, lowest,
                    highest);
  });
  return err;
}

}  // namespace plumb::rt::cuda
