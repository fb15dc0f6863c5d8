// Device-side element codecs of the cuda backend's kernels: how a dtype's storage is read into
// its compute type and rounded back once (spec/numerics.md "Narrow floats": f16/bf16 compute in
// f32 and round to nearest even; f32/f64 compute in themselves; integers in their own width,
// through the unsigned type so that wrapping is defined). Included by the .cu files only.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "ir/dtype.h"
#include "runtime/cuda/index_math.h"

namespace plumb::rt::cuda {

template <typename S, typename C>
struct PlainCodec {
  using Storage = S;
  using Compute = C;
  static __device__ C load(S s) { return static_cast<C>(s); }
  static __device__ S store(C c) { return static_cast<S>(c); }
};

struct F16Codec {
  using Storage = uint16_t;
  using Compute = float;
  static __device__ float load(uint16_t s) { return __half2float(__ushort_as_half(s)); }
  static __device__ uint16_t store(float c) { return __half_as_ushort(__float2half_rn(c)); }
};

struct BF16Codec {
  using Storage = uint16_t;
  using Compute = float;
  static __device__ float load(uint16_t s) { return __bfloat162float(__ushort_as_bfloat16(s)); }
  static __device__ uint16_t store(float c) { return __bfloat16_as_ushort(__float2bfloat16_rn(c)); }
};

using F32Codec = PlainCodec<float, float>;
using F64Codec = PlainCodec<double, double>;

// Calls f(Codec{}) for a float dtype the backend computes in (f16, bf16, f32, f64); false for
// any other dtype.
template <typename F>
bool visit_float(ir::DType dt, F&& f) {
  switch (dt) {
    case ir::DType::F16: f(F16Codec{}); return true;
    case ir::DType::BF16: f(BF16Codec{}); return true;
    case ir::DType::F32: f(F32Codec{}); return true;
    case ir::DType::F64: f(F64Codec{}); return true;
    default: return false;
  }
}

// Calls f(T{}) with the storage type of an 8- to 64-bit integer dtype; false otherwise.
template <typename F>
bool visit_int(ir::DType dt, F&& f) {
  switch (dt) {
    case ir::DType::I8: f(int8_t{}); return true;
    case ir::DType::I16: f(int16_t{}); return true;
    case ir::DType::I32: f(int32_t{}); return true;
    case ir::DType::I64: f(int64_t{}); return true;
    case ir::DType::U8: f(uint8_t{}); return true;
    case ir::DType::U16: f(uint16_t{}); return true;
    case ir::DType::U32: f(uint32_t{}); return true;
    case ir::DType::U64: f(uint64_t{}); return true;
    default: return false;
  }
}

// A grid-stride loop over [0, n).
#define PLUMB_CUDA_FOR(i, n)                                                             \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

// Launches kernel<<<plan_launch(n)>>> on s; an empty n launches nothing.
template <typename... KArgs, typename... Args>
cudaError_t launch_1d(void (*kernel)(KArgs...), int64_t n, cudaStream_t s, Args... args) {
  if (n <= 0) return cudaSuccess;
  const Launch l = plan_launch(n);
  kernel<<<l.blocks, l.threads, 0, s>>>(args...);
  return cudaGetLastError();
}

}  // namespace plumb::rt::cuda
