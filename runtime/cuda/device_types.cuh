// Device-side element codecs of the cuda backend's kernels: how a dtype's storage is read into
// its compute type and rounded back once (spec/numerics.md "Narrow floats": f16/bf16 compute in
// f32 and round to nearest even; f32/f64 compute in themselves; integers in their own width,
// through the unsigned type so that wrapping is defined), and the spec's max and min. Included by
// the .cu files only.
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

// An operand of a contraction (matmul, conv): floats read as f32 (the accumulator of f16, bf16
// and f32 operands), integers sign- or zero-extended to a 64-bit pattern (whose low 32 bits are
// the value modulo 2^32), so one kernel serves every mix of the dtype tables.
struct Operand {
  ir::DType dt;
  const void* p;
  __device__ inline float f(int64_t i) const {
    switch (dt) {
      case ir::DType::F16: return F16Codec::load(static_cast<const uint16_t*>(p)[i]);
      case ir::DType::BF16: return BF16Codec::load(static_cast<const uint16_t*>(p)[i]);
      default: return static_cast<const float*>(p)[i];
    }
  }
  // Sign- or zero-extended, as a 64-bit pattern (its low 32 bits are the value modulo 2^32).
  __device__ inline uint64_t u(int64_t i) const {
    switch (dt) {
      case ir::DType::I8:
        return static_cast<uint64_t>(static_cast<int64_t>(static_cast<const int8_t*>(p)[i]));
      case ir::DType::I16:
        return static_cast<uint64_t>(static_cast<int64_t>(static_cast<const int16_t*>(p)[i]));
      case ir::DType::I32:
        return static_cast<uint64_t>(static_cast<int64_t>(static_cast<const int32_t*>(p)[i]));
      case ir::DType::I64: return static_cast<uint64_t>(static_cast<const int64_t*>(p)[i]);
      case ir::DType::U8: return static_cast<const uint8_t*>(p)[i];
      case ir::DType::U16: return static_cast<const uint16_t*>(p)[i];
      case ir::DType::U32: return static_cast<const uint32_t*>(p)[i];
      default: return static_cast<const uint64_t*>(p)[i];
    }
  }
};

// Element i of a contraction's result of dtype `to`: the f32 accumulator rounded once, or the
// integer accumulator wrapped to the width of `to`.
__device__ inline void store_float_acc(void* c, int64_t i, ir::DType to, float acc) {
  switch (to) {
    case ir::DType::F16: static_cast<uint16_t*>(c)[i] = F16Codec::store(acc); break;
    case ir::DType::BF16: static_cast<uint16_t*>(c)[i] = BF16Codec::store(acc); break;
    default: static_cast<float*>(c)[i] = acc; break;
  }
}
__device__ inline void store_int_acc(void* c, int64_t i, ir::DType to, uint64_t acc) {
  switch (to) {
    case ir::DType::I32:
      static_cast<int32_t*>(c)[i] = static_cast<int32_t>(static_cast<uint32_t>(acc));
      break;
    case ir::DType::U32: static_cast<uint32_t*>(c)[i] = static_cast<uint32_t>(acc); break;
    case ir::DType::I64: static_cast<int64_t*>(c)[i] = static_cast<int64_t>(acc); break;
    default: static_cast<uint64_t*>(c)[i] = acc; break;
  }
}

__device__ inline bool float_operand(ir::DType dt) {
  return dt == ir::DType::F16 || dt == ir::DType::BF16 || dt == ir::DType::F32;
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

// IEEE 754-2019 maximum / minimum, the spec's max and min (binary and reduce): NaN wins (it
// propagates), -0 < +0, so max(-0, +0) = +0 and min(-0, +0) = -0.
template <typename C>
__device__ inline C ieee_max(C a, C b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}
template <typename C>
__device__ inline C ieee_min(C a, C b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}

}  // namespace plumb::rt::cuda
