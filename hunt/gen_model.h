// plumb gen (issue 22): random valid ONNX models, deterministic for a seed. This first cut
// builds float32 chains of elementwise ops (unary and same-shape binary) whose values stay in a
// well-conditioned range by construction (no Exp/Log/Div/Pow: nothing that overflows or loses
// digits on inputs in [-1, 1)). Model k of a run depends only on (seed, k), so a shard i/n writes
// exactly the folders k = i, i+n, ... of the unsharded run, byte for byte.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontends/onnx/tensor_proto.h"
#include "ir/status.h"

namespace onnx {
class ModelProto;
}

namespace plumb::hunt {

struct GenOptions {
  uint64_t seed = 0;
  int max_nodes = 8;             // nodes per model, at least 1
  std::vector<std::string> ops;  // empty = every op gen_supported_ops() lists
  int opset = 13;                // default_opset_import; IR 8 (Debian's libonnx 1.12 checker)
};

// The ops this generator can build, sorted.
const std::vector<std::string>& gen_supported_ops();

struct GeneratedModel {
  std::string name;                  // "model_<k>" (zero-padded to 6 digits)
  std::vector<onnx::Tensor> inputs;  // one per graph input, in order
};

// Model number `index` of a run with `options`: the ModelProto in `model` and its inputs.
Expected<GeneratedModel> generate_model(const GenOptions& options, uint64_t index, ::onnx::ModelProto* model);

// Writes model `index` as DIR/<name>/model.onnx and test_data_set_0/input_<k>.pb, then runs it on
// ref and writes output_<k>.pb. Errors name the folder.
Status write_generated_model(const std::string& dir, const GenOptions& options, uint64_t index);

}  // namespace plumb::hunt
