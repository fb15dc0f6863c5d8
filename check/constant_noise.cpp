// check/constant_noise.h. Compiled like ref's kernels (check/CMakeLists.txt: -fopenmp-simd, so that
// PLUMB_REF_SIMD_LOOP vectorizes the blocks, as runtime/cpu/ref/rng.cpp does), and run in the
// AVX2 copy where the machine has it (simd::with_widest): floor is one instruction there.
#include "check/constant_noise.h"

#include <algorithm>
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

// One element y moved by rng word w, as constant_noise.h says; `scale` = 2h / 2^32.
PLUMB_REF_INLINE double moved(double y, uint32_t w, double scale, double h) {
  const double z = static_cast<double>(w) * scale - h;  // Perturber::uniform
  const double twice = y * 2;
  double p = y * z;
  p = std::floor(twice) == twice ? 0.0 : p;                              // where_not_half_integer
  p = std::fabs(p) < std::numeric_limits<double>::infinity() ? p : 0.0;  // finite_only
  return y + p;
}

template <typename T>
void perturb(const uint8_t* y, int64_t n, uint64_t seed, uint64_t stream, double h, double* out) {
  const double scale = 2 * h / 4294967296.0;  // as Perturber::uniform's constant
  const int64_t whole = n / 4;
  constexpr int64_t kBlocks = 256;  // rng blocks at a time: 4 KB of words
  simd::with_widest([&] {
    const uint64_t key = seed, ctr = stream;  // locals, as in runtime/cpu/ref/rng.cpp
    uint32_t words[4 * kBlocks];
    for (int64_t b0 = 0; b0 < whole; b0 += kBlocks) {
      const int64_t blocks = std::min(kBlocks, whole - b0);
      PLUMB_REF_SIMD_LOOP
      for (int64_t b = 0; b < blocks; ++b)
        rt::rng_block_into(static_cast<uint64_t>(b0 + b), key, ctr, words + 4 * b);
      const uint8_t* src = y + 4 * b0 * static_cast<int64_t>(sizeof(T));
      double* dst = out + 4 * b0;
      PLUMB_REF_SIMD_LOOP
      for (int64_t i = 0; i < 4 * blocks; ++i) dst[i] = moved(element<T>(src, i), words[i], scale, h);
    }
  });
  if (n % 4 != 0) {
    const rt::PhiloxCounter block = rt::rng_block(static_cast<uint64_t>(whole), seed, stream);
    for (int64_t w = 0; w < n % 4; ++w)
      out[4 * whole + w] = moved(element<T>(y, 4 * whole + w), block[w], scale, h);
  }
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
