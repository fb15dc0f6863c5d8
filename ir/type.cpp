#include "ir/type.h"

#include <limits>

namespace plumb::ir {

bool shape_is_static(const Shape& s) {
  for (const Dim& d : s)
    if (!d.is_static()) return false;
  return true;
}

int64_t shape_num_elements(const Shape& s) {
  int64_t n = 1;
  for (const Dim& d : s) {
    if (!d.is_static()) return -1;
    if (d.size != 0 && n > std::numeric_limits<int64_t>::max() / d.size) return -2;
    n *= d.size;
  }
  return n;
}

std::string shape_to_string(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) out += ",";
    if (s[i].is_static())
      out += std::to_string(s[i].size);
    else
      out += s[i].sym.empty() ? "?" : s[i].sym;
  }
  return out + "]";
}

Shape static_shape(const std::vector<int64_t>& dims) {
  Shape s;
  s.reserve(dims.size());
  for (int64_t d : dims) s.emplace_back(d);
  return s;
}

Type Type::sequence(Type elem) {
  Type t;
  t.kind = TypeKind::Sequence;
  t.dtype = elem.dtype;
  t.elem = std::make_shared<const Type>(std::move(elem));
  return t;
}

Type Type::optional(Type elem) {
  Type t;
  t.kind = TypeKind::Optional;
  t.dtype = elem.dtype;
  t.elem = std::make_shared<const Type>(std::move(elem));
  return t;
}

Type Type::map(DType key, Type value) {
  Type t;
  t.kind = TypeKind::Map;
  t.dtype = key;
  t.elem = std::make_shared<const Type>(std::move(value));
  return t;
}

bool Type::operator==(const Type& o) const {
  if (kind != o.kind || dtype != o.dtype) return false;
  if (kind == TypeKind::Tensor) return ranked == o.ranked && (!ranked || shape == o.shape);
  if (!elem || !o.elem) return !elem && !o.elem;
  return *elem == *o.elem;
}

std::string type_to_string(const Type& t) {
  switch (t.kind) {
    case TypeKind::Tensor:
      return std::string(dtype_name(t.dtype)) + (t.ranked ? shape_to_string(t.shape) : "[*]");
    case TypeKind::Sequence: return "seq<" + (t.elem ? type_to_string(*t.elem) : "?") + ">";
    case TypeKind::Optional: return "opt<" + (t.elem ? type_to_string(*t.elem) : "?") + ">";
    case TypeKind::Map:
      return "map<" + std::string(dtype_name(t.dtype)) + "," + (t.elem ? type_to_string(*t.elem) : "?") + ">";
  }
  return "?";
}

bool type_refines(const Type& actual, const Type& declared) {
  if (actual.kind != declared.kind || actual.dtype != declared.dtype) return false;
  if (declared.kind != TypeKind::Tensor) {
    if (!declared.elem) return true;
    return actual.elem && type_refines(*actual.elem, *declared.elem);
  }
  if (!declared.ranked) return true;
  if (!actual.ranked || actual.shape.size() != declared.shape.size()) return false;
  for (size_t i = 0; i < declared.shape.size(); ++i) {
    const Dim& d = declared.shape[i];
    if (d.is_static() && actual.shape[i].size != d.size) return false;
  }
  return true;
}

}  // namespace plumb::ir
