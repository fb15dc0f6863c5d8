// The plain comparison of two run-time values that `check` (for exact dtypes and containers) and
// `conformance` (the ONNX backend tests' rtol/atol) use.
#pragma once

#include <cstdint>
#include <string>

#include "ir/status.h"
#include "runtime/value.h"

namespace plumb::check {

struct Tolerance {
  double rtol = 1e-3;  // the ONNX backend test defaults
  double atol = 1e-7;
};

struct Comparison {
  bool match = true;
  std::string why;         // first reason of a mismatch, one line
  int64_t mismatches = 0;  // elements outside tolerance
  int64_t elements = 0;
  double max_abs = 0, max_rel = 0;
};

// Floating elements match when |a - e| <= atol + rtol * |e| (NaN matches NaN, infinities must be
// equal); integers, bools and strings must be equal; dtypes and shapes must be equal.
Comparison compare(const rt::RtValue& actual, const rt::RtValue& expected, const Tolerance& tol);

}  // namespace plumb::check
