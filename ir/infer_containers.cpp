// Inference and constraints of the container and host ops: sequence, optional, map, string,
// image_decode (spec/ops/<op>.md).
#include "ir/infer.h"

namespace plumb::ir {

namespace {

using Types = std::vector<Type>;

bool is_i64_scalar(const Type& t) {
  return t.is_tensor() && t.dtype == DType::I64 && t.ranked && t.rank() == 0;
}

std::string tstr(const Type& t) { return type_to_string(t); }

// A symbolic copy of a shape: same rank, every dim unknown.
Shape unknown_dims(int64_t rank) { return Shape(static_cast<size_t>(rank), Dim::symbolic()); }

Expected<Types> infer_sequence_concat(const Type& elem, int64_t axis, bool stack) {
  if (!elem.ranked)
    return invalid_model("sequence.C4", "concat/stack need a ranked element type, got " + tstr(elem));
  const int64_t r = elem.rank();
  const int64_t hi = stack ? r : r - 1;
  if (axis < 0 || axis > hi)
    return invalid_model("sequence.C4",
                         strfmt("axis %lld out of range [0, %lld]", (long long)axis, (long long)hi));
  Shape s = elem.shape;
  if (stack)
    s.insert(s.begin() + axis, Dim::symbolic());
  else
    s[axis] = Dim::symbolic();
  return Types{Type::tensor(elem.dtype, s)};
}

// sequence.C2: a tensor going into a sequence of `elem`.
Status check_item(const Type& item, const Type& elem) {
  if (elem.kind == TypeKind::Map) {
    if (!type_refines(item, elem))
      return invalid_model("sequence.C2", tstr(item) + " does not fit sequence elements " + tstr(elem));
    return Status::ok();
  }
  if (!item.is_tensor() || item.dtype != elem.dtype || (elem.ranked && !type_refines(item, elem)))
    return invalid_model("sequence.C2",
                         "tensor " + tstr(item) + " does not fit sequence elements " + tstr(elem));
  return Status::ok();
}

}  // namespace

template <>
Expected<Types> infer<Op::Sequence>(const InferCtx& cx) {
  const Node& n = cx.node;
  const SequenceAttrs a = attrs<Op::Sequence>(n);
  const SequenceKind kind = a.kind;
  const int64_t axis = a.axis;
  const Type& elem = a.elem;
  const auto& ops = cx.operands;
  const int nin = static_cast<int>(ops.size());
  // Maps are elements only of the kinds that move whole elements (ONNX ZipMap's sequence of maps).
  const bool map_kind = kind == SequenceKind::Empty || kind == SequenceKind::Construct ||
                        kind == SequenceKind::Insert || kind == SequenceKind::At ||
                        kind == SequenceKind::Erase || kind == SequenceKind::Length;
  if (!elem.is_tensor() && !(elem.kind == TypeKind::Map && map_kind))
    return invalid_model(
        "sequence.C2",
        "elem must be a tensor type" + std::string(map_kind ? " or a map type" : "") + ", got " + tstr(elem));
  const Type seq = Type::sequence(elem);

  auto want = [&](int count, bool at_least = false) -> Status {
    if (at_least ? nin >= count : nin == count) return Status::ok();
    return invalid_model(
        "sequence.C1", strfmt("sequence %s takes %s%d operands, got %d", std::string(enum_name(kind)).c_str(),
                              at_least ? "at least " : "", count, nin));
  };
  auto want_seq = [&](int i) -> Status {
    if (*ops[i].type != seq)
      return invalid_model("sequence.C2", "operand " + std::to_string(i) + " is " + tstr(*ops[i].type) +
                                              ", expected " + tstr(seq));
    return Status::ok();
  };
  auto want_pos = [&](int i) -> Status {
    if (!is_i64_scalar(*ops[i].type))
      return invalid_model("sequence.C3", "position must be i64[], got " + tstr(*ops[i].type));
    return Status::ok();
  };
  const bool uses_axis =
      kind == SequenceKind::ConcatAxis || kind == SequenceKind::StackAxis || kind == SequenceKind::Split;
  if (!uses_axis && axis != 0) return invalid_model("sequence.C4", "axis must be 0 for this kind");

  switch (kind) {
    case SequenceKind::Empty: PLUMB_RETURN_IF_ERROR(want(0)); return Types{seq};
    case SequenceKind::Construct:
      PLUMB_RETURN_IF_ERROR(want(1, true));
      for (const Operand& o : ops) PLUMB_RETURN_IF_ERROR(check_item(*o.type, elem));
      return Types{seq};
    case SequenceKind::Insert:
      PLUMB_RETURN_IF_ERROR(want(3));
      PLUMB_RETURN_IF_ERROR(want_seq(0));
      PLUMB_RETURN_IF_ERROR(check_item(*ops[1].type, elem));
      PLUMB_RETURN_IF_ERROR(want_pos(2));
      return Types{seq};
    case SequenceKind::At:
      PLUMB_RETURN_IF_ERROR(want(2));
      PLUMB_RETURN_IF_ERROR(want_seq(0));
      PLUMB_RETURN_IF_ERROR(want_pos(1));
      if (!elem.is_tensor()) return Types{elem};
      return Types{elem.ranked
                       ? Type::tensor(elem.dtype, cx.at_runtime ? unknown_dims(elem.rank()) : elem.shape)
                       : elem};
    case SequenceKind::Erase:
      PLUMB_RETURN_IF_ERROR(want(2));
      PLUMB_RETURN_IF_ERROR(want_seq(0));
      PLUMB_RETURN_IF_ERROR(want_pos(1));
      return Types{seq};
    case SequenceKind::Length:
      PLUMB_RETURN_IF_ERROR(want(1));
      PLUMB_RETURN_IF_ERROR(want_seq(0));
      return Types{Type::tensor(DType::I64, {})};
    case SequenceKind::ConcatAxis:
    case SequenceKind::StackAxis:
      PLUMB_RETURN_IF_ERROR(want(1));
      PLUMB_RETURN_IF_ERROR(want_seq(0));
      return infer_sequence_concat(elem, axis, kind == SequenceKind::StackAxis);
    case SequenceKind::Split: {
      PLUMB_RETURN_IF_ERROR(want(2));
      const Type& t = *ops[0].type;
      if (!t.is_tensor() || !t.ranked || t.dtype != elem.dtype)
        return invalid_model("sequence.C2",
                             "split operand " + tstr(t) + " does not match elements " + tstr(elem));
      if (elem.ranked && elem.rank() != t.rank())
        return invalid_model(
            "sequence.C2", "split pieces have rank " + std::to_string(t.rank()) + ", elements " + tstr(elem));
      const Type& sizes = *ops[1].type;
      if (!sizes.is_tensor() || sizes.dtype != DType::I64 || !sizes.ranked || sizes.rank() != 1)
        return invalid_model("sequence.C3", "split sizes must be i64[k], got " + tstr(sizes));
      if (axis < 0 || axis >= t.rank())
        return invalid_model("sequence.C4", strfmt("split axis %lld out of range for rank %lld",
                                                   (long long)axis, (long long)t.rank()));
      return Types{seq};
    }
  }
  return invalid_model("sequence.attrs", "unknown kind");
}

template <>
Expected<Types> infer<Op::Optional>(const InferCtx& cx) {
  const Node& n = cx.node;
  const OptionalAttrs a = attrs<Op::Optional>(n);
  const OptionalKind kind = a.kind;
  const Type& elem = a.elem;
  const auto& ops = cx.operands;
  if (elem.kind != TypeKind::Tensor && elem.kind != TypeKind::Sequence)
    return invalid_model("optional.C2", "elem must be a tensor or sequence type, got " + tstr(elem));
  const Type opt = Type::optional(elem);
  const size_t want = kind == OptionalKind::None ? 0 : 1;
  if (ops.size() != want)
    return invalid_model("optional.C1", strfmt("optional %s takes %zu operands, got %zu",
                                               std::string(enum_name(kind)).c_str(), want, ops.size()));
  switch (kind) {
    case OptionalKind::None: return Types{opt};
    case OptionalKind::Wrap:
      if (!type_refines(*ops[0].type, elem))
        return invalid_model("optional.C2", "cannot wrap " + tstr(*ops[0].type) + " as " + tstr(opt));
      return Types{opt};
    case OptionalKind::Get:
    case OptionalKind::Has:
      if (*ops[0].type != opt)
        return invalid_model("optional.C2", "operand is " + tstr(*ops[0].type) + ", expected " + tstr(opt));
      if (kind == OptionalKind::Has) return Types{Type::tensor(DType::Bool, {})};
      return Types{elem};
  }
  return invalid_model("optional.attrs", "unknown kind");
}

template <>
Expected<Types> infer<Op::Map>(const InferCtx& cx) {
  const MapKind kind = attrs<Op::Map>(cx.node).kind;
  const auto& ops = cx.operands;
  const size_t want = kind == MapKind::Construct ? 2 : 1;
  if (ops.size() != want)
    return invalid_model("map.C1", strfmt("map %s takes %zu operands, got %zu",
                                          std::string(enum_name(kind)).c_str(), want, ops.size()));
  if (kind == MapKind::Construct) {
    const Type& k = *ops[0].type;
    const Type& v = *ops[1].type;
    if (!k.is_tensor() || !k.ranked || k.rank() != 1 || (k.dtype != DType::I64 && k.dtype != DType::String))
      return invalid_model("map.C2", "keys must be i64[n] or string[n], got " + tstr(k));
    if (!v.is_tensor() || !v.ranked || v.rank() != 1)
      return invalid_model("map.C2", "values must be a 1-D tensor, got " + tstr(v));
    if (k.shape[0].is_static() && v.shape[0].is_static() && k.shape[0].size != v.shape[0].size)
      return invalid_model("map.C2", "keys " + tstr(k) + " and values " + tstr(v) + " differ in length");
    return Types{Type::map(k.dtype, Type::tensor(v.dtype, {}))};
  }
  const Type& m = *ops[0].type;
  if (m.kind != TypeKind::Map || !m.elem)
    return invalid_model("map.C2", "operand must be a map, got " + tstr(m));
  const DType dt = kind == MapKind::Keys ? m.dtype : m.elem->dtype;
  return Types{Type::tensor(dt, {Dim::symbolic()})};
}

template <>
Expected<Types> infer<Op::String>(const InferCtx& cx) {
  const Node& n = cx.node;
  const StringAttrs sa = attrs<Op::String>(n);
  const StringKind kind = sa.kind;
  const auto& ops = cx.operands;
  const size_t nin = kind == StringKind::Concat ? 2 : 1;
  const size_t nout = kind == StringKind::Split ? 2 : 1;
  if (ops.size() != nin || n.outputs.size() != nout)
    return invalid_model(
        "string.C1", strfmt("string %s takes %zu operands and gives %zu results, got %zu and %zu",
                            std::string(enum_name(kind)).c_str(), nin, nout, ops.size(), n.outputs.size()));
  for (const Operand& o : ops)
    if (!o.type->is_tensor() || !o.type->ranked || o.type->dtype != DType::String)
      return invalid_model("string.C2", "operands must be string tensors, got " + tstr(*o.type));
  const Type& a = *ops[0].type;
  const bool uses_pattern = kind == StringKind::RegexFullMatch || kind == StringKind::Split;
  if (!uses_pattern && !sa.pattern.empty())
    return invalid_model("string.C3", "pattern must be empty for this kind");
  if (kind != StringKind::Split && sa.maxsplit != -1)
    return invalid_model("string.C3", "maxsplit must be -1 for this kind");
  if (kind == StringKind::Split && sa.maxsplit < -1)
    return invalid_model("string.C3", "maxsplit must be >= -1");
  switch (kind) {
    case StringKind::Concat: {
      const Type& b = *ops[1].type;
      if (b.rank() != a.rank())
        return invalid_model("string.C2",
                             "concat operands " + tstr(a) + " and " + tstr(b) + " differ in shape");
      Shape s = a.shape;
      for (size_t i = 0; i < s.size(); ++i) {
        const Dim &x = a.shape[i], &y = b.shape[i];
        if (x.is_static() && y.is_static() && x.size != y.size)
          return invalid_model("string.C2",
                               "concat operands " + tstr(a) + " and " + tstr(b) + " differ in shape");
        if (!x.is_static()) s[i] = y;
      }
      return Types{Type::tensor(DType::String, s)};
    }
    case StringKind::Lower:
    case StringKind::Upper: return Types{a};
    case StringKind::RegexFullMatch: return Types{Type::tensor(DType::Bool, a.shape)};
    case StringKind::Split: {
      Shape s = a.shape;
      s.push_back(Dim::symbolic());
      return Types{Type::tensor(DType::String, s), Type::tensor(DType::I64, a.shape)};
    }
  }
  return invalid_model("string.attrs", "unknown kind");
}

template <>
Expected<Types> infer<Op::ImageDecode>(const InferCtx& cx) {
  const Type& b = *cx.operands[0].type;
  if (!b.is_tensor() || !b.ranked || b.rank() != 1 || b.dtype != DType::U8)
    return invalid_model("image_decode.C1", "operand must be u8[n], got " + tstr(b));
  const int64_t channels = attrs<Op::ImageDecode>(cx.node).format == PixelFormat::Grayscale ? 1 : 3;
  return Types{Type::tensor(DType::U8, {Dim::symbolic(), Dim::symbolic(), Dim(channels)})};
}

}  // namespace plumb::ir
