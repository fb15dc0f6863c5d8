#include "hunt/op_labels.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <optional>
#include <set>

#include "frontends/onnx/model.h"
#include "hunt/onnx_proto.h"
#include "ir/dtype.h"

namespace plumb::hunt {

namespace {

// Multidirectional (and PRelu's unidirectional) broadcasting: the rule makes it explicit.
const std::set<std::string> kBroadcasting = {
    "Add",  "Sub",         "Mul",        "Div",       "Pow",        "Mod",   "And",     "Or",
    "Xor",  "BitShift",    "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Equal", "Greater", "GreaterOrEqual",
    "Less", "LessOrEqual", "Max",        "Min",       "Mean",       "Sum",   "Where",   "PRelu"};
const std::set<std::string> kSpatial = {"Conv",   "ConvTranspose", "MaxPool",    "AveragePool",
                                        "LpPool", "ConvInteger",   "QLinearConv"};
const std::set<std::string> kModes = {"Resize", "Upsample", "Pad", "GridSample"};

std::string dtype_text(int32_t onnx_code) {
  auto dt = ir::dtype_from_onnx_code(onnx_code);
  return dt ? std::string(ir::dtype_name(*dt)) : "dtype" + std::to_string(onnx_code);
}

std::string type_text(const ::onnx::TypeProto& t) {
  switch (t.value_case()) {
    case ::onnx::TypeProto::kTensorType:
      return t.tensor_type().elem_type() ? dtype_text(t.tensor_type().elem_type()) : "";
    case ::onnx::TypeProto::kSequenceType: {
      const std::string e = type_text(t.sequence_type().elem_type());
      return e.empty() ? "" : "seq:" + e;
    }
    case ::onnx::TypeProto::kOptionalType: {
      const std::string e = type_text(t.optional_type().elem_type());
      return e.empty() ? "" : "opt:" + e;
    }
    case ::onnx::TypeProto::kMapType: return "map";
    default: return "";
  }
}

class Labeler {
 public:
  Labeler(const ::onnx::NodeProto& n, const LabelContext& cx) : n_(n), cx_(cx) {
    const std::string domain = onnx::canonical_domain(n.domain());
    int64_t version = 0;
    if (cx.opsets)
      if (auto it = cx.opsets->find(domain); it != cx.opsets->end()) version = it->second;
    if (version > 0)
      schema_ =
          ::onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(std::min<int64_t>(version, 1000)),
                                           domain.empty() ? std::string(::onnx::ONNX_DOMAIN) : domain);
  }

  const ::onnx::TypeProto* type(const std::string& name) const {
    if (name.empty() || !cx_.types) return nullptr;
    auto it = cx_.types->find(name);
    return it == cx_.types->end() ? nullptr : &it->second;
  }
  std::optional<TensorTypeInfo> tensor(int input) const {
    if (input >= n_.input_size()) return std::nullopt;
    const ::onnx::TypeProto* t = type(n_.input(input));
    return t ? tensor_type_info(*t) : std::nullopt;
  }
  int rank(int input) const {
    auto t = tensor(input);
    return t && t->rank_known ? static_cast<int>(t->dims.size()) : -1;
  }
  const ::onnx::AttributeProto* attr(const std::string& name) const {
    for (const auto& a : n_.attribute())
      if (a.name() == name) return &a;
    if (schema_) {
      auto it = schema_->attributes().find(name);
      if (it != schema_->attributes().end() && it->second.default_value.type() != 0)
        return &it->second.default_value;
    }
    return nullptr;
  }
  std::optional<int64_t> attr_int(const std::string& name) const {
    const auto* a = attr(name);
    if (!a || a->type() != ::onnx::AttributeProto::INT) return std::nullopt;
    return a->i();
  }
  // A constant input of the schema's formal name (e.g. "axes", "steps").
  std::optional<std::vector<int64_t>> const_input(const std::string& formal) const {
    if (!schema_ || !cx_.constants) return std::nullopt;
    const auto& inputs = schema_->inputs();
    for (size_t k = 0; k < inputs.size() && static_cast<int>(k) < n_.input_size(); ++k) {
      if (inputs[k].GetName() != formal || n_.input(static_cast<int>(k)).empty()) continue;
      auto it = cx_.constants->find(n_.input(static_cast<int>(k)));
      if (it != cx_.constants->end()) return tensor_ints(it->second);
    }
    return std::nullopt;
  }
  bool has_formal_input(const std::string& formal) const {
    if (!schema_) return false;
    for (const auto& p : schema_->inputs())
      if (p.GetName() == formal) return true;
    return false;
  }
  bool input_given(const std::string& formal) const {
    if (!schema_) return false;
    const auto& inputs = schema_->inputs();
    for (size_t k = 0; k < inputs.size() && static_cast<int>(k) < n_.input_size(); ++k)
      if (inputs[k].GetName() == formal && !n_.input(static_cast<int>(k)).empty()) return true;
    return false;
  }

  NodeLabel label() const {
    NodeLabel l;
    l.op = n_.op_type();
    l.domain = onnx::canonical_domain(n_.domain());
    for (const std::string& name : n_.input())
      if (const auto* t = type(name); t && !type_text(*t).empty()) {
        l.dtype = type_text(*t);
        break;
      }
    if (l.dtype.empty() && n_.input_size() == 0)
      for (const std::string& name : n_.output())
        if (const auto* t = type(name); t && !type_text(*t).empty()) {
          l.dtype = type_text(*t);
          break;
        }
    if (auto axis = attr_int("axis")) l.classes.push_back(*axis < 0 ? "axis-" : "axis+");
    if (auto c = axes_class()) l.classes.push_back(*c);
    if (l.domain.empty()) op_classes(l.classes);
    return l;
  }

 private:
  std::optional<std::string> axes_class() const {
    std::optional<std::vector<int64_t>> axes;
    bool present = false;
    if (const auto* a = attr("axes"); a && a->type() == ::onnx::AttributeProto::INTS) {
      axes = std::vector<int64_t>(a->ints().begin(), a->ints().end());
      present = true;
    } else if (has_formal_input("axes")) {
      present = input_given("axes");
      axes = const_input("axes");
    } else if (!schema_ || !schema_->attributes().count("axes")) {
      return std::nullopt;  // the op has no axes
    }
    if (!present) return std::string("axes*");
    if (!axes) return std::nullopt;  // computed axes: unknown sign
    const bool neg = std::any_of(axes->begin(), axes->end(), [](int64_t a) { return a < 0; });
    return std::string(neg ? "axes-" : "axes+");
  }

  void op_classes(std::vector<std::string>& c) const {
    const std::string& op = n_.op_type();
    if (kBroadcasting.count(op)) {
      std::optional<TensorTypeInfo> first;
      bool known = true, differ = false;
      for (int k = 0; k < n_.input_size(); ++k) {
        if (n_.input(k).empty()) continue;
        auto t = tensor(k);
        if (!t || !t->rank_known) {
          known = false;
          continue;
        }
        if (!first) {
          first = t;
        } else if (t->dims.size() != first->dims.size()) {
          differ = true;
        } else {
          for (size_t d = 0; d < t->dims.size(); ++d) {
            if (t->dims[d] < 0 || first->dims[d] < 0)
              known = false;
            else if (t->dims[d] != first->dims[d])
              differ = true;
          }
        }
      }
      if (differ)
        c.push_back("bcast");
      else if (known && first)
        c.push_back("same");
    }
    if (kSpatial.count(op)) {
      int r = op == "Conv" || op == "ConvTranspose" ? rank(1) : -1;
      if (r < 0) r = rank(0);
      if (r >= 3) c.push_back(std::to_string(r - 2) + "d");
    }
    if (op == "Conv" || op == "ConvTranspose") {
      const int64_t group = attr_int("group").value_or(1);
      auto x = tensor(0);
      if (group > 1) {
        const bool depthwise = x && x->dims.size() >= 2 && x->dims[1] == group;
        c.push_back(depthwise ? "depthwise" : "grouped");
      }
    }
    if ((op == "MaxPool" || op == "AveragePool") && attr_int("ceil_mode").value_or(0) == 1)
      c.push_back("ceil");
    if (op == "Gemm") {
      if (attr_int("transA").value_or(0) == 1) c.push_back("tA");
      if (attr_int("transB").value_or(0) == 1) c.push_back("tB");
    }
    if (op == "MatMul" || op == "MatMulInteger") {
      const int a = rank(0), b = rank(1);
      if (a > 2 || b > 2) c.push_back("batched");
      if (a == 1 || b == 1) c.push_back("vec");
    }
    if (kModes.count(op))
      if (const auto* m = attr("mode"); m && m->type() == ::onnx::AttributeProto::STRING) c.push_back(m->s());
    if (op == "Cast")
      if (auto to = attr_int("to")) c.push_back("to=" + dtype_text(static_cast<int32_t>(*to)));
    if (op == "Gather" && rank(1) == 0) c.push_back("idx0");
    if (op.rfind("Reduce", 0) == 0 && attr_int("keepdims").value_or(1) == 0) c.push_back("drop");
    if (op == "Slice")
      if (auto steps = const_input("steps"))
        if (std::any_of(steps->begin(), steps->end(), [](int64_t s) { return s != 1; })) c.push_back("step");
  }

  const ::onnx::NodeProto& n_;
  const LabelContext& cx_;
  const ::onnx::OpSchema* schema_ = nullptr;
};

}  // namespace

std::string NodeLabel::op_text() const { return domain.empty() ? op : domain + ":" + op; }

std::string NodeLabel::text() const {
  std::string parts = dtype;
  for (const std::string& c : classes) parts += (parts.empty() ? "" : ",") + c;
  return parts.empty() ? op_text() : op_text() + "[" + parts + "]";
}

NodeLabel label_node(const ::onnx::NodeProto& node, const LabelContext& cx) {
  return Labeler(node, cx).label();
}

}  // namespace plumb::hunt
