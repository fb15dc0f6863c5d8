// check_node_structure: what every op shares (ops.def): arity, region count, and exactly the op's
// attributes, in ops.def order, that decode into its typed struct (right kinds, in-range codes).
#include <string>

#include "ir/attrs.h"
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
  if (static_cast<int>(n.op) >= kNumOps)
    return invalid_model("", "unknown op code " + std::to_string(int(n.op)));
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
  for (int i = 0; i < info.num_attrs; ++i)
    if (n.attrs[i].name != info.attrs[i].name)
      return invalid_model(op + ".attrs", "attribute " + std::to_string(i) + " is '" + n.attrs[i].name +
                                              "', expected '" + std::string(info.attrs[i].name) +
                                              "' (ops.def order)");
  // Kinds and enum/dtype ranges: what decoding into the op's typed struct (ir/attrs.h) checks.
  return check_attrs(n);
}

}  // namespace plumb::ir
