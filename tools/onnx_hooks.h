// Hooks through which the core-only CLI reaches the ONNX frontend. tools/main.cpp defines them weak
// ("not in this build"), so the tiny build links without protobuf; tools/onnx/onnx_hooks.cpp gives
// the real definitions.
#pragma once

#include <string>

#include "check/model_inputs.h"
#include "ir/status.h"
#include "runtime/value.h"

namespace plumb::cli {

// What check::load_model needs of the ONNX frontend (.onnx lowering, .pb values); empty here.
check::Frontend cli_frontend();

// Writes `value` as output file `path` (TensorProto / SequenceProto / OptionalProto named `name`).
Status write_output_pb(const std::string& path, const rt::RtValue& value, const std::string& name);
bool have_pb_io();  // whether write_output_pb works in this build

}  // namespace plumb::cli
