#include "runtime/cpu/onednn/scan.h"

#include <cmath>
#include <cstring>

#include "runtime/cpu/ref/simd.h"

namespace plumb::rt::cpu {
namespace {

constexpr uint32_t kAbs = 0x7fffffffu, kInf = 0x7f800000u, kMinusZero = 0x80000000u;

PLUMB_REF_INLINE uint32_t bits(const float* x, int64_t i) {
  uint32_t b;
  std::memcpy(&b, x + i, sizeof b);
  return b;
}

// The loops, on their own parameters (a lambda's captures, read through its closure, stop GCC's
// vectorizer); with_widest inlines them into its AVX2 copy.
PLUMB_REF_INLINE uint32_t max_bits(const float* __restrict x, int64_t n) {
  uint32_t m = 0;
#if PLUMB_REF_OMP_SIMD
  _Pragma("omp simd reduction(max : m)")
#endif
      for (int64_t i = 0; i < n; ++i) {
    const uint32_t a = bits(x, i) & kAbs;
    const uint32_t f = a < kInf ? a : 0u;
    m = f > m ? f : m;
  }
  return m;
}

// Whether any x[i] has |bits| at or above `at` (kInf: an inf or a NaN; kInf + 1: a NaN), or, with
// minus_zero, is -0.
PLUMB_REF_INLINE int any_special(const float* __restrict x, int64_t n, uint32_t at, bool minus_zero) {
  int bad = 0;
#if PLUMB_REF_OMP_SIMD
  _Pragma("omp simd reduction(| : bad)")
#endif
      for (int64_t i = 0; i < n; ++i) {
    const uint32_t b = bits(x, i);
    bad |= static_cast<int>((b & kAbs) >= at) | static_cast<int>(minus_zero && b == kMinusZero);
  }
  return bad;
}

PLUMB_REF_INLINE void clamp_loop(float* __restrict y, int64_t n, float lo, float hi) {
  if (hi == INFINITY) {
    PLUMB_REF_SIMD_LOOP
    for (int64_t i = 0; i < n; ++i) {
      const float v = y[i];
      y[i] = v != v ? v : v > lo ? v : lo;
    }
    return;
  }
  PLUMB_REF_SIMD_LOOP
  for (int64_t i = 0; i < n; ++i) {
    const float v = y[i];
    const float m = v > lo ? v : lo;
    y[i] = v != v ? v : m < hi ? m : hi;
  }
}

// max(y, lo) in place (hi +inf), and the largest finite |result|, in one pass.
PLUMB_REF_INLINE uint32_t max_in_place(float* __restrict y, int64_t n, float lo) {
  uint32_t m = 0;
#if PLUMB_REF_OMP_SIMD
  _Pragma("omp simd reduction(max : m)")
#endif
      for (int64_t i = 0; i < n; ++i) {
    const float v = y[i];
    const float r = v != v ? v : v > lo ? v : lo;
    y[i] = r;
    uint32_t b;
    std::memcpy(&b, &r, sizeof b);
    const uint32_t a = b & kAbs;
    const uint32_t f = a < kInf ? a : 0u;
    m = f > m ? f : m;
  }
  return m;
}

}  // namespace

float clamp_max(float* y, int64_t n, float lo) {
  uint32_t m = 0;
  ref::simd::with_widest([&] { m = max_in_place(y, n, lo); });
  float r;
  std::memcpy(&r, &m, sizeof r);
  return r;
}

float max_finite_abs(const float* x, int64_t n) {
  uint32_t m = 0;
  ref::simd::with_widest([&] { m = max_bits(x, n); });
  float r;
  std::memcpy(&r, &m, sizeof r);
  return r;
}

// inf and NaN: |bits| >= inf's.
bool all_finite(const float* x, int64_t n) {
  int bad = 0;
  ref::simd::with_widest([&] { bad = any_special(x, n, kInf, false); });
  return bad == 0;
}

// NaN: |bits| above inf's; -0: the sign bit alone.
bool ordinary(const float* x, int64_t n) {
  int bad = 0;
  ref::simd::with_widest([&] { bad = any_special(x, n, kInf + 1, true); });
  return bad == 0;
}

void clamp(float* y, int64_t n, float lo, float hi) {
  ref::simd::with_widest([&] { clamp_loop(y, n, lo, hi); });
}

// A plain loop: erff is a call (glibc declares no vector variant without -ffast-math), as in
// ref's unary kernel.
void gelu_erf(float* y, int64_t n, const GeluForm& g) {
  for (int64_t i = 0; i < n; ++i) {
    const float x = y[i];
    const float e = std::erf(x / g.c);
    const float a = g.erf_first ? e + g.one : g.one + e;
    const float m = g.x_first ? x * a : a * x;
    y[i] = g.m_first ? m * g.k : g.k * m;
  }
}

}  // namespace plumb::rt::cpu
