// How two values of one float constant (a weight) differ, for `plumb diff` (issue 24): by how much,
// where, and whether the difference is a loss of precision or a real change.
//
// Precision loss: both tensors are equal once every element is rounded (to nearest, ties to even)
// to f32 (f64 tensors), else to f16, else to bf16, with no element overflowing that dtype: what storing the
// weights in that dtype (a converter's or quantizer's choice) does; or B is A stored in a small integer type
// with a scale found from the data (int4, uint4, int8, uint8; per tensor or per axis; with or
// without a zero point: check/diff_quant.h). Anything else is a real change, and
// where every differing element is the same multiple of its old value, the scale is given (one
// slice scaled, as a converter that mishandles a per-channel factor leaves it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "check/diff_quant.h"
#include "ir/graph.h"

namespace plumb::check {

struct WeightDiff {
  int64_t elements = 0, differ = 0;  // elements, and those not bit-equal (NaN equals NaN)
  double max_abs = 0, max_rel = 0;   // |b - a|, and |b - a| / |a| (inf where a is 0 and b is not)
  std::string loss;  // "f32", "f16", "bf16", "int8"...: equal after rounding to it; "" a real change
  std::optional<Quantization> quant;   // for an integer loss: the scales and zero points
  double scale = 0;                    // every differing element is scale * a (0: no such scale)
  int axis = -1;                       // the leading axis (the first of size > 1), -1 for a scalar
  int64_t slices = 0;                  // its extent
  std::vector<int64_t> slices_differ;  // indices along it holding a differing element
  std::string describe() const;  // "real change: 147 of 1176 elements differ (slice 0 of 8 along axis 0 ...)"
};

// The elements of a float constant of 8 bits or more (f8*, f16, bf16, f32, f64) as doubles;
// nullopt for other dtypes or a size that does not match the type.
std::optional<std::vector<double>> float_constant_values(const ir::ConstantData& c);

// a and b: the same float type. nullopt when the constants are not such floats.
std::optional<WeightDiff> diff_weights(const ir::ConstantData& a, const ir::ConstantData& b);

}  // namespace plumb::check
