#include "ir/graph.h"

#include <cstring>

#include "ir/status.h"

namespace plumb::ir {

ConstantData ConstantData::copy_of(Type type, const void* bytes, uint64_t n) {
  std::vector<uint8_t> v(n);
  if (n) std::memcpy(v.data(), bytes, n);
  return owned(std::move(type), std::move(v));
}

ConstantData ConstantData::owned(Type type, std::vector<uint8_t> bytes) {
  auto holder = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  ConstantData c;
  c.type = std::move(type);
  c.data = holder->data();
  c.size = holder->size();
  c.owner = std::move(holder);
  return c;
}

AttrKind attr_value_kind(const AttrValue& v) { return static_cast<AttrKind>(v.index()); }
static_assert(std::variant_size_v<AttrValue> == 10, "AttrValue must mirror AttrKind");

const Attr* Node::find_attr(std::string_view name) const {
  for (const Attr& a : attrs)
    if (a.name == name) return &a;
  return nullptr;
}

namespace {
template <typename T>
const T* attr_get(const Node& n, std::string_view name) {
  const Attr* a = n.find_attr(name);
  return a ? std::get_if<T>(&a->value) : nullptr;
}
}  // namespace

int64_t Node::attr_int(std::string_view name) const {
  const auto* p = attr_get<int64_t>(*this, name);
  return p ? *p : 0;
}
double Node::attr_float(std::string_view name) const {
  const auto* p = attr_get<double>(*this, name);
  return p ? *p : 0.0;
}
bool Node::attr_bool(std::string_view name) const {
  const auto* p = attr_get<bool>(*this, name);
  return p ? *p : false;
}
const std::vector<int64_t>& Node::attr_ints(std::string_view name) const {
  static const std::vector<int64_t> kEmpty;
  const auto* p = attr_get<std::vector<int64_t>>(*this, name);
  return p ? *p : kEmpty;
}
const std::vector<double>& Node::attr_floats(std::string_view name) const {
  static const std::vector<double> kEmpty;
  const auto* p = attr_get<std::vector<double>>(*this, name);
  return p ? *p : kEmpty;
}
const std::string& Node::attr_str(std::string_view name) const {
  static const std::string kEmpty;
  const auto* p = attr_get<std::string>(*this, name);
  return p ? *p : kEmpty;
}
DType Node::attr_dtype(std::string_view name) const {
  const auto* p = attr_get<DType>(*this, name);
  return p ? *p : DType::F32;
}
int Node::attr_enum(std::string_view name) const {
  const auto* p = attr_get<EnumValue>(*this, name);
  return p ? p->code : 0;
}
uint32_t Node::attr_const(std::string_view name) const {
  const auto* p = attr_get<ConstRef>(*this, name);
  return p ? p->index : 0;
}
const Type& Node::attr_type(std::string_view name) const {
  static const Type kNone;
  const auto* p = attr_get<TypeAttr>(*this, name);
  return p ? p->type : kNone;
}

ValueId Graph::add_value(Type type, std::string onnx_name) {
  values.push_back(Value{std::move(type), std::move(onnx_name)});
  return static_cast<ValueId>(values.size() - 1);
}

std::string node_place(const Node& n, int64_t index) {
  std::string s = "node #" + std::to_string(index) + " " + std::string(op_name(n.op));
  if (!n.prov.op_type.empty()) {
    s += " [from '" + n.prov.node_name + "' (" + n.prov.op_type;
    if (n.prov.opset > 0) s += "-" + std::to_string(n.prov.opset);
    s += ")]";
  }
  return s;
}

}  // namespace plumb::ir
