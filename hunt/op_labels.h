// The label of an ONNX node for op-sequence coverage (docs/coverage-sequences.md): its op type and
// the attribute classes that change how plumb lowers it (dtype, axis sign, broadcast or not, and a
// few per-op classes), so that "Softmax over a negative axis, f16" and "Softmax over axis 1, f32"
// count as different things to have tested.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "frontends/onnx/tensor_proto.h"

namespace onnx {
class NodeProto;
class TypeProto;
}  // namespace onnx

namespace plumb::hunt {

struct NodeLabel {
  std::string op;      // op type
  std::string domain;  // canonical ("" = ai.onnx)
  std::string dtype;   // plumb's dtype name of the first typed input ("seq:f32", "opt:f32"); "" unknown
  std::vector<std::string> classes;  // in a fixed order per op (docs/coverage-sequences.md)

  std::string op_text() const;  // "Conv", "ai.onnx.ml:TreeEnsembleClassifier"
  std::string text() const;     // "Conv[f32,2d,depthwise]"; "Relu" without dtype or classes
};

// What a label may look at beyond the node itself.
struct LabelContext {
  const std::map<std::string, ::onnx::TypeProto>* types = nullptr;  // hunt/onnx_proto.h value_types
  const std::map<std::string, onnx::Tensor>* constants = nullptr;   // initializers, Constant outputs
  const std::map<std::string, int64_t>* opsets = nullptr;           // canonical domain -> version
};

NodeLabel label_node(const ::onnx::NodeProto& node, const LabelContext& cx);

}  // namespace plumb::hunt
