// gather, kind `axis` (spec/ops/gather.md), on the GPU: result[outer, j, inner] =
// operand[outer, indices[j], inner]. gather.R1 (an index outside [0, extent)) is a runtime error
// that ref words: a first kernel checks every index (also for an empty result) and raises a
// device flag; cuda_backend.cpp reads the flag once after the gather and, when it is set, has
// ref's kernel report the error. An out-of-range index reads nothing here (its result slot gets
// zero bytes, never shown: the run fails).
#include "runtime/cuda/device_types.cuh"
#include "runtime/cuda/kernels.h"

namespace plumb::rt::cuda {
namespace {

__device__ int64_t index_at(const void* idx, bool i64, int64_t j) {
  return i64 ? static_cast<const int64_t*>(idx)[j] : static_cast<const int32_t*>(idx)[j];
}

// Every thread that finds a bad index writes 1: the same value, so the flag does not depend on
// which thread wrote last (no read-modify-write, no atomics).
__global__ void check_indices(const void* idx, bool i64, int64_t n, int64_t extent, int* flag) {
  PLUMB_CUDA_FOR(j, n) {
    const int64_t k = index_at(idx, i64, j);
    if (k < 0 || k >= extent) *flag = 1;
  }
}

template <typename T>
__global__ void gather_axis(const T* x, const void* idx, bool i64, T* y, int64_t outer, int64_t extent,
                            int64_t J, int64_t inner) {
  const int64_t n = outer * J * inner;
  PLUMB_CUDA_FOR(i, n) {
    const int64_t in = i % inner, oj = i / inner;
    const int64_t j = oj % J, o = oj / J;
    const int64_t k = index_at(idx, i64, j);
    y[i] = (k < 0 || k >= extent) ? T(0) : x[(o * extent + k) * inner + in];
  }
}

template <typename T>
cudaError_t gather_as(const void* x, const void* idx, bool i64, void* y, int64_t outer, int64_t extent,
                      int64_t J, int64_t inner, cudaStream_t s) {
  return launch_1d(gather_axis<T>, outer * J * inner, s, static_cast<const T*>(x), idx, i64,
                   static_cast<T*>(y), outer, extent, J, inner);
}

}  // namespace

cudaError_t launch_gather_axis(int elem_bytes, const void* x, const void* indices, bool indices_i64, void* y,
                               int64_t outer, int64_t extent, int64_t num_indices, int64_t inner, int* flag,
                               cudaStream_t s) {
  cudaError_t e = cudaMemsetAsync(flag, 0, sizeof(int), s);
  if (e != cudaSuccess) return e;
  e = launch_1d(check_indices, num_indices, s, indices, indices_i64, num_indices, extent, flag);
  if (e != cudaSuccess) return e;
  switch (elem_bytes) {
    case 1: return gather_as<uint8_t>(x, indices, indices_i64, y, outer, extent, num_indices, inner, s);
    case 2: return gather_as<uint16_t>(x, indices, indices_i64, y, outer, extent, num_indices, inner, s);
    case 4: return gather_as<uint32_t>(x, indices, indices_i64, y, outer, extent, num_indices, inner, s);
    case 8: return gather_as<uint64_t>(x, indices, indices_i64, y, outer, extent, num_indices, inner, s);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace plumb::rt::cuda
