// ONNX model reading: protobuf -> OnnxModel (graph, nodes, attributes, opsets, initializers,
// value types, model-local functions). No protobuf type appears in this header: the lowering
// consumes these plain structs.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "frontends/onnx/tensor_proto.h"
#include "ir/status.h"
#include "ir/type.h"

namespace plumb::onnx {

// Accepted ranges (opset.cpp-style policy, kept here): IR versions and ai.onnx opsets.
constexpr int64_t kMinIrVersion = 3;
constexpr int64_t kMaxIrVersion = 13;
constexpr int64_t kMinOnnxOpset = 1;
constexpr int64_t kMaxOnnxOpset = 28;
constexpr int64_t kMaxMlOpset = 5;
constexpr int64_t kMaxTrainingOpset = 1;

// Canonical domain names: "" (ai.onnx; "ai.onnx" is folded into it), "ai.onnx.ml",
// "ai.onnx.preview.training", or a custom domain as written.
std::string canonical_domain(const std::string& domain);

struct OnnxGraph;

// AttributeProto.AttributeType, same numbering.
enum class AttrType : int {
  Undefined = 0,
  Float = 1,
  Int = 2,
  String = 3,
  Tensor = 4,
  Graph = 5,
  Floats = 6,
  Ints = 7,
  Strings = 8,
  Tensors = 9,
  Graphs = 10,
  SparseTensor = 11,
  SparseTensors = 12,
  TypeProto = 13,
  TypeProtos = 14,
};
const char* attr_type_name(AttrType t);  // "INT", "FLOATS", ...

struct OnnxAttribute {
  std::string name;
  AttrType type = AttrType::Undefined;
  // Inside a function body: the name of the function attribute this one refers to (then the
  // value fields are empty and the caller's attribute, or the function's default, applies).
  std::string ref_attr_name;

  float f = 0.0f;
  int64_t i = 0;
  std::string s;
  Tensor t;                            // Tensor, and SparseTensor (densified)
  std::shared_ptr<const OnnxGraph> g;  // Graph
  std::optional<ir::Type> tp;          // TypeProto (nullopt when the TypeProto has no type)
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;  // Tensors, and SparseTensors (densified)
  std::vector<std::shared_ptr<const OnnxGraph>> graphs;
  std::vector<std::optional<ir::Type>> type_protos;
};

struct OnnxNode {
  std::string name;
  std::string op_type;
  std::string domain;                // canonical (see canonical_domain)
  std::string overload;              // ONNX IR 10 NodeProto.overload (for function calls), may be empty
  std::vector<std::string> inputs;   // "" marks an omitted optional input
  std::vector<std::string> outputs;  // "" marks an omitted optional output
  std::vector<OnnxAttribute> attributes;

  const OnnxAttribute* attr(const std::string& attr_name) const;  // nullptr when absent
  bool has_attr(const std::string& attr_name) const { return attr(attr_name) != nullptr; }
  // Typed getters with the caller's default; an attribute of another type is an InvalidModel error.
  Expected<int64_t> attr_int(const std::string& attr_name, int64_t dflt) const;
  Expected<float> attr_float(const std::string& attr_name, float dflt) const;
  Expected<std::string> attr_string(const std::string& attr_name, const std::string& dflt) const;
  Expected<std::vector<int64_t>> attr_ints(const std::string& attr_name,
                                           const std::vector<int64_t>& dflt) const;
  Expected<std::vector<float>> attr_floats(const std::string& attr_name,
                                           const std::vector<float>& dflt) const;
  // "node 'name' (OpType)" or "node #index (OpType)" for error places.
  std::string place() const;
};

struct OnnxValueInfo {
  std::string name;
  std::optional<ir::Type> type;  // nullopt: no type given (or an opaque/unsupported TypeProto)
  bool sparse = false;           // the declared type was a sparse tensor (type holds it densely)
};

struct OnnxGraph {
  std::string name;
  std::vector<OnnxNode> nodes;
  // Graph inputs, as declared. In IR < 4 models initializers may also be listed as inputs; see
  // `is_initializer`. The lowering binds only non-initializer inputs to user data.
  std::vector<OnnxValueInfo> inputs;
  std::vector<OnnxValueInfo> outputs;
  std::vector<OnnxValueInfo> value_info;
  // Initializers, dense (sparse_initializer entries are densified and appended here).
  std::vector<Tensor> initializers;

  const Tensor* initializer(const std::string& tensor_name) const;
  bool is_initializer(const std::string& tensor_name) const { return initializer(tensor_name) != nullptr; }
  // The declared type of a name: graph input/output or value_info; nullptr when none.
  const OnnxValueInfo* declared(const std::string& tensor_name) const;
  // Inputs that are not also initializers (the ones a user feeds).
  std::vector<const OnnxValueInfo*> real_inputs() const;
};

struct OnnxFunction {
  std::string name;
  std::string domain;    // canonical
  std::string overload;  // IR 10
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::vector<std::string> attributes;            // attribute names without defaults
  std::vector<OnnxAttribute> attribute_defaults;  // attribute_proto (IR 9): names with defaults
  std::vector<OnnxNode> nodes;
  std::map<std::string, int64_t> opsets;  // canonical domain -> version
  std::vector<OnnxValueInfo> value_info;  // IR 10
};

struct OnnxModel {
  int64_t ir_version = 0;
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  int64_t model_version = 0;
  std::map<std::string, int64_t> opsets;  // canonical domain -> version
  OnnxGraph graph;
  std::string path;      // the file it was read from (empty when parsed from memory)
  std::string base_dir;  // where external data was resolved

  // The imported version of a domain (canonicalised), or 0 when not imported.
  int64_t opset(const std::string& domain_name) const;
  // The model-local functions, in file order.
  const std::vector<OnnxFunction>& functions() const { return functions_; }
  // Adds a model-local function; InvalidModel when its (domain, name, overload) is defined already.
  Status add_function(OnnxFunction fn);
  // A model-local function by (domain, name, overload); nullptr when none. An index lookup: the
  // lowering asks once per node, and a hostile model may define 100,000 functions.
  const OnnxFunction* function(const std::string& domain_name, const std::string& fn_name,
                               const std::string& overload = {}) const;

 private:
  using FunctionKey = std::tuple<std::string, std::string, std::string>;  // domain, name, overload
  std::vector<OnnxFunction> functions_;
  std::map<FunctionKey, size_t> function_index_;  // into functions_
};

struct LoadOptions {
  // Check IR version and opset ranges (check_versions) while loading.
  bool check_versions = true;
  // Refuse model files larger than this (protobuf's own limit is 2 GiB).
  uint64_t max_model_bytes = (uint64_t{1} << 31) - 1;
};

// Reads a .onnx file. External data is resolved relative to the file's folder.
// Errors carry the file as place.
Expected<OnnxModel> load_model(const std::string& path, const LoadOptions& options = {});
// Parses a serialized ModelProto. `base_dir` is where external data is looked up (empty: refused).
Expected<OnnxModel> parse_model(const std::string& bytes, const std::string& base_dir = {},
                                const LoadOptions& options = {});

// The ONNX test layout: reads <dir>/input_<k>.pb (or output_<k>.pb when `outputs`) for k = 0, 1,
// ... until the first missing index, each as the kind of the k-th graph input (real_inputs()) or
// output; a file past the declared count is read with a guessed kind. Errors name the file.
Expected<std::vector<DataValue>> read_test_data_set(const std::string& dir, const OnnxGraph& graph,
                                                    bool outputs);

// IR versions 3..13; ai.onnx opsets 1..28, ai.onnx.ml 1..5, ai.onnx.preview.training 1.
// A newer version is Unsupported (naming it); a malformed one (< 1, missing ai.onnx) InvalidModel.
Status check_versions(const OnnxModel& model);

}  // namespace plumb::onnx
