// The in-memory core graph: values (SSA, one table per graph), nodes with typed attributes,
// regions for control flow, constants, and provenance back to the ONNX model.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ir/op.h"
#include "ir/type.h"

namespace plumb::ir {

using ValueId = uint32_t;
constexpr ValueId kNoValue = UINT32_MAX;

struct Value {
  Type type;
  // The ONNX tensor name this value is (set by the lowering for every value that corresponds to a
  // named ONNX tensor; plumb check maps results back through it). Empty for internal values.
  std::string onnx_name;
};

// Where a core node came from (DESIGN §3 Provenance).
struct Provenance {
  std::string node_name;  // ONNX node name (may be empty in the ONNX model)
  std::string op_type;    // e.g. "Softmax" (domain-qualified when not ai.onnx: "ai.onnx.ml.Scaler")
  int64_t opset = 0;      // the opset version of the rule that lowered it
  std::string step;       // optional short name of the step inside the lowering, e.g. "exp"
};

// A constant's bytes: owned, or a view into a buffer kept alive by `owner` (a mapped file, a
// loaded .plumb buffer). Tensors of dtype string are stored as, per element, a little-endian u32
// byte length followed by the bytes (spec/numerics.md "Strings").
struct ConstantData {
  Type type;  // always a static tensor type
  std::shared_ptr<const void> owner;
  const uint8_t* data = nullptr;
  uint64_t size = 0;

  static ConstantData copy_of(Type type, const void* bytes, uint64_t n);
  static ConstantData owned(Type type, std::vector<uint8_t> bytes);
};

// Attribute values, one alternative per AttrKind (ir/op.h), in that order.
// An enum attribute's code; made from a code or from a kind of any ops.def enum class (this is the
// untyped storage: typed code uses the structs of ir/attrs.h).
struct EnumValue {
  int code = 0;
  constexpr EnumValue() = default;
  constexpr explicit EnumValue(int c) : code(c) {}
  template <typename E, typename = std::enable_if_t<is_kind_enum<E>::value>>
  constexpr explicit EnumValue(E e) : code(code_of(e)) {}
  bool operator==(const EnumValue& o) const { return code == o.code; }
};
struct ConstRef {
  uint32_t index = 0;  // into Graph::constants
  bool operator==(const ConstRef& o) const { return index == o.index; }
};
struct TypeAttr {
  Type type;
  bool operator==(const TypeAttr& o) const { return type == o.type; }
};
using AttrValue = std::variant<int64_t, double, bool, std::vector<int64_t>, std::vector<double>, std::string,
                               DType, EnumValue, ConstRef, TypeAttr>;
AttrKind attr_value_kind(const AttrValue& v);

struct Attr {
  std::string name;
  AttrValue value;
};

struct Node;

// A region: parameters (values bound on entry), a node list in execution order, and results.
// Nodes may use values defined earlier in the same region or in any enclosing region before the
// node that owns this region (lexical SSA scoping, as in MLIR).
struct Region {
  std::vector<ValueId> params;
  std::vector<Node> nodes;
  std::vector<ValueId> results;
};

struct Node {
  Op op = Op::Constant;
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  std::vector<Attr> attrs;  // exactly the op's attributes (ops.def), in ops.def order; see ir/attrs.h
  std::vector<Region> regions;
  Provenance prov;

  // The attribute named `name`, or nullptr: for code that walks attributes generically, by their
  // ops.def names (the file format, the text form, the structural check). Everything else reads
  // them typed: attrs<Op::X>(node) (ir/attrs.h).
  const Attr* find_attr(std::string_view name) const;
};

struct Graph {
  uint32_t core_version = kCoreVersion;
  std::vector<Value> values;
  std::vector<ConstantData> constants;
  Region body;                            // params = graph inputs, results = graph outputs
  std::vector<std::string> input_names;   // one per body.params (the ONNX graph input names)
  std::vector<std::string> output_names;  // one per body.results
  std::string producer;                   // e.g. "plumb 0.1 from model.onnx"

  ValueId add_value(Type type, std::string onnx_name = {});
  const Type& type_of(ValueId v) const { return values[v].type; }
};

// "node #4 gather [from 'G' (Gather-13)]": how errors name a node. `index` is its position in a
// pre-order walk of the graph (the numbering `plumb print` shows).
std::string node_place(const Node& n, int64_t index);

// How many places `n` takes in that pre-order walk: itself and every node of its regions, nested.
int64_t preorder_size(const Node& n);
// The nodes of `r` and of their regions, nested.
int64_t preorder_size(const Region& r);

}  // namespace plumb::ir
