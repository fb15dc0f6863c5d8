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

int64_t preorder_size(const Node& n) {
  int64_t c = 1;
  for (const Region& r : n.regions) c += preorder_size(r);
  return c;
}

int64_t preorder_size(const Region& r) {
  int64_t c = 0;
  for (const Node& n : r.nodes) c += preorder_size(n);
  return c;
}

}  // namespace plumb::ir
