// check_node_structure: what every op shares (ops.def): arity, region count, and exactly the op's
// attributes with the right kinds and in-range enum codes.
#include <string>

#include "ir/infer.h"

namespace plumb::ir {

namespace {
std::string count_range(int lo, int hi) {
  if (hi == kVariadic) return "at least " + std::to_string(lo);
  if (lo == hi) return std::to_string(lo);
  return std::to_string(lo) + ".." + std::to_string(hi);
}
}  // namespace

Status check_node_structure(const Node& n) {
  if (static_cast<int>(n.op) >= kNumOps) return invalid_model("", "unknown op code " + std::to_string(int(n.op)));
  const OpInfo& info = op_info(n.op);
  const std::string op(info.mnemonic);
  const int nin = static_cast<int>(n.inputs.size());
  const int nout = static_cast<int>(n.outputs.size());
  if (nin < info.min_inputs || (info.max_inputs != kVariadic && nin > info.max_inputs))
    return invalid_model(op + ".arity", strfmt("%d operands, %s expects %s", nin, op.c_str(),
                                               count_range(info.min_inputs, info.max_inputs).c_str()));
  if (nout < info.min_outputs || (info.max_outputs != kVariadic && nout > info.max_outputs))
    return invalid_model(op + ".arity", strfmt("%d results, %s produces %s", nout, op.c_str(),
                                               count_range(info.min_outputs, info.max_outputs).c_str()));
  if (static_cast<int>(n.regions.size()) != info.regions)
    return invalid_model(op + ".arity",
                         strfmt("%d regions, %s has %d", int(n.regions.size()), op.c_str(), info.regions));
  if (static_cast<int>(n.attrs.size()) != info.num_attrs) {
    // Name the first missing or unexpected attribute.
    for (int i = 0; i < info.num_attrs; ++i)
      if (!n.find_attr(info.attrs[i].name))
        return invalid_model(op + ".attrs", "missing attribute '" + std::string(info.attrs[i].name) + "'");
    for (const Attr& a : n.attrs)
      if (!find_attr_spec(n.op, a.name))
        return invalid_model(op + ".attrs", "unexpected attribute '" + a.name + "'");
    return invalid_model(op + ".attrs", "duplicate attribute");
  }
  for (int i = 0; i < info.num_attrs; ++i) {
    const AttrSpec& spec = info.attrs[i];
    const Attr& a = n.attrs[i];
    if (a.name != spec.name)
      return invalid_model(op + ".attrs", "attribute " + std::to_string(i) + " is '" + a.name + "', expected '" +
                                              std::string(spec.name) + "' (ops.def order)");
    if (attr_value_kind(a.value) != spec.kind)
      return invalid_model(op + ".attrs", "attribute '" + a.name + "' is " +
                                              std::string(attr_kind_name(attr_value_kind(a.value))) + ", expected " +
                                              std::string(attr_kind_name(spec.kind)));
    if (spec.kind == AttrKind::Enum) {
      const int code = std::get<EnumValue>(a.value).code;
      if (code < 0 || code >= enum_size(spec.enum_type))
        return invalid_model(op + ".attrs", strfmt("attribute '%s': %d is not a %s value", a.name.c_str(), code,
                                                   std::string(spec.enum_type).c_str()));
    }
    if (spec.kind == AttrKind::DType) {
      const int code = static_cast<int>(std::get<DType>(a.value));
      if (code < 0 || code >= kNumDTypes)
        return invalid_model(op + ".attrs", strfmt("attribute '%s': dtype code %d out of range", a.name.c_str(), code));
    }
  }
  return Status::ok();
}

}  // namespace plumb::ir
