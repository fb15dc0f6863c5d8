// Whether one float weight is another stored in a small integer type with a scale (issue 24: a
// quantizer's output, or its DequantizeLinear folded back to floats, is a precision loss, not a
// change), for `plumb diff` (check/diff_weights.h).
//
// B is A quantized when every element is b = s * (q - z) with q = round(a / s) + z an integer of
// the dtype (int4 [-8,7], uint4 [0,15], int8 [-128,127], uint8 [0,255]), z its zero point (0 for a
// symmetric int scheme), with one (s, z) for the whole tensor or one per slice along an axis (per
// channel). s is found from the data, not from a list: B's values are integer multiples of s, so s
// is their approximate common divisor (the smallest magnitude divided by the smallest n that makes
// every other value a whole multiple, within the f32 rounding of s * k), refined by least squares;
// then every a must round to its b (|a / s - k| <= 1/2, ties either way, no saturation beyond half
// a step). The evidence must be able to refute it: each group with a nonzero value holds 3 to 256
// distinct nonzero values, and the odds that all of them lie on their grids by chance are below
// 1e-12 (a tensor quantized as a whole needs 5; a few values lie on some grid whatever they are).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace plumb::check {

struct Quantization {
  std::string dtype;                 // "int4", "uint4", "int8" or "uint8"
  int axis = -1;                     // the axis of per-slice scales; -1: one scale for the tensor
  std::vector<double> scales;        // one per slice along `axis` (0: an all-zero slice), or one
  std::vector<int64_t> zero_points;  // as many; all 0 for the int dtypes (symmetric)
  // "int8, symmetric, scale 0.00123" or "uint8, per axis 0: 8 scales 0.00112 to 0.00243, zero
  // points 118 to 131"
  std::string describe() const;
};

// a, b: the elements of two float tensors of shape `dims` (row-major), a != b somewhere.
std::optional<Quantization> find_quantization(const std::vector<double>& a, const std::vector<double>& b,
                                              const std::vector<int64_t>& dims);

}  // namespace plumb::check
