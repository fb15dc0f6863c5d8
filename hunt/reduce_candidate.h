// The reduced models `plumb reduce` tries (docs/reduce.md): the model of a subset of the original's
// top-level nodes, kept valid. A tensor a kept node reads from a node left out is
//   - an initializer holding the Constant node's value (the same model, one node fewer), or
//   - a value the policy allows: a new graph input fed with it (an initializer for a tensor that
//     only depends on constants and has ref's value), or
//   - when no allowed value exists, its producer is kept too (the closure).
// The reduced model's outputs are the tensors its nodes compute that the original returned or
// that a left-out node read; the policy says which value each is expected to have.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <vector>

#include "hunt/reduce_values.h"

namespace plumb::hunt {

enum class ValuePolicy {
  // `plumb reduce --until check-fails`: only the expected values given (the reference side) feed
  // cut tensors and are expected of outputs, so a reduced model fails only if a node it holds
  // computes wrong (ref's own values would carry an upstream fault into an innocent node).
  kExpectedOnly,
  // --until backends-differ and --predicate: ref's values of the original feed cut tensors
  // (expected values where ref has none; stand-ins when the model does not run on ref, see
  // reduce_values.h); outputs are expected to have the given expected value,
  // else ref's.
  kComputed,
};

struct Candidate {
  ::onnx::ModelProto model;
  std::vector<onnx::DataValue> inputs;                   // one per graph input, named, in order
  std::vector<std::optional<onnx::DataValue>> expected;  // one per graph output
  std::vector<onnx::DataValue> intermediates;  // expected values of tensors computed inside (kExpectedOnly)
  std::vector<size_t> nodes;                   // the original's top-level node indices it holds
  size_t num_nodes() const { return static_cast<size_t>(model.graph().node_size()); }
};

class CandidateBuilder {
 public:
  // `base_dir`: where the original's external data lives (its initializers are inlined).
  CandidateBuilder(const ::onnx::ModelProto& original, const ValueTable& values, ValuePolicy policy,
                   std::string base_dir);

  // The model holding `nodes` (indices of the original's top-level nodes) and the nodes the
  // closure adds. An error when it would have no output.
  Expected<Candidate> build(const std::vector<size_t>& nodes) const;
  // The closure of `nodes` (sorted), without building the model.
  std::vector<size_t> closure(const std::vector<size_t>& nodes) const;

  size_t num_nodes() const { return reads_.size(); }
  // "'name' (Op)" or "#k (Op)".
  std::string describe(size_t node) const;

 private:
  enum class Cut { kKeepProducer, kInitializer, kInput };
  Cut cut_of(const std::string& name, int producer) const;
  const onnx::DataValue* cut_value(const std::string& name) const;
  const onnx::DataValue* expected_value(const std::string& name) const;

  const ::onnx::ModelProto& original_;
  const ValueTable& values_;
  ValuePolicy policy_;
  std::string base_dir_;
  std::vector<std::vector<std::string>> reads_;    // per top-level node: names_read
  std::map<std::string, int> producer_;            // top-level value name -> node
  std::vector<bool> constant_;                     // per node: computes from constants only
  std::map<std::string, onnx::Tensor> constants_;  // initializers and Constant outputs
  std::map<std::string, ::onnx::TypeProto> types_;
};

// Writes DIR/model.onnx and DIR/test_data_set_0/: input_<k>.pb, output_<k>.pb (the outputs' expected
// values; none for an output without one) and expected_<k>.pb (the intermediates, which `plumb
// check` reads by tensor name and the ONNX test runners ignore). Creates the folders.
Status write_candidate(const std::string& dir, const Candidate& c);

}  // namespace plumb::hunt
