// Types of core values: tensors with (possibly symbolic) shapes, and the ONNX container types
// (sequence, optional, map) that the core carries for the ops that need them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace plumb::ir {

// One dimension: a static size (>= 0), or symbolic (size == kDynamic) with an optional name.
// Two symbolic dims with the same non-empty name in one graph are equal at run time.
constexpr int64_t kDynamic = -1;
struct Dim {
  int64_t size = kDynamic;
  std::string sym;  // only for symbolic dims; empty = anonymous (unknown, unrelated to others)

  Dim() = default;
  Dim(int64_t s) : size(s) {}  // NOLINT: implicit from a static size
  static Dim symbolic(std::string name = {}) {
    Dim d;
    d.sym = std::move(name);
    return d;
  }
  bool is_static() const { return size >= 0; }
  bool operator==(const Dim& o) const { return size == o.size && sym == o.sym; }
  bool operator!=(const Dim& o) const { return !(*this == o); }
};
using Shape = std::vector<Dim>;

bool shape_is_static(const Shape& s);
// Product of static dims; nullopt-like -1 when any dim is symbolic, -2 on int64 overflow.
int64_t shape_num_elements(const Shape& s);
std::string shape_to_string(const Shape& s);  // "[2,?,N]"
Shape static_shape(const std::vector<int64_t>& dims);

enum class TypeKind : uint8_t { Tensor, Sequence, Optional, Map };

struct Type {
  TypeKind kind = TypeKind::Tensor;
  DType dtype = DType::F32;          // tensor element type; for a map, the key type
  bool ranked = true;                // tensor: false only for a sequence/optional element of unknown rank
  Shape shape;                       // tensor
  std::shared_ptr<const Type> elem;  // sequence/optional: element type; map: value type

  static Type tensor(DType dt, Shape shape) {
    Type t;
    t.dtype = dt;
    t.shape = std::move(shape);
    return t;
  }
  static Type unranked_tensor(DType dt) {
    Type t;
    t.dtype = dt;
    t.ranked = false;
    return t;
  }
  static Type sequence(Type elem);
  static Type optional(Type elem);
  static Type map(DType key, Type value);

  bool is_tensor() const { return kind == TypeKind::Tensor; }
  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  bool operator==(const Type& o) const;
  bool operator!=(const Type& o) const { return !(*this == o); }
};

// "f32[2,3]", "seq<f32[?]>", "opt<i64[]>", "map<string,f32[]>", "f32[*]" (unranked)
std::string type_to_string(const Type& t);

// True when a value of type `actual` may be used where `declared` is expected: same kind and
// dtype and rank, and each declared static dim equals the actual one (symbolic declared dims
// accept any size).
bool type_refines(const Type& actual, const Type& declared);

}  // namespace plumb::ir
