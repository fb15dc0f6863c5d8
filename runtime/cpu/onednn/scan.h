// The cpu backend's passes over a whole f32 buffer at run time (issue 16): the overflow guard's
// operand sizes, the special-value checks that send a span to ref, and the relu/clip pass with the
// spec's max/min. Each is one vectorized loop (scan.cpp: the ref kernels' SIMD flags and their
// AVX2 copy, runtime/cpu/ref/simd.h), as the scalar loops took a third of mobilenet_v2's run.
// Every result is exactly the scalar loop's (comparisons and selects only, no arithmetic).
#pragma once

#include <cstdint>

namespace plumb::rt::cpu {

// The largest finite |x| of x[0, n) (0 when none). On the bits: |x| is x's bits without the sign,
// finite iff below the bits of inf, and the order of nonnegative floats is their bits' order.
float max_finite_abs(const float* x, int64_t n);

// Whether every x[i] is finite.
bool all_finite(const float* x, int64_t n);

// No NaN and no -0: values whose max oneDNN takes as the spec does (its vmaxps returns one
// operand for a NaN, and either zero for -0 vs +0; the spec's max takes the first NaN and +0).
bool ordinary(const float* x, int64_t n);

// y[i] = max(y[i], lo) (spec/ops/binary.md: NaN stays), then, when hi is not +inf, min(.., hi).
// The bounds are never -0 and hi is nonzero (fusion.cpp), so the sign rule of equal zeros gives
// the bound, which is what `y > lo ? y : lo` gives.
void clamp(float* y, int64_t n, float lo, float hi);

// clamp(y, n, lo, +inf), returning max_finite_abs of the result: one pass where a relu's result
// is the next unit's source, whose size the overflow guard needs.
float clamp_max(float* y, int64_t n, float lo);

// The exact GELU of an ONNX export (runtime/cpu/onednn/fusion.h Fused::gelu), in place:
// y = ((erf(x / c) + one) * x) * k, each binary operation with its node's operand order, in f32
// with erff: ref's operations one after the other, so ref's bits for every finite x (the span
// runs it only on finite values: no NaN whose sign or payload the order would choose).
struct GeluForm {
  float c, one, k;
  bool erf_first, x_first, m_first;
};
void gelu_erf(float* y, int64_t n, const GeluForm& g);

}  // namespace plumb::rt::cpu
