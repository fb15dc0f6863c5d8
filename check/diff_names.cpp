#include "check/diff_names.h"

#include <type_traits>

#include "ir/status.h"

namespace plumb::check {

namespace {

template <typename T>
std::string values_text(const std::vector<T>& v) {
  std::vector<std::string> parts;
  for (const T& x : v) {
    if constexpr (std::is_same_v<T, double>)
      parts.push_back(strfmt("%g", x));
    else
      parts.push_back(std::to_string(x));
  }
  return "[" + join(parts, ",", 16) + "]";
}

}  // namespace

std::string join(const std::vector<std::string>& parts, const char* sep, size_t most) {
  std::string s;
  for (size_t k = 0; k < parts.size() && k < most; ++k) s += (k ? sep : "") + parts[k];
  if (parts.size() > most) s += strfmt("%s... (%zu in all)", sep, parts.size());
  return s;
}

std::string list_text(const std::vector<int64_t>& v) { return values_text(v); }
std::string list_text(const std::vector<double>& v) { return values_text(v); }

std::string attr_text(const ir::Node& n, const ir::Attr& a) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) return std::to_string(v);
        if constexpr (std::is_same_v<T, double>) return strfmt("%g", v);
        if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
        if constexpr (std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<double>>)
          return list_text(v);
        if constexpr (std::is_same_v<T, std::string>) return "\"" + v + "\"";
        if constexpr (std::is_same_v<T, ir::DType>) return std::string(ir::dtype_name(v));
        if constexpr (std::is_same_v<T, ir::EnumValue>) {
          const ir::AttrSpec* spec = ir::find_attr_spec(n.op, a.name);
          const std::string_view name = spec ? ir::enum_value_name(spec->enum_type, v.code) : "";
          return name.empty() ? std::to_string(v.code) : std::string(name);
        }
        if constexpr (std::is_same_v<T, ir::TypeAttr>) return ir::type_to_string(v.type);
        return "<constant>";
      },
      a.value);
}

std::string node_label(const ir::Node& n) {
  std::string s(ir::op_name(n.op));
  if (const ir::Attr* k = n.find_attr("kind")) s += " " + attr_text(n, *k);
  return s;
}

std::string span_text(const ir::Graph& g, const std::vector<size_t>& nodes) {
  std::vector<std::string> parts;
  for (size_t k : nodes) parts.push_back(node_label(g.body.nodes[k]));
  return strfmt("%zu core node%s [", nodes.size(), nodes.size() == 1 ? "" : "s") + join(parts, ", ", 8) + "]";
}

const ir::Provenance& owner(const ir::Graph& g, size_t k) {
  const ir::Node& n = g.body.nodes[k];
  if (!n.prov.node_name.empty() || !n.prov.op_type.empty() || n.outputs.empty()) return n.prov;
  for (size_t j = k + 1; j < g.body.nodes.size(); ++j)
    for (ir::ValueId v : g.body.nodes[j].inputs)
      if (v == n.outputs[0]) return g.body.nodes[j].prov;
  return n.prov;
}

std::string group_key(const ir::Provenance& p) {
  return p.node_name.empty() ? '\0' + p.op_type : p.node_name;
}

std::string onnx_node_text(const ir::Provenance& p) {
  return (p.op_type.empty() ? std::string("node") : p.op_type) +
         (p.node_name.empty() ? std::string(" (unnamed)") : " '" + p.node_name + "'");
}

}  // namespace plumb::check
