#include "ir/attrs.h"

#include "ir/status.h"

namespace plumb::ir::detail {

const Attr* attr_at(const Node& n, size_t i, const char* name) {
  if (i < n.attrs.size() && n.attrs[i].name == name) return &n.attrs[i];
  return n.find_attr(name);
}

std::string kind_problem(const AttrValue& v, AttrKind expected) {
  return " is " + std::string(attr_kind_name(attr_value_kind(v))) + ", expected " +
         std::string(attr_kind_name(expected));
}
std::string enum_problem(int code, std::string_view enum_type) {
  if (code >= 0 && code < enum_size(enum_type)) return "";
  return strfmt(": %d is not a %s value", code, std::string(enum_type).c_str());
}
std::string dtype_problem(DType dt) {
  const int code = static_cast<int>(dt);
  if (code >= 0 && code < kNumDTypes) return "";
  return strfmt(": dtype code %d out of range", code);
}

}  // namespace plumb::ir::detail

namespace plumb::ir {

// Table-driven over ops.def's attribute specs (op_info), not decode_attrs<O> per op: the same
// checks in the same order (each attribute present, of its kind, enum and dtype codes in range;
// the first problem reported) and the same words, without one decoder per op copying every field
// (issue 18: the per-op decoders were about 30 KiB of the tiny runtime).
Status check_attrs(const Node& n) {
  const int code = static_cast<int>(n.op);
  if (code >= kNumOps) return invalid_model("", "unknown op code " + std::to_string(code));
  const OpInfo& info = op_info(n.op);
  for (int i = 0; i < info.num_attrs; ++i) {
    const AttrSpec& spec = info.attrs[i];
    const Attr* at =
        detail::attr_at(n, static_cast<size_t>(i), spec.name.data());  // a literal: NUL-terminated
    std::string why;
    if (!at)
      why = "missing attribute '" + std::string(spec.name) + "'";
    else if (attr_value_kind(at->value) != spec.kind)
      why = detail::kind_problem(at->value, spec.kind);
    else if (spec.kind == AttrKind::Enum)
      why = detail::enum_problem(std::get<EnumValue>(at->value).code, spec.enum_type);
    else if (spec.kind == AttrKind::DType)
      why = detail::dtype_problem(std::get<DType>(at->value));
    if (at && !why.empty()) why = "attribute '" + std::string(spec.name) + "'" + why;
    if (!why.empty()) return invalid_model(std::string(info.mnemonic) + ".attrs", why);
  }
  return Status::ok();
}

namespace {
template <typename A, typename = void>
struct has_kind : std::false_type {};
template <typename A>
struct has_kind<A, std::void_t<decltype(A::kind)>> : std::true_type {};

template <Op O>
ToleranceClass tolerance_of_op(const Node& n) {
  if constexpr (has_kind<Attrs<O>>::value)
    return tolerance_of(O, code_of(attrs<O>(n).kind));
  else
    return tolerance_of(O, 0);
}
}  // namespace

ToleranceClass tolerance_of(const Node& n) {
  switch (n.op) {
// clang-format off
#define PLUMB_OP(Enum, mnemonic, min_in, max_in, min_out, max_out, regions, tolerance) \
  case Op::Enum: return tolerance_of_op<Op::Enum>(n);
#include "spec/ops.def"
    // clang-format on
  }
  return ToleranceClass::Exact;
}

}  // namespace plumb::ir
