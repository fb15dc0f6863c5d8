// The values `plumb reduce` feeds and expects (docs/reduce.md): the model's inputs from the data
// folder, the expected values given (check's layout: output_<k>.pb and any tensor by its ONNX name),
// and, where the model runs on ref, the value plumb computes for every top-level tensor. A cut
// tensor of a reduced model is fed from these, and a reduced model's outputs are compared to them.
#pragma once

#include <map>
#include <string>

#include "frontends/onnx/tensor_proto.h"
#include "ir/status.h"

namespace onnx {
class ModelProto;
}

namespace plumb::hunt {

struct ValueTable {
  std::map<std::string, onnx::DataValue> inputs;    // graph inputs, by name
  std::map<std::string, onnx::DataValue> expected;  // by ONNX tensor name (outputs by their name)
  std::map<std::string, onnx::DataValue> computed;  // ref's value of each top-level tensor
  std::string computed_unavailable;                 // why `computed` is empty ("" when it is not)
  // When the model does not run on ref: stand-in values (deterministic, floats in [-1, 1), integers
  // 0, bools false) for each top-level tensor whose inferred type is a static numeric tensor, so
  // that a failure that does not depend on values (a lowering error) can still be cut to its node.
  std::map<std::string, onnx::DataValue> synthesized;
};

struct ValueSources {
  std::string model_path;     // the .onnx `model` was read from (lowered for the ref run)
  std::string data_dir;       // input_<k>.pb / .npy
  std::string expected_path;  // check's expected layout; "" = data_dir; "-" = none
  bool compute = true;        // run the model on ref for `computed`
  int threads = 1;
};

// Reads the inputs (every graph input that is not an initializer must have one) and the expected
// values, and runs the model on ref when asked: a model that does not lower or run leaves
// `computed` empty, says why, and fills `synthesized` instead.
Expected<ValueTable> read_value_table(const ::onnx::ModelProto& model, const ValueSources& sources);

}  // namespace plumb::hunt
