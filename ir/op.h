// The core ops (spec/ops.def): enum, mnemonics, arity, attribute schema, enum attribute values.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace plumb::ir {

constexpr int kVariadic = -1;
constexpr uint32_t kCoreVersion = 1;  // spec/versioning.md

enum class Op : uint16_t {
#define PLUMB_OP(Enum, mnemonic, min_in, max_in, min_out, max_out, regions, tolerance) Enum,
#include "spec/ops.def"
};

constexpr int kNumOps = 0
#define PLUMB_OP(Enum, mnemonic, min_in, max_in, min_out, max_out, regions, tolerance) +1
#include "spec/ops.def"
    ;

// Tolerance classes of spec/numerics.md. PerKind: the op's `kind` attribute decides.
enum class ToleranceClass : uint8_t { Exact, Ulp1, Ulp2, Ulp4, Ulp8, Accumulation, DotProduct, PerKind };
std::string_view tolerance_name(ToleranceClass t);

enum class AttrKind : uint8_t { Int, Float, Bool, Ints, Floats, Str, DType, Enum, Const, Type };
std::string_view attr_kind_name(AttrKind k);

struct AttrSpec {
  std::string_view name;
  AttrKind kind;
  std::string_view enum_type;  // for AttrKind::Enum: the PLUMB_ENUM type name, e.g. "ReduceKind"
};

struct OpInfo {
  Op op;
  std::string_view mnemonic;
  int min_inputs, max_inputs;    // max kVariadic = unbounded
  int min_outputs, max_outputs;  // max kVariadic = unbounded
  int regions;
  ToleranceClass tolerance;
  const AttrSpec* attrs;  // the attributes every node of this op carries, in ops.def order
  int num_attrs;
};

const OpInfo& op_info(Op op);
std::string_view op_name(Op op);  // mnemonic, e.g. "reduce"
std::optional<Op> op_from_name(std::string_view mnemonic);
const AttrSpec* find_attr_spec(Op op, std::string_view name);

// ---- enum-valued attributes ----------------------------------------------------------------
// An enum attribute is stored as its code: the position of the value among the PLUMB_ENUM lines
// of its type in ops.def. Code reads them through the constants below, e.g. UnaryKind::Exp.
namespace detail {
struct EnumEntry {
  std::string_view type, enumerator, mnemonic;
  ToleranceClass tolerance;
};
inline constexpr EnumEntry kEnumEntries[] = {
#define PLUMB_ENUM(EnumT, Enumerator, mnemonic, tolerance) \
  {#EnumT, #Enumerator, mnemonic, ToleranceClass::tolerance},
#include "spec/ops.def"
};
constexpr int enum_code(std::string_view type, std::string_view enumerator) {
  int code = 0;
  for (const EnumEntry& e : kEnumEntries) {
    if (e.type != type) continue;
    if (e.enumerator == enumerator) return code;
    ++code;
  }
  return -1;
}
}  // namespace detail

// namespace UnaryKind { inline constexpr int Exp = 8; } ... one namespace per enum type.
#define PLUMB_ENUM(EnumT, Enumerator, mnemonic, tolerance) \
  namespace EnumT {                                         \
  inline constexpr int Enumerator = detail::enum_code(#EnumT, #Enumerator); \
  }
#include "spec/ops.def"

bool enum_type_exists(std::string_view type);
int enum_size(std::string_view type);
std::string_view enum_value_name(std::string_view type, int code);  // "" when out of range
std::optional<int> enum_value_from_name(std::string_view type, std::string_view mnemonic);
ToleranceClass enum_value_tolerance(std::string_view type, int code);

// The tolerance class of one node: the op's, or for PerKind ops that of its `kind` value.
ToleranceClass tolerance_of(Op op, int kind_code);

}  // namespace plumb::ir
