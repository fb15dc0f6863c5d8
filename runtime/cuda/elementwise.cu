// unary, binary, compare, select on the GPU (spec/ops/{unary,binary,compare,select}.md). Operands
// and results are dense and of one shape (the core has no implicit broadcasting), so a result
// element reads the operands' elements at its own position. The kind is a runtime switch that all
// threads take the same way; floats use CUDA's correctly rounded + - * / sqrt fmod (no
// contraction: the backend compiles with --fmad=false) and its libm for the Ulp-class functions.
#include <cmath>

#include "runtime/cuda/device_types.cuh"
#include "runtime/cuda/kernels.h"

namespace plumb::rt::cuda {
namespace {

#define PLUMB_MATH1(name)                                          \
  __device__ inline float m_##name(float x) { return name##f(x); } \
  __device__ inline double m_##name(double x) { return name(x); }
PLUMB_MATH1(floor)
PLUMB_MATH1(ceil)
PLUMB_MATH1(rint)
PLUMB_MATH1(sqrt)
PLUMB_MATH1(exp)
PLUMB_MATH1(log)
PLUMB_MATH1(sin)
PLUMB_MATH1(cos)
PLUMB_MATH1(tan)
PLUMB_MATH1(asin)
PLUMB_MATH1(acos)
PLUMB_MATH1(atan)
PLUMB_MATH1(sinh)
PLUMB_MATH1(cosh)
PLUMB_MATH1(tanh)
PLUMB_MATH1(asinh)
PLUMB_MATH1(acosh)
PLUMB_MATH1(atanh)
PLUMB_MATH1(erf)
PLUMB_MATH1(fabs)
#undef PLUMB_MATH1
__device__ inline float m_fmod(float a, float b) { return fmodf(a, b); }
__device__ inline double m_fmod(double a, double b) { return fmod(a, b); }
__device__ inline float m_pow(float a, float b) { return powf(a, b); }
__device__ inline double m_pow(double a, double b) { return pow(a, b); }

template <typename C>
__device__ C float_unary(ir::UnaryKind k, C x) {
  switch (k) {
    case ir::UnaryKind::Neg: return -x;
    case ir::UnaryKind::Abs: return m_fabs(x);
    case ir::UnaryKind::Sign: return x != x ? x : (x > 0 ? C(1) : (x < 0 ? C(-1) : C(0)));
    case ir::UnaryKind::Floor: return m_floor(x);
    case ir::UnaryKind::Ceil: return m_ceil(x);
    case ir::UnaryKind::Round: return m_rint(x);  // ties to even in the default rounding mode
    case ir::UnaryKind::Sqrt: return m_sqrt(x);
    case ir::UnaryKind::Exp: return m_exp(x);
    case ir::UnaryKind::Log: return m_log(x);
    case ir::UnaryKind::Sin: return m_sin(x);
    case ir::UnaryKind::Cos: return m_cos(x);
    case ir::UnaryKind::Tan: return m_tan(x);
    case ir::UnaryKind::Asin: return m_asin(x);
    case ir::UnaryKind::Acos: return m_acos(x);
    case ir::UnaryKind::Atan: return m_atan(x);
    case ir::UnaryKind::Sinh: return m_sinh(x);
    case ir::UnaryKind::Cosh: return m_cosh(x);
    case ir::UnaryKind::Tanh: return m_tanh(x);
    case ir::UnaryKind::Asinh: return m_asinh(x);
    case ir::UnaryKind::Acosh: return m_acosh(x);
    case ir::UnaryKind::Atanh: return m_atanh(x);
    case ir::UnaryKind::Erf: return m_erf(x);
    default: return x;  // not: integers only (claims.cpp)
  }
}

template <typename Codec>
__global__ void unary_float(ir::UnaryKind k, const typename Codec::Storage* x, typename Codec::Storage* y,
                            int64_t n) {
  PLUMB_CUDA_FOR(i, n) y[i] = Codec::store(float_unary(k, Codec::load(x[i])));
}

template <typename T>
__device__ bool negative(T v) {
  if constexpr (std::is_signed_v<T>)
    return v < 0;
  else
    return false;
}

template <typename T>
__global__ void unary_int(ir::UnaryKind k, const T* x, T* y, int64_t n) {
  using U = std::make_unsigned_t<T>;
  PLUMB_CUDA_FOR(i, n) {
    const T v = x[i];
    const T neg = static_cast<T>(static_cast<U>(U(0) - static_cast<U>(v)));
    T r = v;
    switch (k) {
      case ir::UnaryKind::Neg: r = neg; break;
      case ir::UnaryKind::Abs: r = negative(v) ? neg : v; break;  // abs(INT_MIN) = INT_MIN
      case ir::UnaryKind::Sign: r = static_cast<T>(v > 0 ? 1 : (negative(v) ? -1 : 0)); break;
      case ir::UnaryKind::Not: r = static_cast<T>(~static_cast<U>(v)); break;
      default: break;
    }
    y[i] = r;
  }
}

__global__ void not_bool(const uint8_t* x, uint8_t* y, int64_t n) {
  PLUMB_CUDA_FOR(i, n) y[i] = x[i] ? 0 : 1;
}

template <typename C>
__device__ C float_binary(ir::BinaryKind k, C a, C b) {
  switch (k) {
    case ir::BinaryKind::Add: return a + b;
    case ir::BinaryKind::Sub: return a - b;
    case ir::BinaryKind::Mul: return a * b;
    case ir::BinaryKind::Div: return a / b;
    case ir::BinaryKind::Rem: return m_fmod(a, b);
    case ir::BinaryKind::Pow: return m_pow(a, b);
    case ir::BinaryKind::Max: return ieee_max(a, b);
    case ir::BinaryKind::Min: return ieee_min(a, b);
    default: return a;  // bitwise kinds: integers and bool only (claims.cpp)
  }
}

template <typename Codec>
__global__ void binary_float(ir::BinaryKind k, const typename Codec::Storage* a,
                             const typename Codec::Storage* b, typename Codec::Storage* y, int64_t n) {
  PLUMB_CUDA_FOR(i, n) y[i] = Codec::store(float_binary(k, Codec::load(a[i]), Codec::load(b[i])));
}

// Integer kinds without runtime errors (div, rem and pow are declined: binary.R1/R2 are ref's).
template <typename T>
__global__ void binary_int(ir::BinaryKind k, const T* a, const T* b, T* y, int64_t n) {
  using U = std::make_unsigned_t<T>;
  constexpr int kBits = 8 * sizeof(T);
  PLUMB_CUDA_FOR(i, n) {
    const U x = static_cast<U>(a[i]), z = static_cast<U>(b[i]);
    U r = 0;
    switch (k) {
      case ir::BinaryKind::Add: r = static_cast<U>(x + z); break;
      case ir::BinaryKind::Sub: r = static_cast<U>(x - z); break;
      case ir::BinaryKind::Mul: r = static_cast<U>(x * z); break;
      case ir::BinaryKind::Max: r = a[i] >= b[i] ? x : z; break;
      case ir::BinaryKind::Min: r = a[i] <= b[i] ? x : z; break;
      case ir::BinaryKind::And: r = x & z; break;
      case ir::BinaryKind::Or: r = x | z; break;
      case ir::BinaryKind::Xor: r = x ^ z; break;
      case ir::BinaryKind::Shl: r = z >= U(kBits) ? U(0) : static_cast<U>(x << z); break;
      case ir::BinaryKind::Shr: r = z >= U(kBits) ? U(0) : static_cast<U>(x >> z); break;
      default: break;
    }
    y[i] = static_cast<T>(r);
  }
}

__global__ void binary_bool(ir::BinaryKind k, const uint8_t* a, const uint8_t* b, uint8_t* y, int64_t n) {
  PLUMB_CUDA_FOR(i, n) {
    const bool x = a[i] != 0, z = b[i] != 0;
    bool r = false;
    switch (k) {
      case ir::BinaryKind::And: r = x && z; break;
      case ir::BinaryKind::Or: r = x || z; break;
      case ir::BinaryKind::Xor: r = x != z; break;
      default: break;
    }
    y[i] = r ? 1 : 0;
  }
}

template <typename C>
__device__ bool compare_values(ir::CompareKind k, C a, C b) {
  switch (k) {
    case ir::CompareKind::Eq: return a == b;
    case ir::CompareKind::Ne: return a != b;  // true for NaN
    case ir::CompareKind::Lt: return a < b;
    case ir::CompareKind::Le: return a <= b;
    case ir::CompareKind::Gt: return a > b;
    case ir::CompareKind::Ge: return a >= b;
  }
  return false;
}

template <typename Codec>
__global__ void compare_float(ir::CompareKind k, const typename Codec::Storage* a,
                              const typename Codec::Storage* b, uint8_t* y, int64_t n) {
  PLUMB_CUDA_FOR(i, n) y[i] = compare_values(k, Codec::load(a[i]), Codec::load(b[i])) ? 1 : 0;
}

template <typename T>
__global__ void compare_int(ir::CompareKind k, const T* a, const T* b, uint8_t* y, int64_t n) {
  PLUMB_CUDA_FOR(i, n) y[i] = compare_values(k, a[i], b[i]) ? 1 : 0;
}

template <typename T>
__global__ void select_kernel(const uint8_t* c, const T* a, const T* b, T* y, int64_t n) {
  PLUMB_CUDA_FOR(i, n) y[i] = c[i] ? a[i] : b[i];
}

}  // namespace

cudaError_t launch_unary(ir::UnaryKind kind, ir::DType dt, const void* x, void* y, int64_t n,
                         cudaStream_t s) {
  cudaError_t err = cudaErrorInvalidValue;
  if (dt == ir::DType::Bool) {
    if (kind == ir::UnaryKind::Not)
      err = launch_1d(not_bool, n, s, static_cast<const uint8_t*>(x), static_cast<uint8_t*>(y), n);
    return err;
  }
  if (kind != ir::UnaryKind::Not && visit_float(dt, [&](auto codec) {
        using C = decltype(codec);
        using S = typename C::Storage;
        err = launch_1d(unary_float<C>, n, s, kind, static_cast<const S*>(x), static_cast<S*>(y), n);
      }))
    return err;
  visit_int(dt, [&](auto tag) {
    using T = decltype(tag);
    err = launch_1d(unary_int<T>, n, s, kind, static_cast<const T*>(x), static_cast<T*>(y), n);
  });
  return err;
}

cudaError_t launch_binary(ir::BinaryKind kind, ir::DType dt, const void* a, const void* b, void* y, int64_t n,
                          cudaStream_t s) {
  cudaError_t err = cudaErrorInvalidValue;
  if (dt == ir::DType::Bool)
    return launch_1d(binary_bool, n, s, kind, static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b),
                     static_cast<uint8_t*>(y), n);
  if (visit_float(dt, [&](auto codec) {
        using C = decltype(codec);
        using S = typename C::Storage;
        err = launch_1d(binary_float<C>, n, s, kind, static_cast<const S*>(a), static_cast<const S*>(b),
                        static_cast<S*>(y), n);
      }))
    return err;
  visit_int(dt, [&](auto tag) {
    using T = decltype(tag);
    err = launch_1d(binary_int<T>, n, s, kind, static_cast<const T*>(a), static_cast<const T*>(b),
                    static_cast<T*>(y), n);
  });
  return err;
}

cudaError_t launch_compare(ir::CompareKind kind, ir::DType dt, const void* a, const void* b, void* y,
                           int64_t n, cudaStream_t s) {
  cudaError_t err = cudaErrorInvalidValue;
  auto* out = static_cast<uint8_t*>(y);
  if (dt == ir::DType::Bool)
    return launch_1d(compare_int<uint8_t>, n, s, kind, static_cast<const uint8_t*>(a),
                     static_cast<const uint8_t*>(b), out, n);
  if (visit_float(dt, [&](auto codec) {
        using C = decltype(codec);
        using S = typename C::Storage;
        err = launch_1d(compare_float<C>, n, s, kind, static_cast<const S*>(a), static_cast<const S*>(b), out,
                        n);
      }))
    return err;
  visit_int(dt, [&](auto tag) {
    using T = decltype(tag);
    err = launch_1d(compare_int<T>, n, s, kind, static_cast<const T*>(a), static_cast<const T*>(b), out, n);
  });
  return err;
}

cudaError_t launch_select(int elem_bytes, const void* c, const void* a, const void* b, void* y, int64_t n,
                          cudaStream_t s) {
  const auto* cond = static_cast<const uint8_t*>(c);
  switch (elem_bytes) {
    case 1:
      return launch_1d(select_kernel<uint8_t>, n, s, cond, static_cast<const uint8_t*>(a),
                       static_cast<const uint8_t*>(b), static_cast<uint8_t*>(y), n);
    case 2:
      return launch_1d(select_kernel<uint16_t>, n, s, cond, static_cast<const uint16_t*>(a),
                       static_cast<const uint16_t*>(b), static_cast<uint16_t*>(y), n);
    case 4:
      return launch_1d(select_kernel<uint32_t>, n, s, cond, static_cast<const uint32_t*>(a),
                       static_cast<const uint32_t*>(b), static_cast<uint32_t*>(y), n);
    case 8:
      return launch_1d(select_kernel<uint64_t>, n, s, cond, static_cast<const uint64_t*>(a),
                       static_cast<const uint64_t*>(b), static_cast<uint64_t*>(y), n);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace plumb::rt::cuda
