// The core ops (spec/ops.def): enum, mnemonics, arity, attribute schema, enum attribute values.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

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

// enum class UnaryKind : int { Neg, Abs, ... }: one scoped enum per PLUMB_ENUM_TYPE, whose values
// are the codes (so a unary kind cannot be passed where a binary kind is expected).
enum class EnumChainStart_ : int {  // opens the chain; each PLUMB_ENUM_TYPE closes one and opens the next
#define PLUMB_ENUM_TYPE(EnumT) \
  }                            \
  ;                            \
  enum class EnumT : int {
#define PLUMB_ENUM(EnumT, Enumerator, mnemonic, tolerance) Enumerator,
#include "spec/ops.def"
};
#define PLUMB_ENUM(EnumT, Enumerator, mnemonic, tolerance)                                     \
  static_assert(static_cast<int>(EnumT::Enumerator) == detail::enum_code(#EnumT, #Enumerator), \
                "spec/ops.def: " #EnumT "'s PLUMB_ENUM lines must follow its PLUMB_ENUM_TYPE line");
#include "spec/ops.def"

// The ops.def name of each enum type, e.g. enum_type_name<UnaryKind>() == "UnaryKind".
template <typename E>
constexpr std::string_view enum_type_name();
#define PLUMB_ENUM_TYPE(EnumT)                         \
  template <>                                          \
  constexpr std::string_view enum_type_name<EnumT>() { \
    return #EnumT;                                     \
  }
#include "spec/ops.def"
template <typename E>
constexpr int code_of(E e) {
  return static_cast<int>(e);
}
// True for the ops.def enum classes (not for DType).
template <typename T>
struct is_kind_enum : std::false_type {};
#define PLUMB_ENUM_TYPE(EnumT) \
  template <>                  \
  struct is_kind_enum<EnumT> : std::true_type {};
#include "spec/ops.def"

bool enum_type_exists(std::string_view type);
int enum_size(std::string_view type);
std::string_view enum_value_name(std::string_view type, int code);  // "" when out of range
std::optional<int> enum_value_from_name(std::string_view type, std::string_view mnemonic);
ToleranceClass enum_value_tolerance(std::string_view type, int code);

// The mnemonic of a kind, e.g. enum_name(UnaryKind::Exp) == "exp".
template <typename E>
std::string_view enum_name(E e) {
  return enum_value_name(enum_type_name<E>(), code_of(e));
}

// The tolerance class of one node: the op's, or for PerKind ops that of its `kind` value.
ToleranceClass tolerance_of(Op op, int kind_code);

}  // namespace plumb::ir
