// A small SIMD helper for the ref kernels (issue 17): a fixed-width vector of one element type,
// with lane-wise + and * only. Each lane is its own IEEE result (the same rounding as the scalar
// operation: x86-64 SSE/AVX and aarch64 NEON round every float operation to its type, and GCC
// contracts no a * b + c into a fused multiply-add where the target has no FMA, or where
// CMakeLists.txt passes -ffp-contract=off), so a kernel that puts independent results in the
// lanes gives the bits of the scalar loop.
//
// GCC and Clang: their generic vectors (vector_size), lowered to whatever the target has (two
// SSE registers, one AVX register, two NEON registers, or scalars). Other compilers: a plain
// array, the scalar fallback. No intrinsics.
//
// PLUMB_REF_AVX2 (x86-64 GCC/Clang): a kernel compiled a second time for AVX2 (target attribute)
// and chosen at run time by has_avx2(), so that the default build, which must run on any x86-64,
// still uses 256-bit registers where the machine has them. AVX2 brings no FMA (that is -mfma).
#pragma once

#include <cstdint>
#include <cstring>

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(_M_X64)) && \
    !defined(PLUMB_REF_NO_AVX2)
#define PLUMB_REF_AVX2 1
#define PLUMB_REF_TARGET_AVX2 __attribute__((target("avx2")))
#else
#define PLUMB_REF_AVX2 0
#define PLUMB_REF_TARGET_AVX2
#endif

// A loop whose iterations are independent results (an elementwise kernel, one row of a window):
// `#pragma omp simd` where CMake builds ref with -fopenmp-simd (runtime/cpu/ref/CMakeLists.txt,
// PLUMB_REF_OMP_SIMD), so that GCC vectorizes it at -O2 (its default cost model leaves every loop
// with a remainder scalar). The pragma only says that the iterations are independent; each lane
// is the same IEEE operation as the scalar one (no reassociation, no contraction), so the bits are
// those of the plain loop. Elsewhere, a plain loop.
#if PLUMB_REF_OMP_SIMD
#define PLUMB_REF_SIMD_LOOP _Pragma("omp simd")
#else
#define PLUMB_REF_SIMD_LOOP
#endif

#if defined(__GNUC__) || defined(__clang__)
// Every call inside inlined (the AVX2 copy of a loop nest, with_widest below).
#define PLUMB_REF_FLATTEN __attribute__((flatten))
#else
#define PLUMB_REF_FLATTEN
#endif

#if defined(__GNUC__) || defined(__clang__)
// Inlined into each caller, so that the AVX2 copy of a kernel inlines its helpers with AVX2 too.
#define PLUMB_REF_INLINE inline __attribute__((always_inline))
// A loop over the rows of a register tile, unrolled so that its accumulators stay in registers
// (-O2 does not unroll it by itself, and then keeps them on the stack).
#define PLUMB_REF_UNROLL _Pragma("GCC unroll 8")
#else
#define PLUMB_REF_INLINE inline
#define PLUMB_REF_UNROLL
#endif

namespace plumb::rt::ref::simd {

constexpr int kBytes = 32;  // one AVX register; two SSE or NEON registers
template <typename T>
constexpr int kLanes = kBytes / static_cast<int>(sizeof(T));

#if defined(__GNUC__) || defined(__clang__)
template <typename T>
struct VecOf {
  typedef T type __attribute__((vector_size(kBytes)));
};
template <typename T>
using Vec = typename VecOf<T>::type;
#else
template <typename T>
struct Vec {
  T lane[kLanes<T>];
  T& operator[](int i) { return lane[i]; }
  T operator[](int i) const { return lane[i]; }
  friend Vec operator+(Vec a, const Vec& b) {
    for (int i = 0; i < kLanes<T>; ++i) a.lane[i] = a.lane[i] + b.lane[i];
    return a;
  }
  friend Vec operator*(Vec a, const Vec& b) {
    for (int i = 0; i < kLanes<T>; ++i) a.lane[i] = a.lane[i] * b.lane[i];
    return a;
  }
};
#endif

// The helpers write through a reference rather than return a vector: a 32-byte vector returned
// by value has another ABI with AVX than without (GCC's -Wpsabi), even when inlined.

// All lanes +0 (integers 0): the spec's starting accumulator.
template <typename T>
PLUMB_REF_INLINE void zero(Vec<T>& v) {
  v = Vec<T>{};  // all bits 0: +0 and 0
}

// Every lane x (not 0 + x: that would turn -0 into +0). Through an array and one load: GCC turns
// that into a single broadcast (vbroadcastsd) in the AVX2 copy of a kernel, where setting the
// lanes one by one, in a helper compiled for the baseline target and inlined there, became a
// 128-bit duplicate and an insert of the upper half, a shuffle that competes with the multiplies
// and adds of the contraction's inner loop.
template <typename T>
PLUMB_REF_INLINE void splat(Vec<T>& v, T x) {
  T lanes[kLanes<T>];
  for (int i = 0; i < kLanes<T>; ++i) lanes[i] = x;
  std::memcpy(&v, lanes, sizeof v);
}

template <typename T>
PLUMB_REF_INLINE void load(Vec<T>& v, const T* p) {  // unaligned
  std::memcpy(&v, p, sizeof v);
}

template <typename T>
PLUMB_REF_INLINE void store(T* p, const Vec<T>& v) {
  std::memcpy(p, &v, sizeof v);
}

// Whether the AVX2 copies of the kernels may run here (CPU and OS support, checked by the
// compiler's runtime; no state of ours).
inline bool has_avx2() {
#if PLUMB_REF_AVX2
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

namespace detail {
template <typename Body>
PLUMB_REF_TARGET_AVX2 PLUMB_REF_FLATTEN void run_avx2(Body& body) {
  body();
}
template <typename Body>
PLUMB_REF_FLATTEN void run_portable(Body& body) {
  body();
}
}  // namespace detail

// body() with every call in it inlined, compiled twice: for AVX2, run where the machine has it,
// and for the baseline target. An elementwise kernel wraps its PLUMB_REF_SIMD_LOOP in it, so that
// the default x86-64 build fills 256-bit registers too (same operations per lane, same bits).
template <typename Body>
void with_widest(Body&& body) {
#if PLUMB_REF_AVX2
  if (has_avx2()) return detail::run_avx2(body);
#endif
  detail::run_portable(body);
}

// y[i] = f(x[i]) and y[i] = f(a[i], b[i]) for i < n: independent results, one vectorized loop.
// f must be branch-free enough for GCC to if-convert it (selects, not calls); bool operands come
// as bytes (bytes() below: GCC's vectorizer has no vector of bool).
template <typename X, typename Y, typename F>
void map(const X* __restrict x, Y* __restrict y, int64_t n, F f) {
  with_widest([&] {
    PLUMB_REF_SIMD_LOOP
    for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
  });
}
template <typename X, typename Y, typename F>
void map(const X* __restrict a, const X* __restrict b, Y* __restrict y, int64_t n, F f) {
  with_widest([&] {
    PLUMB_REF_SIMD_LOOP
    for (int64_t i = 0; i < n; ++i) y[i] = f(a[i], b[i]);
  });
}

// Whether p(x[i]) holds for any i < n: one vectorized pass (an OR over the lanes).
template <typename A, typename P>
PLUMB_REF_INLINE bool any_lane(const A* x, int64_t n, P p) {
  int found = 0;
#if PLUMB_REF_OMP_SIMD
  _Pragma("omp simd reduction(| : found)")
#endif
      for (int64_t i = 0; i < n; ++i) found |= p(x[i]);
  return found != 0;
}

// Whether any of x[0, n) is a NaN (floats), for kernels that compute a result again where it came
// out NaN (nan_choice.h); or an inf or a NaN (x - x is 0 exactly for the finite ones).
template <typename A>
PLUMB_REF_INLINE bool any_nan(const A* x, int64_t n) {
  return any_lane(x, n, [](A v) { return v != v; });
}
template <typename A>
PLUMB_REF_INLINE bool any_nan_or_inf(const A* x, int64_t n) {
  return any_lane(x, n, [](A v) { return !(v - v == 0); });
}

inline const uint8_t* bytes(const bool* p) { return reinterpret_cast<const uint8_t*>(p); }

}  // namespace plumb::rt::ref::simd
