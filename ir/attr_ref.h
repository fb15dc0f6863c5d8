// ir::attr: one attribute of a node, read in place (issue 18: the ref kernels read their
// attributes on every run, and a run of a static-shaped plan allocates nothing).
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include "ir/attrs.h"

namespace plumb::ir {

// One attribute of a node of op O, without decoding the others (attrs<O> copies every field, so
// its vectors and strings allocate): `attr(node, &ConvAttrs::strides)`. A list, string or type is a
// reference into the node's own storage (valid as long as the node); a scalar, enum or dtype is
// its value. On an unverified node a missing or mistyped attribute reads as the field's default.
template <typename T>
constexpr bool attr_by_ref_v =
    std::is_same_v<T, std::vector<int64_t>> || std::is_same_v<T, std::vector<double>> ||
    std::is_same_v<T, std::string> || std::is_same_v<T, Type>;
template <Op O, typename T>
std::conditional_t<attr_by_ref_v<T>, const T&, T> attr(const Node& n, T Attrs<O>::*member) {
  const Attr* found = nullptr;
  size_t i = 0;
  const char* found_name = nullptr;
  std::apply(
      [&](detail::FieldsChainStart_, auto... field) {
        auto visit = [&](auto f) {
          if constexpr (std::is_same_v<decltype(f.member), T Attrs<O>::*>)
            if (!found_name && f.member == member) found = detail::attr_at(n, i, found_name = f.name);
          ++i;
        };
        (visit(field), ...);
      },
      attr_fields<O>());
  if constexpr (attr_by_ref_v<T>) {
    static const T kEmpty{};  // immutable: the default of a missing attribute
    if constexpr (std::is_same_v<T, Type>) {
      if (found)
        if (const TypeAttr* v = std::get_if<TypeAttr>(&found->value)) return v->type;
    } else {
      if (found)
        if (const T* v = std::get_if<T>(&found->value)) return *v;
    }
    return kEmpty;
  } else {
    T out{};
    if (found) detail::from_value(found->value, out);
    return out;
  }
}

}  // namespace plumb::ir
