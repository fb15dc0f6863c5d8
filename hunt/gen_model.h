// plumb gen (issue 22): random valid ONNX models, deterministic for a seed. Graphs of float32
// values built by op recipes (hunt/gen_ops.cpp: 175 of the ops plumb lowers, in 34 families;
// other dtypes inside recipes) whose values stay well-conditioned by construction. Model k of a run
// depends only on (seed, k), so a shard i/n writes exactly the folders k = i, i+n, ... of the
// unsharded run, byte for byte.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "frontends/onnx/tensor_proto.h"
#include "hunt/gen_targets.h"
#include "ir/status.h"

namespace onnx {
class ModelProto;
}

namespace plumb::hunt {

struct GenOptions {
  uint64_t seed = 0;
  int max_nodes = 8;             // node count drawn in [1, max_nodes]; the last step may pass it
  std::vector<std::string> ops;  // empty = every op gen_supported_ops() lists that exists at opset
  int opset = 13;                // default_opset_import; IR 8 (Debian's libonnx 1.12 checker)
  // Every other_every-th model (k mod other_every = other_every - 1; 0: none) is an other-opset
  // model: built at the opset of an op of gen::other_opset_recipes() (the ops the run's opset
  // lacks), which it holds, the others in turn (docs/gen.md, "Ops at other opsets").
  int other_every = 200;
  // --targets: steer draws toward a coverage report's uncovered op sequences (null: no steering;
  // the draws, and so the bytes, are then those of a run without it).
  std::shared_ptr<const GenTargets> targets;
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
// ref and writes output_<k>.pb (one per graph output: every value no node reads). Errors name the
// folder.
Status write_generated_model(const std::string& dir, const GenOptions& options, uint64_t index);

}  // namespace plumb::hunt
