// Conversions between the ONNX test-data values of the frontend (file format: packed sub-byte
// types, framed strings) and run-time values.
#pragma once

#include <cstdint>
#include <string>

#include "frontends/onnx/tensor_proto.h"
#include "ir/status.h"
#include "ir/type.h"
#include "runtime/value.h"

namespace plumb::check {

// `declared` supplies element types of containers (an empty sequence has no elements to look at).
Expected<rt::RtValue> to_runtime(const onnx::DataValue& v, const ir::Type& declared);
Expected<rt::Tensor> tensor_to_runtime(const onnx::Tensor& t);
// Run-time value -> test-data value (tensors packed back to the file format).
Expected<onnx::DataValue> to_data_value(const rt::RtValue& v, const std::string& name);

}  // namespace plumb::check
