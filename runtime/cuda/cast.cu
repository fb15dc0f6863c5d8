// cast on the GPU (spec/ops/cast.md) between bool, the 8- to 64-bit integers, f16, bf16, f32
// and f64, each result rounded once from the exact operand value. claims.cpp declines float ->
// integer (cast.R1: NaN is a runtime error, which ref reports) and i64/u64 -> bf16 (through
// double it would round twice); the narrow f8/f4 formats stay on ref.
#include "runtime/cuda/device_types.cuh"
#include "runtime/cuda/dtype_sets.h"
#include "runtime/cuda/kernels.h"

namespace plumb::rt::cuda {
namespace {

// Reads element i of a source dtype as the widest exact value: integers as int64/uint64 (kept
// exact), floats as double (every f16/bf16/f32 value is a double), bool as 0/1.
struct Source {
  ir::DType dt;
  const void* p;
  __device__ bool is_float() const {
    return dt == ir::DType::F16 || dt == ir::DType::BF16 || dt == ir::DType::F32 || dt == ir::DType::F64;
  }
  __device__ bool is_unsigned() const {
    return dt == ir::DType::U8 || dt == ir::DType::U16 || dt == ir::DType::U32 || dt == ir::DType::U64 ||
           dt == ir::DType::Bool;
  }
  __device__ double f(int64_t i) const {
    switch (dt) {
      case ir::DType::F16: return F16Codec::load(static_cast<const uint16_t*>(p)[i]);
      case ir::DType::BF16: return BF16Codec::load(static_cast<const uint16_t*>(p)[i]);
      case ir::DType::F32: return static_cast<const float*>(p)[i];
      default: return static_cast<const double*>(p)[i];
    }
  }
  __device__ int64_t s(int64_t i) const {
    switch (dt) {
      case ir::DType::I8: return static_cast<const int8_t*>(p)[i];
      case ir::DType::I16: return static_cast<const int16_t*>(p)[i];
      case ir::DType::I32: return static_cast<const int32_t*>(p)[i];
      default: return static_cast<const int64_t*>(p)[i];
    }
  }
  __device__ uint64_t u(int64_t i) const {
    switch (dt) {
      case ir::DType::Bool: return static_cast<const uint8_t*>(p)[i] ? 1 : 0;
      case ir::DType::U8: return static_cast<const uint8_t*>(p)[i];
      case ir::DType::U16: return static_cast<const uint16_t*>(p)[i];
      case ir::DType::U32: return static_cast<const uint32_t*>(p)[i];
      default: return static_cast<const uint64_t*>(p)[i];
    }
  }
};

template <typename T>
__device__ void put(void* y, int64_t i, T v) {
  static_cast<T*>(y)[i] = v;
}

__global__ void cast_kernel(Source x, ir::DType to, void* y, int64_t n) {
  PLUMB_CUDA_FOR(i, n) {
    if (to == ir::DType::Bool) {
      const bool b = x.is_float() ? x.f(i) != 0 : (x.is_unsigned() ? x.u(i) != 0 : x.s(i) != 0);  // NaN: true
      put<uint8_t>(y, i, b ? 1 : 0);
      continue;
    }
    if (to == ir::DType::F16 || to == ir::DType::BF16 || to == ir::DType::F32 || to == ir::DType::F64) {
      // One rounding: a double (exact for every float and for integers below 2^53) rounded to the
      // target by CUDA's round-to-nearest-even conversions; 64-bit integers to f32/f64 convert
      // directly (one rounding), to f16 through double (every value the double rounds is far
      // beyond f16's range: inf either way).
      if (!x.is_float() && (x.dt == ir::DType::I64 || x.dt == ir::DType::U64) &&
          (to == ir::DType::F32 || to == ir::DType::F64)) {
        if (to == ir::DType::F32)
          put<float>(y, i, x.dt == ir::DType::I64 ? __ll2float_rn(x.s(i)) : __ull2float_rn(x.u(i)));
        else
          put<double>(y, i, x.dt == ir::DType::I64 ? __ll2double_rn(x.s(i)) : __ull2double_rn(x.u(i)));
        continue;
      }
      const double v = x.is_float()
                           ? x.f(i)
                           : (x.is_unsigned() ? static_cast<double>(x.u(i)) : static_cast<double>(x.s(i)));
      switch (to) {
        case ir::DType::F16: put<uint16_t>(y, i, __half_as_ushort(__double2half(v))); break;
        case ir::DType::BF16: put<uint16_t>(y, i, __bfloat16_as_ushort(__double2bfloat16(v))); break;
        case ir::DType::F32: put<float>(y, i, __double2float_rn(v)); break;
        default: put<double>(y, i, v); break;
      }
      continue;
    }
    // Integer to integer: wraps (the low bits of the two's complement value).
    const uint64_t v = x.is_unsigned() ? x.u(i) : static_cast<uint64_t>(x.s(i));
    switch (to) {
      case ir::DType::I8: put<int8_t>(y, i, static_cast<int8_t>(v)); break;
      case ir::DType::U8: put<uint8_t>(y, i, static_cast<uint8_t>(v)); break;
      case ir::DType::I16: put<int16_t>(y, i, static_cast<int16_t>(v)); break;
      case ir::DType::U16: put<uint16_t>(y, i, static_cast<uint16_t>(v)); break;
      case ir::DType::I32: put<int32_t>(y, i, static_cast<int32_t>(v)); break;
      case ir::DType::U32: put<uint32_t>(y, i, static_cast<uint32_t>(v)); break;
      case ir::DType::I64: put<int64_t>(y, i, static_cast<int64_t>(v)); break;
      default: put<uint64_t>(y, i, v); break;
    }
  }
}

}  // namespace

cudaError_t launch_cast(ir::DType from, ir::DType to, const void* x, void* y, int64_t n, cudaStream_t s) {
  if (!castable(from) || !castable(to)) return cudaErrorInvalidValue;
  return launch_1d(cast_kernel, n, s, Source{from, x}, to, y, n);
}

}  // namespace plumb::rt::cuda
