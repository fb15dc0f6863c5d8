// Type/shape inference and constraints of the elementwise family: spec/ops/{unary,binary,compare,
// select,cast,bitcast}.md. No implicit broadcasting: operands have identical shapes.
#include <string>

#include "ir/infer.h"

namespace plumb::ir {

namespace {

std::string type_str(const Type& t) { return type_to_string(t); }
std::string dt_str(DType dt) { return std::string(dtype_name(dt)); }

// <op>.C1 of every page: each operand is a ranked tensor.
Status check_ranked_tensors(const InferCtx& cx, const char* label) {
  for (size_t i = 0; i < cx.operands.size(); ++i) {
    const Type& t = *cx.operands[i].type;
    if (!t.is_tensor() || !t.ranked)
      return invalid_model(
          label, strfmt("operand %zu has type %s, expected a ranked tensor", i, type_str(t).c_str()));
  }
  return Status::ok();
}

// Identical shapes (spec/ops/binary.md "Shapes"): equal ranks; two static dims must be equal; a
// static dim against a symbolic one gives the static one (the run-time inference, which sees
// static shapes, checks the equality again); two symbolic dims give the first operand's.
Expected<Shape> same_shape(const Shape& a, const Shape& b, const char* label, const char* what) {
  if (a.size() != b.size())
    return invalid_model(label, strfmt("%s shapes %s and %s differ in rank (no implicit broadcasting)", what,
                                       shape_to_string(a).c_str(), shape_to_string(b).c_str()));
  Shape out = a;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].is_static() && b[i].is_static()) {
      if (a[i].size != b[i].size)
        return invalid_model(
            label, strfmt("%s shapes %s and %s differ in dimension %zu (no implicit broadcasting)", what,
                          shape_to_string(a).c_str(), shape_to_string(b).c_str(), i));
    } else if (!a[i].is_static() && b[i].is_static()) {
      out[i] = b[i];
    } else if (!a[i].is_static() && !b[i].is_static() && a[i].sym.empty()) {
      out[i] = b[i];  // a named symbol is more informative than an anonymous one
    }
  }
  return out;
}

// Floats that unary and binary compute in: every float dtype but f8e8m0, which is a scale format
// without sign or zero (spec/numerics.md "f8e8m0"): only cast, bitcast, compare and select take it.
bool is_arith_float(DType dt) { return is_float(dt) && dt != DType::F8E8M0; }
bool is_numeric(DType dt) { return is_int(dt) || is_arith_float(dt); }

// spec/ops/unary.md "Dtypes".
bool unary_allows(UnaryKind kind, DType dt) {
  switch (kind) {
    case UnaryKind::Neg:
    case UnaryKind::Abs: return is_signed_int(dt) || is_arith_float(dt);
    case UnaryKind::Sign: return is_numeric(dt);
    case UnaryKind::Not: return is_bool(dt) || is_int(dt);
    default:  // floor ceil round sqrt and the transcendental kinds
      return is_arith_float(dt);
  }
}

// spec/ops/binary.md "Dtypes".
bool binary_allows(BinaryKind kind, DType dt) {
  switch (kind) {
    case BinaryKind::And:
    case BinaryKind::Or:
    case BinaryKind::Xor: return is_bool(dt) || is_int(dt);
    case BinaryKind::Shl:
    case BinaryKind::Shr: return is_unsigned_int(dt);
    default:  // add sub mul div rem pow max min
      return is_numeric(dt);
  }
}

// spec/ops/compare.md "Dtypes".
bool compare_allows(CompareKind kind, DType dt) {
  if (kind == CompareKind::Eq || kind == CompareKind::Ne) return true;
  return is_int(dt) || is_float(dt);
}

int bitcast_bits(DType dt) { return dtype_bits(dt); }  // bool counts as 8, string as 0

// binary.C1-C3 and compare.C1-C3 say the same: ranked tensors of one dtype (no implicit
// promotion) with identical shapes. `op` is the page name; returns the result shape.
Expected<Shape> pair_shape(const InferCtx& cx, const std::string& op) {
  PLUMB_RETURN_IF_ERROR(check_ranked_tensors(cx, (op + ".C1").c_str()));
  const Type& lhs = *cx.operands[0].type;
  const Type& rhs = *cx.operands[1].type;
  if (lhs.dtype != rhs.dtype)
    return invalid_model(op + ".C2",
                         "lhs dtype " + dt_str(lhs.dtype) + " differs from rhs dtype " + dt_str(rhs.dtype));
  return same_shape(lhs.shape, rhs.shape, (op + ".C3").c_str(), "lhs and rhs");
}

// The dtype-table constraint of a kind: "<op> <kind> is not defined for <dtype>".
template <typename Kind>
Status kind_not_defined(const std::string& label, const char* op, Kind kind, DType dt) {
  return invalid_model(label, strfmt("%s %s is not defined for %s", op, std::string(enum_name(kind)).c_str(),
                                     dt_str(dt).c_str()));
}

}  // namespace

template <>
Expected<std::vector<Type>> infer<Op::Unary>(const InferCtx& cx) {
  PLUMB_RETURN_IF_ERROR(check_ranked_tensors(cx, "unary.C1"));  // unary.C1
  const Type& operand = *cx.operands[0].type;
  const auto kind = attrs<Op::Unary>(cx.node).kind;
  // unary.C2: the dtype table of the kind
  if (!unary_allows(kind, operand.dtype)) return kind_not_defined("unary.C2", "unary", kind, operand.dtype);
  return std::vector<Type>{operand};
}

template <>
Expected<std::vector<Type>> infer<Op::Binary>(const InferCtx& cx) {
  // binary.C1-C3: ranked tensors, one dtype, identical shapes
  PLUMB_ASSIGN_OR_RETURN(Shape shape, pair_shape(cx, "binary"));
  const DType dt = cx.operands[0].type->dtype;
  // binary.C4: the dtype table of the kind
  const auto kind = attrs<Op::Binary>(cx.node).kind;
  if (!binary_allows(kind, dt)) return kind_not_defined("binary.C4", "binary", kind, dt);
  return std::vector<Type>{Type::tensor(dt, std::move(shape))};
}

template <>
Expected<std::vector<Type>> infer<Op::Compare>(const InferCtx& cx) {
  // compare.C1-C3: ranked tensors, one dtype, identical shapes
  PLUMB_ASSIGN_OR_RETURN(Shape shape, pair_shape(cx, "compare"));
  const DType dt = cx.operands[0].type->dtype;
  // compare.C4: ordering kinds need an ordered (numeric) dtype
  const auto kind = attrs<Op::Compare>(cx.node).kind;
  if (!compare_allows(kind, dt)) return kind_not_defined("compare.C4", "compare", kind, dt);
  return std::vector<Type>{Type::tensor(DType::Bool, std::move(shape))};
}

template <>
Expected<std::vector<Type>> infer<Op::Select>(const InferCtx& cx) {
  PLUMB_RETURN_IF_ERROR(check_ranked_tensors(cx, "select.C1"));  // select.C1
  const Type& pred = *cx.operands[0].type;
  const Type& on_true = *cx.operands[1].type;
  const Type& on_false = *cx.operands[2].type;
  // select.C2
  if (pred.dtype != DType::Bool)
    return invalid_model("select.C2", "pred dtype is " + dt_str(pred.dtype) + ", expected bool");
  // select.C3
  if (on_true.dtype != on_false.dtype)
    return invalid_model("select.C3", "on_true dtype " + dt_str(on_true.dtype) +
                                          " differs from on_false dtype " + dt_str(on_false.dtype));
  // select.C4: the three shapes are identical
  PLUMB_ASSIGN_OR_RETURN(Shape s1,
                         same_shape(on_true.shape, on_false.shape, "select.C4", "on_true and on_false"));
  PLUMB_ASSIGN_OR_RETURN(Shape shape, same_shape(s1, pred.shape, "select.C4", "on_true and pred"));
  return std::vector<Type>{Type::tensor(on_true.dtype, std::move(shape))};
}

template <>
Expected<std::vector<Type>> infer<Op::Cast>(const InferCtx& cx) {
  PLUMB_RETURN_IF_ERROR(check_ranked_tensors(cx, "cast.C1"));  // cast.C1
  const Type& operand = *cx.operands[0].type;
  const DType to = attrs<Op::Cast>(cx.node).to;
  const auto round = attrs<Op::Cast>(cx.node).round;
  // cast.C2: a directed rounding mode only for f8e8m0 results
  if (round != RoundMode::NearestEven && to != DType::F8E8M0)
    return invalid_model("cast.C2", "round = " + std::string(enum_name(round)) +
                                        " applies only to f8e8m0 results, not " + dt_str(to));
  return std::vector<Type>{Type::tensor(to, operand.shape)};
}

template <>
Expected<std::vector<Type>> infer<Op::Bitcast>(const InferCtx& cx) {
  PLUMB_RETURN_IF_ERROR(check_ranked_tensors(cx, "bitcast.C1"));  // bitcast.C1
  const Type& operand = *cx.operands[0].type;
  const DType to = attrs<Op::Bitcast>(cx.node).to;
  // bitcast.C2: neither side is a string
  if (is_string(operand.dtype) || is_string(to))
    return invalid_model("bitcast.C2", "bitcast from " + dt_str(operand.dtype) + " to " + dt_str(to) +
                                           ": strings have no fixed bit width");
  // bitcast.C3: same storage bit width
  if (bitcast_bits(operand.dtype) != bitcast_bits(to))
    return invalid_model("bitcast.C3", strfmt("bitcast from %s (%d bits) to %s (%d bits): bit widths differ",
                                              dt_str(operand.dtype).c_str(), bitcast_bits(operand.dtype),
                                              dt_str(to).c_str(), bitcast_bits(to)));
  return std::vector<Type>{Type::tensor(to, operand.shape)};
}

}  // namespace plumb::ir
