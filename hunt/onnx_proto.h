// The ONNX protobuf as plumb's bug-hunting tools handle it (hunt/: op-sequence coverage, model
// reduction): they read and rewrite whole ModelProtos, which the frontend's plain structs
// (frontends/onnx/model.h) deliberately do not expose. Reading, writing, the types of every value
// (declared or inferred by libonnx), constant tensors, and libonnx's checker.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontends/onnx/tensor_proto.h"
#include "ir/status.h"

namespace onnx {
class ModelProto;
class GraphProto;
class NodeProto;
class TypeProto;
class TensorProto;
}  // namespace onnx

namespace plumb::hunt {

// Reads a .onnx file (at most 2 GiB, protobuf's limit). Errors name the file.
Expected<::onnx::ModelProto> read_model_proto(const std::string& path);
Status write_model_proto(const std::string& path, const ::onnx::ModelProto& model);

// The TypeProto of every value name of every graph of `model` (ONNX value names are unique across
// a graph and its subgraphs): graph inputs and outputs, value_info, initializers, and what libonnx
// 1.12's shape inference (with data propagation) adds. Inference errors are not fatal: a value
// it cannot type is simply absent.
std::map<std::string, ::onnx::TypeProto> value_types(const ::onnx::ModelProto& model);

// The element type and the dims of a tensor TypeProto (-1 for an unknown or symbolic dim);
// nullopt for a non-tensor type or an unknown element type. `rank_known` tells a rank-0 tensor
// from one without a shape.
struct TensorTypeInfo {
  int32_t elem_type = 0;  // TensorProto.DataType
  bool rank_known = false;
  std::vector<int64_t> dims;
};
std::optional<TensorTypeInfo> tensor_type_info(const ::onnx::TypeProto& type);

// The values of a graph that are constants: initializers and the outputs of Constant nodes (value,
// value_int(s), value_float(s)), by name.
std::map<std::string, onnx::Tensor> constant_tensors(const ::onnx::GraphProto& graph);
// The int64/int32 elements of a constant (nullopt for another dtype).
std::optional<std::vector<int64_t>> tensor_ints(const onnx::Tensor& t);

// The TypeProto of a test-data value (tensor, sequence, optional, map), with its concrete dims.
// An empty container takes its element type from `declared` when given. nullopt when there is no
// way to say the element type.
std::optional<::onnx::TypeProto> type_of_value(const onnx::DataValue& v, const ::onnx::TypeProto* declared);

// Every name a node reads: its inputs, and the outer-scope names its subgraphs read (names
// used in a subgraph, and in subgraphs nested there, that no node of theirs defines and that are
// neither their inputs nor their initializers). "" (an omitted input) is left out; order of first
// use, no repeats.
std::vector<std::string> names_read(const ::onnx::NodeProto& node);

// libonnx 1.12's checker (onnx::checker::check_model) then its shape inference in strict mode with
// type checks: what onnx.checker.check_model(model, full_check=True) does. The error is libonnx's
// message, first line. A model with an IR version or an opset newer than libonnx knows (IR 8,
// ai.onnx 17) is Unsupported: its checker refuses them whatever the model holds.
Status check_model_proto(const ::onnx::ModelProto& model);

}  // namespace plumb::hunt
