// The perturbation of a float constant in check's stochastic graph (check/bound.h), computed on the
// host when the graph is made: one vectorized pass over the constant instead of ~14 graph nodes over
// all of it in every run (resnet18's 11.7M weights were most of a stochastic run's elementwise
// work, issue 17). It computes what those nodes compute (Perturber::perturb in check/bound.cpp,
// kRelative for a constant), the same IEEE f64 operations on the same operands in the same order,
// so the same bits (CheckBound.ConstantsPerturbedOnTheHost runs both):
//   w      word (i mod 4) of rng block i / 4 (spec/ops/rng.md: Philox4x32-10, key seed, stream)
//   z      w * (2h / 2^32) - h                   uniform in [-h, h)
//   p      y * z, then 0 where 2y is an integer (integers and half-integers are held exactly) or
//          where p is not finite (an inf or NaN constant keeps its value)
//   out    y + p
#pragma once

#include <cstdint>

namespace plumb::check {

// out[0, n) for the n elements y of a constant's bytes (f32 when `f32`, else f64; any alignment).
void perturb_constant(bool f32, const uint8_t* y, int64_t n, uint64_t seed, uint64_t stream, double h,
                      double* out);

}  // namespace plumb::check
