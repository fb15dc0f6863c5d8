// The ONNX frontend as check/model_inputs.h reaches it: .onnx lowering specialized on input values
// (spec/onnx-rulings.md R1) and reading .pb test-data values.
#pragma once

#include "check/model_inputs.h"

namespace plumb::check {

Frontend onnx_frontend();

// Writes a run-time value as a TensorProto / SequenceProto / OptionalProto file named `name`.
Status write_pb(const std::string& path, const rt::RtValue& value, const std::string& name);

}  // namespace plumb::check
