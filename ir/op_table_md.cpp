#include "ir/op_table_md.h"

#include "ir/op.h"

namespace plumb::ir {

namespace {
std::string count(int lo, int hi) {
  if (hi == kVariadic) return std::to_string(lo) + "+";
  if (lo == hi) return std::to_string(lo);
  return std::to_string(lo) + ".." + std::to_string(hi);
}
}  // namespace

std::string render_op_table_markdown() {
  std::string s =
      "# Core op table (version " + std::to_string(kCoreVersion) +
      ")\n\nGenerated from `spec/ops.def` by `ir::render_op_table_markdown()`; do not edit by hand.\n"
      "`SpecTables.UpToDate` fails when this file is stale (regenerate with\n"
      "`PLUMB_UPDATE_GOLDEN=1 build/bin/plumb_ir_tests --gtest_filter=SpecTables.*`).\n\n"
      "| code | op | operands | results | regions | attributes | tolerance |\n"
      "|---:|---|---|---|---|---|---|\n";
  for (int i = 0; i < kNumOps; ++i) {
    const OpInfo& info = op_info(static_cast<Op>(i));
    std::string attrs;
    for (int a = 0; a < info.num_attrs; ++a) {
      const AttrSpec& spec = info.attrs[a];
      if (a) attrs += ", ";
      attrs += "`" + std::string(spec.name) + "`: " + std::string(attr_kind_name(spec.kind));
      if (spec.kind == AttrKind::Enum) {
        attrs += " (";
        for (int k = 0; k < enum_size(spec.enum_type); ++k) {
          if (k) attrs += " \\| ";
          attrs += std::string(enum_value_name(spec.enum_type, k));
        }
        attrs += ")";
      }
    }
    std::string tol(tolerance_name(info.tolerance));
    if (info.tolerance == ToleranceClass::PerKind) {
      const AttrSpec* kind = find_attr_spec(info.op, "kind");
      tol = "per kind: ";
      for (int k = 0; kind && k < enum_size(kind->enum_type); ++k) {
        if (k) tol += ", ";
        tol += std::string(enum_value_name(kind->enum_type, k)) + " " +
               std::string(tolerance_name(enum_value_tolerance(kind->enum_type, k)));
      }
    }
    s += "| " + std::to_string(i) + " | [`" + std::string(info.mnemonic) + "`](ops/" +
         std::string(info.mnemonic) + ".md) | " + count(info.min_inputs, info.max_inputs) + " | " +
         count(info.min_outputs, info.max_outputs) + " | " + std::to_string(info.regions) + " | " + attrs +
         " | " + tol + " |\n";
  }
  return s;
}

}  // namespace plumb::ir
