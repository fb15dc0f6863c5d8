// Conversions between the ONNX test-data values of the frontend (file format: packed sub-byte
// types, framed strings) and run-time values, and the comparison `check` and `conformance` use.
#pragma once

#include <cstdint>
#include <string>

#include "frontends/onnx/tensor_proto.h"
#include "ir/status.h"
#include "ir/type.h"
#include "runtime/value.h"

namespace plumb::cli {

// `declared` supplies element types of containers (an empty sequence has no elements to look at).
Expected<rt::RtValue> to_runtime(const onnx::DataValue& v, const ir::Type& declared);
Expected<rt::Tensor> tensor_to_runtime(const onnx::Tensor& t);
// Run-time value -> test-data value (tensors packed back to the file format).
Expected<onnx::DataValue> to_data_value(const rt::RtValue& v, const std::string& name);

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

}  // namespace plumb::cli
