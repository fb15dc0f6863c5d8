// ONNX elementwise arithmetic, logic, comparison and casts (spec: ONNX Operators.md per opset).
// Broadcasting and type handling are made explicit with lowering/onnx/helpers.h.
#include <limits>
#include <optional>
#include <utility>

#include "ir/dtype.h"
#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;

namespace {

// Add, Sub, Mul, Div, And, Or, Xor, BitwiseAnd/Or/Xor: numpy broadcasting, then one core op.
// Integer Div truncates toward zero (core binary div); division by zero is binary's R-label.
// Opsets 1-6 of the binary ops broadcast only when `broadcast` = 1, and then B (rank k) is
// aligned with A's dims starting at `axis` (default: the trailing k dims) — not numpy rules.
Expected<std::vector<ValueId>> binary_operands(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId a, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId b, cx.input(n, 1));
  if (cx.opset() >= 7) return broadcast_all(cx, {a, b});
  auto flag = n.attr_int("broadcast", 0);
  if (!flag.has_value() || *flag == 0) return std::vector<ValueId>{a, b};
  const int64_t ra = rank_of(cx, a), rb = rank_of(cx, b);
  auto axis = n.attr_int("axis", ra - rb);
  if (!axis.has_value() || *axis < 0 || *axis + rb > ra)
    return cx.invalid("legacy broadcast axis out of range");
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < rb; ++i) dims.push_back(*axis + i);
  return std::vector<ValueId>{a, cx.b.broadcast(b, shape_value(cx, a), dims)};
}

template <ir::BinaryKind Kind>
Status lower_binary(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(auto v, binary_operands(cx, n));
  cx.set_output(n, 0, cx.b.binary(Kind, v[0], v[1]));
  return cx.error();
}

template <ir::CompareKind Kind>
Status lower_compare(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(auto v, binary_operands(cx, n));
  cx.set_output(n, 0, cx.b.compare(Kind, v[0], v[1]));
  return cx.error();
}

template <ir::UnaryKind Kind>
Status lower_unary(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(const ValueId x, cx.input(n, 0));
  cx.set_output(n, 0, cx.b.unary(Kind, x));
  return cx.error();
}

// Max, Min, Sum, Mean (variadic, broadcasting). Mean divides the sum by the operand count.
template <ir::BinaryKind Kind>
Status lower_variadic(LowerCtx& cx, const OnnxNode& n, bool mean) {
  PLUMB_ASSIGN_OR_RETURN(std::vector<ValueId> xs, cx.inputs(n));
  if (xs.empty()) return cx.invalid("needs at least one input");
  PLUMB_ASSIGN_OR_RETURN(xs, broadcast_all(cx, xs));
  ValueId acc = xs[0];
  for (size_t i = 1; i < xs.size(); ++i) acc = cx.b.binary(Kind, acc, xs[i]);
  if (mean) acc = cx.b.binary(ir::BinaryKind::Div, acc, splat(cx, static_cast<double>(xs.size()), acc));
  cx.set_output(n, 0, acc);
  return cx.error();
}
Status lower_max(LowerCtx& cx, const OnnxNode& n) {
  return lower_variadic<ir::BinaryKind::Max>(cx, n, false);
}
Status lower_min(LowerCtx& cx, const OnnxNode& n) {
  return lower_variadic<ir::BinaryKind::Min>(cx, n, false);
}
Status lower_sum(LowerCtx& cx, const OnnxNode& n) {
  return lower_variadic<ir::BinaryKind::Add>(cx, n, false);
}
Status lower_mean(LowerCtx& cx, const OnnxNode& n) {
  return lower_variadic<ir::BinaryKind::Add>(cx, n, true);
}

// Pow(X, Y): result has X's type. Float X: Y cast to X's compute type. Integer X: computed in
// f64 and truncated back (the ONNX reference computes np.power in floating point then casts).
Status lower_pow(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId y, cx.input(n, 1));
  const ir::DType xt = cx.type(x).dtype, yt = cx.type(y).dtype;
  if (xt == yt && ir::is_float(xt)) {
    PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> v,
                           broadcast_all(cx, {to_compute(cx, x), to_compute(cx, y)}));
    cx.set_output(n, 0, from_compute(cx, cx.b.binary(ir::BinaryKind::Pow, v[0], v[1]), xt));
    return cx.error();
  }
  const ir::DType ct = ir::is_float(xt) ? compute_dtype(xt) : ir::DType::F64;
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> v,
                         broadcast_all(cx, {cx.b.cast(x, ct), cx.b.cast(y, ct)}));
  ValueId r = cx.b.binary(ir::BinaryKind::Pow, v[0], v[1]);
  cx.set_output(n, 0, cx.b.cast(r, xt));
  return cx.error();
}

// Mod: fmod=1 is C fmod (core rem). fmod=0 (integers only) takes the divisor's sign:
// r = rem(a, b); r != 0 && (r < 0) != (b < 0) ? r + b : r.
Status lower_mod(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(int64_t fmod, n.attr_int("fmod", 0));
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> in, cx.inputs(n, 0, 2));
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> v, broadcast_all(cx, in));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::DType dt = cx.type(v[0]).dtype;
  if (fmod == 0 && ir::is_float(dt)) return cx.invalid("fmod must be 1 for floating inputs");
  ValueId r = cx.b.binary(ir::BinaryKind::Rem, v[0], v[1]);
  if (fmod == 0 && ir::is_signed_int(dt)) {
    ValueId zero = splat(cx, 0, r);
    ValueId r_neg = cx.b.compare(ir::CompareKind::Lt, r, zero);
    ValueId b_neg = cx.b.compare(ir::CompareKind::Lt, v[1], zero);
    ValueId fix = cx.b.binary(ir::BinaryKind::And, cx.b.compare(ir::CompareKind::Ne, r, zero),
                              cx.b.compare(ir::CompareKind::Ne, r_neg, b_neg));
    r = cx.b.select(fix, cx.b.binary(ir::BinaryKind::Add, r, v[1]), r);
  }
  cx.set_output(n, 0, r);
  return cx.error();
}

Status lower_bit_shift(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(std::string dir, n.attr_string("direction", ""));
  if (dir != "LEFT" && dir != "RIGHT")
    return cx.invalid("direction must be LEFT or RIGHT, got '" + dir + "'");
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> in, cx.inputs(n, 0, 2));
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> v, broadcast_all(cx, in));
  cx.set_output(n, 0, cx.b.binary(dir == "LEFT" ? ir::BinaryKind::Shl : ir::BinaryKind::Shr, v[0], v[1]));
  return cx.error();
}

Status lower_reciprocal(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  cx.set_output(n, 0, cx.b.binary(ir::BinaryKind::Div, splat(cx, 1.0, x), x));
  return cx.error();
}

Status lower_is_nan(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  cx.set_output(n, 0, cx.b.compare(ir::CompareKind::Ne, x, x));
  return cx.error();
}

Status lower_is_inf(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(int64_t neg, n.attr_int("detect_negative", 1));
  PLUMB_ASSIGN_OR_RETURN(int64_t pos, n.attr_int("detect_positive", 1));
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  if (!ir::is_float(cx.type(x).dtype))
    return cx.invalid("IsInf takes a floating-point input, got " +
                      std::string(ir::dtype_name(cx.type(x).dtype)));
  const double inf = std::numeric_limits<double>::infinity();
  ValueId is_pos = cx.b.compare(ir::CompareKind::Eq, x, splat(cx, inf, x));
  ValueId is_neg = cx.b.compare(ir::CompareKind::Eq, x, splat(cx, -inf, x));
  ValueId r;
  if (pos && neg)
    r = cx.b.binary(ir::BinaryKind::Or, is_pos, is_neg);
  else if (pos)
    r = is_pos;
  else if (neg)
    r = is_neg;
  else
    r = cx.b.compare(ir::CompareKind::Ne, is_pos, is_pos);  // all false
  cx.set_output(n, 0, r);
  return cx.error();
}

Status lower_where(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> in, cx.inputs(n, 0, 3));
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> v, broadcast_all(cx, in));
  cx.set_output(n, 0, cx.b.select(v[0], v[1], v[2]));
  return cx.error();
}

// Cast-19+: saturate (default 1) applies to float8 targets; Cast-25+ (round_mode) to f8e8m0.
Status cast_to(LowerCtx& cx, const OnnxNode& n, ValueId x, ir::DType to) {
  PLUMB_ASSIGN_OR_RETURN(int64_t saturate, n.attr_int("saturate", 1));
  PLUMB_ASSIGN_OR_RETURN(std::string round_mode, n.attr_string("round_mode", "up"));
  ir::RoundMode round = ir::RoundMode::Up;
  if (round_mode == "nearest")
    round = ir::RoundMode::NearestEven;
  else if (round_mode == "down")
    round = ir::RoundMode::Down;
  else if (round_mode != "up")
    return cx.invalid("round_mode must be up, down or nearest, got '" + round_mode + "'");
  if (to != ir::DType::F8E8M0) round = ir::RoundMode::NearestEven;
  // Float -> 2/4-bit integers: ONNX (Cast-25) truncates and wraps modulo 2^bits, like an integer
  // narrowing; the core's float -> int cast refuses out-of-range values (cast.R1), so go through
  // i32 (exact for the truncated value) and let the integer narrowing wrap.
  const ir::DType from = cx.type(x).dtype;
  const bool tiny_int =
      to == ir::DType::I4 || to == ir::DType::U4 || to == ir::DType::I2 || to == ir::DType::U2;
  if (tiny_int && ir::is_float(from)) x = cx.b.cast(x, ir::DType::I32);
  cx.set_output(n, 0, cx.b.cast(x, to, saturate != 0, round));
  return Status::ok();
}

// Cast-1..5 named the target type as a string ("FLOAT", "INT64", ...).
std::optional<ir::DType> dtype_from_onnx_name(const std::string& s) {
  static const std::pair<const char*, ir::DType> kNames[] = {
      {"FLOAT", ir::DType::F32},   {"UINT8", ir::DType::U8},      {"INT8", ir::DType::I8},
      {"UINT16", ir::DType::U16},  {"INT16", ir::DType::I16},     {"INT32", ir::DType::I32},
      {"INT64", ir::DType::I64},   {"STRING", ir::DType::String}, {"BOOL", ir::DType::Bool},
      {"FLOAT16", ir::DType::F16}, {"DOUBLE", ir::DType::F64},    {"UINT32", ir::DType::U32},
      {"UINT64", ir::DType::U64},  {"BFLOAT16", ir::DType::BF16}};
  for (const auto& [name, dt] : kNames)
    if (s == name) return dt;
  return std::nullopt;
}

Status lower_cast(LowerCtx& cx, const OnnxNode& n) {
  if (const onnx::OnnxAttribute* a = n.attr("to"); a && a->type == onnx::AttrType::String) {
    auto dt = dtype_from_onnx_name(a->s);
    if (!dt) return cx.unsupported("Cast to '" + a->s + "'");
    PLUMB_ASSIGN_OR_RETURN(const ValueId x, cx.input(n, 0));
    return cast_to(cx, n, x, *dt);
  }
  PLUMB_ASSIGN_OR_RETURN(int64_t to, n.attr_int("to", -1));
  auto dt = ir::dtype_from_onnx_code(static_cast<int>(to));
  if (!dt) return cx.unsupported("Cast to ONNX data type " + std::to_string(to));
  PLUMB_ASSIGN_OR_RETURN(const ValueId x, cx.input(n, 0));
  return cast_to(cx, n, x, *dt);
}

Status lower_cast_like(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId like, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  return cast_to(cx, n, x, cx.type(like).dtype);
}

}  // namespace

void register_elementwise(Registry& r) {
  // A table: its rows packed, several to a line.
  // clang-format off
  r.add_since({
      {"Add", 1, lower_binary<ir::BinaryKind::Add>}, {"Sub", 1, lower_binary<ir::BinaryKind::Sub>},
      {"Mul", 1, lower_binary<ir::BinaryKind::Mul>}, {"Div", 1, lower_binary<ir::BinaryKind::Div>},
      {"And", 1, lower_binary<ir::BinaryKind::And>}, {"Or", 1, lower_binary<ir::BinaryKind::Or>},
      {"Xor", 1, lower_binary<ir::BinaryKind::Xor>}, {"BitwiseAnd", 18, lower_binary<ir::BinaryKind::And>},
      {"BitwiseOr", 18, lower_binary<ir::BinaryKind::Or>},
      {"BitwiseXor", 18, lower_binary<ir::BinaryKind::Xor>},
      {"BitwiseNot", 18, lower_unary<ir::UnaryKind::Not>}, {"BitShift", 11, lower_bit_shift},
      {"Pow", 1, lower_pow}, {"Mod", 10, lower_mod}, {"Max", 1, lower_max}, {"Min", 1, lower_min},
      {"Sum", 1, lower_sum}, {"Mean", 1, lower_mean}, {"Equal", 1, lower_compare<ir::CompareKind::Eq>},
      {"Greater", 1, lower_compare<ir::CompareKind::Gt>}, {"Less", 1, lower_compare<ir::CompareKind::Lt>},
      {"GreaterOrEqual", 12, lower_compare<ir::CompareKind::Ge>},
      {"LessOrEqual", 12, lower_compare<ir::CompareKind::Le>}, {"Not", 1, lower_unary<ir::UnaryKind::Not>},
      {"Abs", 1, lower_unary<ir::UnaryKind::Abs>}, {"Neg", 1, lower_unary<ir::UnaryKind::Neg>},
      {"Sign", 9, lower_unary<ir::UnaryKind::Sign>}, {"Floor", 1, lower_unary<ir::UnaryKind::Floor>},
      {"Ceil", 1, lower_unary<ir::UnaryKind::Ceil>}, {"Round", 11, lower_unary<ir::UnaryKind::Round>},
      {"Sqrt", 1, lower_unary<ir::UnaryKind::Sqrt>}, {"Exp", 1, lower_unary<ir::UnaryKind::Exp>},
      {"Log", 1, lower_unary<ir::UnaryKind::Log>}, {"Sin", 7, lower_unary<ir::UnaryKind::Sin>},
      {"Cos", 7, lower_unary<ir::UnaryKind::Cos>}, {"Tan", 7, lower_unary<ir::UnaryKind::Tan>},
      {"Asin", 7, lower_unary<ir::UnaryKind::Asin>}, {"Acos", 7, lower_unary<ir::UnaryKind::Acos>},
      {"Atan", 7, lower_unary<ir::UnaryKind::Atan>}, {"Sinh", 9, lower_unary<ir::UnaryKind::Sinh>},
      {"Cosh", 9, lower_unary<ir::UnaryKind::Cosh>}, {"Tanh", 1, lower_unary<ir::UnaryKind::Tanh>},
      {"Asinh", 9, lower_unary<ir::UnaryKind::Asinh>}, {"Acosh", 9, lower_unary<ir::UnaryKind::Acosh>},
      {"Atanh", 9, lower_unary<ir::UnaryKind::Atanh>}, {"Erf", 9, lower_unary<ir::UnaryKind::Erf>},
      {"Reciprocal", 1, lower_reciprocal}, {"IsNaN", 9, lower_is_nan}, {"IsInf", 10, lower_is_inf},
      {"Where", 9, lower_where}, {"Cast", 1, lower_cast}, {"CastLike", 15, lower_cast_like}});
  // clang-format on
}

}  // namespace plumb::lower
