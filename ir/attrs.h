// Typed attributes, generated from spec/ops.def: one struct per op whose fields are the op's
// PLUMB_ATTR lines, in ops.def order, with C++ types (an enum attribute is its `enum class`, e.g.
// UnaryKind). Code reads a node's attributes as `attrs<Op::Conv>(node).strides` and builds them as
// `ConvAttrs{...}`, so a misspelt attribute name does not compile. Node::attrs (name + variant) stays
// the generic storage that the file format, the text form and the structural check walk by name.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/op.h"
#include "ir/status.h"

namespace plumb::ir {

// The C++ type of each AttrKind; an Enum attribute's type is its ops.def enum class.
#define PLUMB_ATTR_CXX_Int(E) int64_t
#define PLUMB_ATTR_CXX_Float(E) double
#define PLUMB_ATTR_CXX_Bool(E) bool
#define PLUMB_ATTR_CXX_Ints(E) std::vector<int64_t>
#define PLUMB_ATTR_CXX_Floats(E) std::vector<double>
#define PLUMB_ATTR_CXX_Str(E) std::string
#define PLUMB_ATTR_CXX_DType(E) DType
#define PLUMB_ATTR_CXX_Enum(E) E
#define PLUMB_ATTR_CXX_Const(E) ConstRef
#define PLUMB_ATTR_CXX_Type(E) Type

// Attrs<Op::X>: the attribute struct of op X (empty for ops without attributes). XAttrs names it.
template <Op O>
struct Attrs;
struct AttrsChainStart_ {  // opens the chain; each PLUMB_OP closes one struct and opens the next
#define PLUMB_OP(Enum, mnemonic, min_in, max_in, min_out, max_out, regions, tolerance) \
  }                                                                                    \
  ;                                                                                    \
  template <>                                                                          \
  struct Attrs<Op::Enum> {                                                             \
    static constexpr Op kOp = Op::Enum;
#define PLUMB_ATTR(OpE, name, kind, enum_type) PLUMB_ATTR_CXX_##kind(enum_type) name{};
#include "spec/ops.def"
};
#define PLUMB_OP(Enum, mnemonic, min_in, max_in, min_out, max_out, regions, tolerance) \
  using Enum##Attrs = Attrs<Op::Enum>;
#include "spec/ops.def"

// ---- reflection: each op's fields as (name, member pointer), in ops.def order ---------------------
template <typename S, typename T>
struct AttrField {
  const char* name;
  T S::*member;
};
template <Op O>
constexpr auto attr_fields();
namespace detail {
struct FieldsChainStart_ {};
}  // namespace detail
constexpr auto attr_fields_chain_start_() {  // opens the chain, as above
  return std::make_tuple(detail::FieldsChainStart_ {}
#define PLUMB_OP(Enum, mnemonic, min_in, max_in, min_out, max_out, regions, tolerance) \
  );                                                                                   \
  }                                                                                    \
  template <>                                                                          \
  constexpr auto attr_fields<Op::Enum>() {                                             \
    return std::make_tuple(detail::FieldsChainStart_{}
// clang-format off
#define PLUMB_ATTR(OpE, name, kind, enum_type) \
  , AttrField<Attrs<Op::OpE>, decltype(Attrs<Op::OpE>::name)>{#name, &Attrs<Op::OpE>::name}
#include "spec/ops.def"
                         // clang-format on
  );
}

namespace detail {
// Calls f(name, member-of-a) for each field of `a`.
template <Op O, typename A, typename F>
void for_each_field(A& a, F&& f) {
  std::apply([&](FieldsChainStart_, auto... field) { (f(field.name, a.*(field.member)), ...); },
             attr_fields<O>());
}

// The AttrKind whose values a field of type T holds.
template <typename T>
constexpr AttrKind kind_of() {
  if constexpr (is_kind_enum<T>::value)
    return AttrKind::Enum;
  else if constexpr (std::is_same_v<T, int64_t>)
    return AttrKind::Int;
  else if constexpr (std::is_same_v<T, double>)
    return AttrKind::Float;
  else if constexpr (std::is_same_v<T, bool>)
    return AttrKind::Bool;
  else if constexpr (std::is_same_v<T, std::vector<int64_t>>)
    return AttrKind::Ints;
  else if constexpr (std::is_same_v<T, std::vector<double>>)
    return AttrKind::Floats;
  else if constexpr (std::is_same_v<T, std::string>)
    return AttrKind::Str;
  else if constexpr (std::is_same_v<T, DType>)
    return AttrKind::DType;
  else if constexpr (std::is_same_v<T, ConstRef>)
    return AttrKind::Const;
  else
    return AttrKind::Type;
}

// A field's value in the generic storage, and back.
template <typename T>
AttrValue to_value(const T& v) {
  if constexpr (is_kind_enum<T>::value)
    return EnumValue{code_of(v)};
  else if constexpr (std::is_same_v<T, Type>)
    return TypeAttr{v};
  else
    return v;
}
// Reads `v` into `out`; what is wrong with it ("" when nothing), in the verifier's words.
std::string kind_problem(const AttrValue& v, AttrKind expected);
std::string enum_problem(int code, std::string_view enum_type);
std::string dtype_problem(DType dt);
template <typename T>
std::string from_value(const AttrValue& v, T& out) {
  constexpr AttrKind kind = kind_of<T>();
  if (attr_value_kind(v) != kind) return kind_problem(v, kind);
  if constexpr (is_kind_enum<T>::value) {
    const int code = std::get<EnumValue>(v).code;
    if (std::string why = enum_problem(code, enum_type_name<T>()); !why.empty()) return why;
    out = static_cast<T>(code);
  } else if constexpr (std::is_same_v<T, Type>) {
    out = std::get<TypeAttr>(v).type;
  } else {
    if constexpr (std::is_same_v<T, DType>)
      if (std::string why = dtype_problem(std::get<DType>(v)); !why.empty()) return why;
    out = std::get<T>(v);
  }
  return "";
}
// The attribute named `name`: at position i when the node is in ops.def order (every verified
// node is), else found by name; nullptr when absent.
const Attr* attr_at(const Node& n, size_t i, const char* name);
}  // namespace detail

// ---- reading and writing ---------------------------------------------------------------------------
// The attributes of a node of op O. The verifier (check_node_structure) has decoded them already,
// so on a verified node every field is its value; on an unverified one a missing or mistyped
// attribute reads as the field's default.
template <Op O>
Attrs<O> attrs(const Node& n) {
  Attrs<O> a;
  size_t i = 0;
  detail::for_each_field<O>(a, [&](const char* name, auto& field) {
    if (const Attr* at = detail::attr_at(n, i++, name)) detail::from_value(at->value, field);
  });
  return a;
}

// The same, checked: every attribute present, of its kind, enum and dtype codes in range. What
// check_node_structure runs for each node (label "<op>.attrs").
template <Op O>
Expected<Attrs<O>> decode_attrs(const Node& n) {
  Attrs<O> a;
  size_t i = 0;
  std::string why;
  detail::for_each_field<O>(a, [&](const char* name, auto& field) {
    const Attr* at = detail::attr_at(n, i++, name);
    if (!why.empty()) return;
    if (!at)
      why = "missing attribute '" + std::string(name) + "'";
    else if (std::string p = detail::from_value(at->value, field); !p.empty())
      why = "attribute '" + std::string(name) + "'" + p;
  });
  if (!why.empty()) return invalid_model(std::string(op_name(O)) + ".attrs", why);
  return a;
}

// The generic attribute list of `a`, in ops.def order (what Node::attrs holds).
template <Op O>
std::vector<Attr> attr_list(const Attrs<O>& a) {
  std::vector<Attr> out;
  detail::for_each_field<O>(a, [&](const char* name, const auto& field) {
    out.push_back(Attr{name, detail::to_value(field)});
  });
  return out;
}

// decode_attrs for the node's own op (dispatch on n.op); the status only.
Status check_attrs(const Node& n);

// The tolerance class of one node (spec/numerics.md): its op's, or for PerKind ops its kind's.
ToleranceClass tolerance_of(const Node& n);

}  // namespace plumb::ir
