// check/constant_noise.h. Compiled like ref's kernels (check/CMakeLists.txt: -fopenmp-simd, so that
// PLUMB_REF_SIMD_LOOP vectorizes the blocks, as runtime/cpu/ref/rng.cpp does), and run in the
// AVX2 copy where the machine has it (simd::with_widest): floor is one instruction there.
#include "check/constant_noise.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/cpu/ref/philox.h"
#include "runtime/cpu/ref/simd.h"

namespace plumb::check {

namespace {

namespace simd = rt::ref::simd;

// Element k of the constant's bytes, as f64 (memcpy: the bytes need not be aligned).
template <typename T>
PLUMB_REF_INLINE double element(const uint8_t* y, int64_t k) {
  T v;
  std::memcpy(&v, y + k * static_cast<int64_t>(sizeof(T)), sizeof v);
  return static_cast<double>(v);
}

template <typename T>
void perturb(const uint8_t* y, int64_t n, uint64_t seed, uint64_t stream, double h, double* out) {
  const double scale = 2 * h / 4294967296.0;  // as Perturber::uniform's constant
  const int64_t whole = n / 4;
  simd::with_widest([&] {
    // z = w (2h / 2^32) - h, block by block (as runtime/cpu/ref/rng.cpp makes the words)
    const uint64_t key = seed, ctr = stream;  // locals, as in rng.cpp
    PLUMB_REF_SIMD_LOOP
    for (int64_t b = 0; b < whole; ++b) {
      const rt::PhiloxCounter block = rt::rng_block(static_cast<uint64_t>(b), key, ctr);
      for (int w = 0; w < 4; ++w) out[4 * b + w] = static_cast<double>(block[w]) * scale - h;
    }
  });
  if (n % 4 != 0) {
    const rt::PhiloxCounter block = rt::rng_block(static_cast<uint64_t>(whole), seed, stream);
    for (int64_t w = 0; w < n % 4; ++w) out[4 * whole + w] = static_cast<double>(block[w]) * scale - h;
  }
  simd::with_widest([&] {
    // p = y z; 0 where 2y is an integer or p is not finite; y + p
    PLUMB_REF_SIMD_LOOP
    for (int64_t i = 0; i < n; ++i) {
      const double v = element<T>(y, i), twice = v * 2;
      double p = v * out[i];
      p = std::floor(twice) == twice ? 0.0 : p;
      p = std::fabs(p) < std::numeric_limits<double>::infinity() ? p : 0.0;
      out[i] = v + p;
    }
  });
}

}  // namespace

void perturb_constant(bool f32, const uint8_t* y, int64_t n, uint64_t seed, uint64_t stream, double h,
                      double* out) {
  if (f32)
    perturb<float>(y, n, seed, stream, h, out);
  else
    perturb<double>(y, n, seed, stream, h, out);
}

}  // namespace plumb::check
