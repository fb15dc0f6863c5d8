// What OnnxModel, OnnxGraph and OnnxNode answer once loaded (model.h): canonical domains,
// attribute kinds, typed attribute access, initializer and declaration lookups, the function
// index. Reading a ModelProto into them is model.cpp.
#include <string>
#include <vector>

#include "frontends/onnx/model.h"

namespace plumb::onnx {

std::string canonical_domain(const std::string& domain) {
  return domain == "ai.onnx" ? std::string() : domain;
}

const char* attr_type_name(AttrType t) {
  switch (t) {
    case AttrType::Undefined: return "UNDEFINED";
    case AttrType::Float: return "FLOAT";
    case AttrType::Int: return "INT";
    case AttrType::String: return "STRING";
    case AttrType::Tensor: return "TENSOR";
    case AttrType::Graph: return "GRAPH";
    case AttrType::Floats: return "FLOATS";
    case AttrType::Ints: return "INTS";
    case AttrType::Strings: return "STRINGS";
    case AttrType::Tensors: return "TENSORS";
    case AttrType::Graphs: return "GRAPHS";
    case AttrType::SparseTensor: return "SPARSE_TENSOR";
    case AttrType::SparseTensors: return "SPARSE_TENSORS";
    case AttrType::TypeProto: return "TYPE_PROTO";
    case AttrType::TypeProtos: return "TYPE_PROTOS";
  }
  return "?";
}

// --- OnnxNode ----------------------------------------------------------------------------------

const OnnxAttribute* OnnxNode::attr(const std::string& attr_name) const {
  for (const auto& a : attributes)
    if (a.name == attr_name) return &a;
  return nullptr;
}

std::string OnnxNode::place() const {
  return (name.empty() ? std::string("node") : "node '" + name + "'") + " (" + op_type + ")";
}

namespace {
template <typename T, typename Get>
Expected<T> typed_attr(const OnnxNode& n, const std::string& attr_name, AttrType want, T dflt, Get get) {
  const OnnxAttribute* a = n.attr(attr_name);
  if (a == nullptr) return dflt;
  if (a->type != want)
    return Status(ErrorCode::kInvalidModel,
                  strfmt("attribute '%s' is %s, expected %s", attr_name.c_str(), attr_type_name(a->type),
                         attr_type_name(want)),
                  "", n.place());
  return get(*a);
}
}  // namespace

Expected<int64_t> OnnxNode::attr_int(const std::string& n, int64_t d) const {
  return typed_attr<int64_t>(*this, n, AttrType::Int, d, [](const OnnxAttribute& a) { return a.i; });
}
Expected<float> OnnxNode::attr_float(const std::string& n, float d) const {
  return typed_attr<float>(*this, n, AttrType::Float, d, [](const OnnxAttribute& a) { return a.f; });
}
Expected<std::string> OnnxNode::attr_string(const std::string& n, const std::string& d) const {
  return typed_attr<std::string>(*this, n, AttrType::String, d, [](const OnnxAttribute& a) { return a.s; });
}
Expected<std::vector<int64_t>> OnnxNode::attr_ints(const std::string& n,
                                                   const std::vector<int64_t>& d) const {
  return typed_attr<std::vector<int64_t>>(*this, n, AttrType::Ints, d,
                                          [](const OnnxAttribute& a) { return a.ints; });
}
Expected<std::vector<float>> OnnxNode::attr_floats(const std::string& n, const std::vector<float>& d) const {
  return typed_attr<std::vector<float>>(*this, n, AttrType::Floats, d,
                                        [](const OnnxAttribute& a) { return a.floats; });
}

// --- OnnxGraph / OnnxModel --------------------------------------------------------------------

const Tensor* OnnxGraph::initializer(const std::string& tensor_name) const {
  for (const auto& t : initializers)
    if (t.name == tensor_name) return &t;
  return nullptr;
}

const OnnxValueInfo* OnnxGraph::declared(const std::string& tensor_name) const {
  for (const auto* list : {&inputs, &outputs, &value_info})
    for (const auto& v : *list)
      if (v.name == tensor_name) return &v;
  return nullptr;
}

std::vector<const OnnxValueInfo*> OnnxGraph::real_inputs() const {
  std::vector<const OnnxValueInfo*> out;
  for (const auto& v : inputs)
    if (!is_initializer(v.name)) out.push_back(&v);
  return out;
}

int64_t OnnxModel::opset(const std::string& domain_name) const {
  auto it = opsets.find(canonical_domain(domain_name));
  return it == opsets.end() ? 0 : it->second;
}

Status OnnxModel::add_function(OnnxFunction fn) {
  FunctionKey key{canonical_domain(fn.domain), fn.name, fn.overload};
  if (function_index_.count(key))
    return invalid_model("", "function '" + fn.domain + "." + fn.name + "' is defined twice");
  function_index_.emplace(std::move(key), functions_.size());
  functions_.push_back(std::move(fn));
  return Status::ok();
}

const OnnxFunction* OnnxModel::function(const std::string& domain_name, const std::string& fn_name,
                                        const std::string& overload) const {
  auto it = function_index_.find(FunctionKey{canonical_domain(domain_name), fn_name, overload});
  return it == function_index_.end() ? nullptr : &functions_[it->second];
}

}  // namespace plumb::onnx
