#include "ir/op.h"

#include "ir/schema/plumb_generated.h"

namespace plumb::ir {

// The flatbuffer Opcode enum must list spec/ops.def's ops in the same order.
#define PLUMB_OP(Enum, mnemonic, min_in, max_in, min_out, max_out, regions, tolerance) \
  static_assert(static_cast<int>(fb::Opcode::Enum) == static_cast<int>(Op::Enum),      \
                #Enum " drifted from spec/ops.def");
#include "spec/ops.def"

namespace {

// Two parallel arrays generated from the PLUMB_ATTR lines; the trailing sentinel keeps them
// non-empty and is excluded from kNumAttrs.
constexpr AttrSpec kAttrSpecs[] = {
#define PLUMB_ATTR(OpE, name, kind, enum_type) \
  {#name, AttrKind::kind, std::string_view(#enum_type) == "None" ? "" : #enum_type},
#include "spec/ops.def"
    {"", AttrKind::Int, ""},
};
constexpr Op kAttrOps[] = {
#define PLUMB_ATTR(OpE, name, kind, enum_type) Op::OpE,
#include "spec/ops.def"
    Op::Constant,
};
constexpr int kNumAttrs = sizeof(kAttrOps) / sizeof(kAttrOps[0]) - 1;

constexpr int first_attr(Op op) {
  for (int i = 0; i < kNumAttrs; ++i)
    if (kAttrOps[i] == op) return i;
  return kNumAttrs;
}
constexpr int count_attrs(Op op) {
  int n = 0;
  for (int i = 0; i < kNumAttrs; ++i) n += kAttrOps[i] == op;
  return n;
}
// An op's attributes must be consecutive lines of ops.def, so that OpInfo can point at them.
constexpr bool attrs_contiguous() {
  for (int i = 0; i < kNumAttrs; ++i)
    if (i - first_attr(kAttrOps[i]) >= count_attrs(kAttrOps[i])) return false;
  return true;
}
static_assert(attrs_contiguous(), "spec/ops.def: an op's PLUMB_ATTR lines must be consecutive");

constexpr OpInfo kOpTable[] = {
#define PLUMB_OP(Enum, mnemonic, min_in, max_in, min_out, max_out, regions, tolerance) \
  {Op::Enum,                                                                           \
   mnemonic,                                                                           \
   min_in,                                                                             \
   max_in,                                                                             \
   min_out,                                                                            \
   max_out,                                                                            \
   regions,                                                                            \
   ToleranceClass::tolerance,                                                          \
   kAttrSpecs + first_attr(Op::Enum),                                                  \
   count_attrs(Op::Enum)},
#include "spec/ops.def"
};
static_assert(sizeof(kOpTable) / sizeof(kOpTable[0]) == kNumOps);
constexpr const OpInfo* op_table() { return kOpTable; }

// The PLUMB_ENUM rows again, for the run-time lookups below, without pointers: names are
// fixed-size arrays and a row names its type by index. detail::kEnumEntries (op.h, kept for the
// compile-time enum_code) holds three string_views per row, each a dynamic relocation in a
// position-independent build: read at run time, its 90 rows cost the tiny runtime about 11 KiB of
// .data.rel.ro and .rela.dyn, these about 2.5 KiB of .rodata (issue 18). A name too long for its
// array does not compile.
constexpr char kEnumTypes[][24] = {
#define PLUMB_ENUM_TYPE(EnumT) #EnumT,
#include "spec/ops.def"
};
constexpr int kNumEnumTypes = sizeof(kEnumTypes) / sizeof(kEnumTypes[0]);
static_assert(kNumEnumTypes < 255);
// The index of `type` in kEnumTypes; kNumEnumTypes when it is none.
constexpr int enum_type_index(std::string_view type) {
  for (int i = 0; i < kNumEnumTypes; ++i)
    if (std::string_view(kEnumTypes[i]) == type) return i;
  return kNumEnumTypes;
}
struct EnumRow {
  uint8_t type;  // index into kEnumTypes
  ToleranceClass tolerance;
  char mnemonic[22];
};
constexpr EnumRow kEnumRows[] = {
#define PLUMB_ENUM(EnumT, Enumerator, mnemonic, tolerance) \
  {static_cast<uint8_t>(enum_type_index(#EnumT)), ToleranceClass::tolerance, mnemonic},
#include "spec/ops.def"
};
// Row by row the same as detail::kEnumEntries (so the codes agree with enum_code).
constexpr bool enum_rows_match() {
  constexpr size_t n = sizeof(kEnumRows) / sizeof(kEnumRows[0]);
  if (n != sizeof(detail::kEnumEntries) / sizeof(detail::kEnumEntries[0])) return false;
  for (size_t i = 0; i < n; ++i) {
    const detail::EnumEntry& e = detail::kEnumEntries[i];
    if (kEnumRows[i].type >= kNumEnumTypes || std::string_view(kEnumTypes[kEnumRows[i].type]) != e.type ||
        std::string_view(kEnumRows[i].mnemonic) != e.mnemonic || kEnumRows[i].tolerance != e.tolerance)
      return false;
  }
  return true;
}
static_assert(enum_rows_match(), "kEnumRows drifted from detail::kEnumEntries");

}  // namespace

std::string_view tolerance_name(ToleranceClass t) {
  switch (t) {
    case ToleranceClass::Exact: return "exact";
    case ToleranceClass::Ulp1: return "ulp1";
    case ToleranceClass::Ulp2: return "ulp2";
    case ToleranceClass::Ulp4: return "ulp4";
    case ToleranceClass::Ulp8: return "ulp8";
    case ToleranceClass::Accumulation: return "accumulation";
    case ToleranceClass::DotProduct: return "dot_product";
    case ToleranceClass::PerKind: return "per_kind";
  }
  return "?";
}

std::string_view attr_kind_name(AttrKind k) {
  switch (k) {
    case AttrKind::Int: return "int";
    case AttrKind::Float: return "float";
    case AttrKind::Bool: return "bool";
    case AttrKind::Ints: return "ints";
    case AttrKind::Floats: return "floats";
    case AttrKind::Str: return "str";
    case AttrKind::DType: return "dtype";
    case AttrKind::Enum: return "enum";
    case AttrKind::Const: return "const";
    case AttrKind::Type: return "type";
  }
  return "?";
}

const OpInfo& op_info(Op op) {
  // An unknown code (from an unverified node) maps to `constant`'s entry rather than reading
  // past the table; the verifier reports the code itself (graph.V9).
  const int i = static_cast<int>(op);
  return op_table()[i < kNumOps ? i : 0];
}
std::string_view op_name(Op op) { return static_cast<int>(op) < kNumOps ? op_info(op).mnemonic : "?"; }

std::optional<Op> op_from_name(std::string_view mnemonic) {
  for (int i = 0; i < kNumOps; ++i)
    if (op_table()[i].mnemonic == mnemonic) return static_cast<Op>(i);
  return std::nullopt;
}

const AttrSpec* find_attr_spec(Op op, std::string_view name) {
  const OpInfo& info = op_info(op);
  for (int i = 0; i < info.num_attrs; ++i)
    if (info.attrs[i].name == name) return &info.attrs[i];
  return nullptr;
}

bool enum_type_exists(std::string_view type) { return enum_size(type) > 0; }

int enum_size(std::string_view type) {
  const int t = enum_type_index(type);
  int n = 0;
  for (const EnumRow& e : kEnumRows) n += e.type == t;
  return n;
}

static const EnumRow* enum_entry(std::string_view type, int code) {
  if (code < 0) return nullptr;
  const int t = enum_type_index(type);
  int k = 0;
  for (const EnumRow& e : kEnumRows) {
    if (e.type != t) continue;
    if (k == code) return &e;
    ++k;
  }
  return nullptr;
}

std::string_view enum_value_name(std::string_view type, int code) {
  const EnumRow* e = enum_entry(type, code);
  return e ? std::string_view(e->mnemonic) : std::string_view();
}

std::optional<int> enum_value_from_name(std::string_view type, std::string_view mnemonic) {
  const int t = enum_type_index(type);
  int k = 0;
  for (const EnumRow& e : kEnumRows) {
    if (e.type != t) continue;
    if (e.mnemonic == mnemonic) return k;
    ++k;
  }
  return std::nullopt;
}

ToleranceClass enum_value_tolerance(std::string_view type, int code) {
  const EnumRow* e = enum_entry(type, code);
  return e ? e->tolerance : ToleranceClass::Exact;
}

ToleranceClass tolerance_of(Op op, int kind_code) {
  const OpInfo& info = op_info(op);
  if (info.tolerance != ToleranceClass::PerKind) return info.tolerance;
  const AttrSpec* kind = find_attr_spec(op, "kind");
  return kind ? enum_value_tolerance(kind->enum_type, kind_code) : ToleranceClass::Exact;
}

}  // namespace plumb::ir
