// Lowering rules for SequenceEmpty SequenceConstruct SequenceInsert SequenceAt SequenceErase
// SequenceLength SplitToSequence ConcatFromSequence Optional OptionalHasElement OptionalGetElement
// onto the core `sequence` and `optional` ops (spec/ops/sequence.md, optional.md). SequenceMap,
// which runs a subgraph, is in control.cpp.
//
// Element types: a core sequence has one declared element type `elem`, and `sequence` nodes need
// their operand to be exactly `seq<elem>`, statically and at run time (lowering/onnx/containers.h).
// ONNX lets a sequence take tensors of other shapes (and, through loosely declared graph inputs,
// other ranks). When a tensor does not fit, the sequence is first rebuilt as seq<join(elem, item)>
// (`retype`, exact element copies).
#include <optional>

#include "lowering/onnx/containers.h"
#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using CK = ir::CompareKind;
using SK = ir::SequenceKind;
using OK = ir::OptionalKind;

// ---- shared helpers (lowering/onnx/containers.h) ------------------------------------------------

ValueId seq_op(LowerCtx& cx, ir::SequenceKind kind, std::vector<ValueId> operands, const ir::Type& elem,
               int64_t axis) {
  return cx.b.emit1(ir::SequenceAttrs{kind, axis, elem}, std::move(operands));
}

ValueId opt_op(LowerCtx& cx, ir::OptionalKind kind, std::vector<ValueId> operands, const ir::Type& elem) {
  return cx.b.emit1(ir::OptionalAttrs{kind, elem}, std::move(operands));
}

ir::Type join_types(const ir::Type& a, const ir::Type& b) {
  if (a.kind != ir::TypeKind::Tensor) {
    ir::Type t = a;
    if (a.elem && b.elem) t.elem = std::make_shared<const ir::Type>(join_types(*a.elem, *b.elem));
    return t;
  }
  if (!a.ranked || !b.ranked || a.shape.size() != b.shape.size()) return ir::Type::unranked_tensor(a.dtype);
  ir::Type t = ir::Type::tensor(a.dtype, {});
  for (size_t i = 0; i < a.shape.size(); ++i)
    t.shape.push_back(a.shape[i] == b.shape[i] ? a.shape[i] : ir::Dim::symbolic());
  return t;
}

bool joinable_types(const ir::Type& a, const ir::Type& b) {
  if (a.kind != b.kind || a.dtype != b.dtype) return false;
  if (a.kind == ir::TypeKind::Tensor) return a.ranked == b.ranked && a.shape.size() == b.shape.size();
  if (!a.elem || !b.elem) return !a.elem && !b.elem;
  return a.elem->kind == b.elem->kind && a.elem->dtype == b.elem->dtype;
}

ValueId dynamic_result(LowerCtx& cx, const std::function<ValueId()>& make) {
  ir::Builder& b = cx.b;
  if (b.open_regions() > 0) return make();
  ValueId yes = b.const_ints(ir::DType::Bool, {}, {1});
  b.begin_region({});
  ir::Region then_r = b.end_region({make()});
  b.begin_region({});
  ir::Region else_r = b.end_region({make()});
  std::vector<ValueId> r = b.if_(yes, std::move(then_r), std::move(else_r));
  return r.empty() ? ir::kNoValue : r[0];
}

ValueId retype(LowerCtx& cx, ValueId v, const ir::Type& target) {
  ir::Builder& b = cx.b;
  const ir::Type from = cx.type(v);
  if (from == target || from.kind == ir::TypeKind::Tensor || !from.elem || !target.elem) return v;
  if (from.kind == ir::TypeKind::Optional) {
    // has(v) ? wrap(retype(get(v))) : none
    ValueId has = dynamic_result(cx, [&] { return opt_op(cx, ir::OptionalKind::Has, {v}, *from.elem); });
    b.begin_region({});
    ValueId held = retype(cx, opt_op(cx, ir::OptionalKind::Get, {v}, *from.elem), *target.elem);
    ir::Region then_r = b.end_region({opt_op(cx, ir::OptionalKind::Wrap, {held}, *target.elem)});
    b.begin_region({});
    ir::Region else_r = b.end_region({opt_op(cx, ir::OptionalKind::None, {}, *target.elem)});
    std::vector<ValueId> r = b.if_(has, std::move(then_r), std::move(else_r));
    return r.empty() ? ir::kNoValue : r[0];
  }
  // Sequence: (i, out) from (0, empty); while i < length(v): out = insert(out, at(v, i), i).
  const ir::Type i64 = ir::Type::tensor(ir::DType::I64, {});
  ValueId n = dynamic_result(cx, [&] { return seq_op(cx, ir::SequenceKind::Length, {v}, *from.elem); });
  std::vector<ValueId> p = b.begin_region({i64, target});
  ir::Region cond = b.end_region({b.compare(ir::CompareKind::Lt, p[0], n)});
  p = b.begin_region({i64, target});
  ValueId item = seq_op(cx, ir::SequenceKind::At, {v, p[0]}, *from.elem);
  ValueId next = seq_op(cx, ir::SequenceKind::Insert, {p[1], item, p[0]}, *target.elem);
  ir::Region body =
      b.end_region({b.binary(ir::BinaryKind::Add, p[0], b.scalar_int(ir::DType::I64, 1)), next});
  std::vector<ValueId> r =
      b.while_({b.scalar_int(ir::DType::I64, 0), seq_op(cx, ir::SequenceKind::Empty, {}, *target.elem)},
               std::move(cond), std::move(body));
  return r.size() == 2 ? r[1] : ir::kNoValue;
}

namespace {

ir::Type seq_elem(LowerCtx& cx, ValueId s) {
  const ir::Type t = cx.type(s);
  return t.kind == ir::TypeKind::Sequence && t.elem ? *t.elem : ir::Type::unranked_tensor(t.dtype);
}

// A position operand (i32/i64, one element) as an i64 scalar, negative values counted from `n`
// (ONNX accepts [-n, n-1], or [-n, n] for insert; what is still out of range is the core's
// sequence.R1/R2 error).
ValueId position(LowerCtx& cx, ValueId pos, ValueId n) {
  ValueId p = cx.b.reshape(cx.b.cast(pos, ir::DType::I64), cx.b.shape_const({}));
  ValueId neg = cx.b.compare(CK::Lt, p, cx.b.scalar_int(ir::DType::I64, 0));
  return cx.b.select(neg, cx.b.binary(BK::Add, p, n), p);
}

// SequenceEmpty-11: an empty sequence of `dtype` (default float) elements of unknown shape.
Status lower_sequence_empty(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(int64_t code, n.attr_int("dtype", 1));
  auto dt = ir::dtype_from_onnx_code(static_cast<int>(code));
  if (!dt) return cx.unsupported("SequenceEmpty dtype " + std::to_string(code));
  cx.set_output(n, 0, seq_op(cx, SK::Empty, {}, ir::Type::unranked_tensor(*dt)));
  return cx.error();
}

// SequenceConstruct-11: [inputs...]; the element type is the join of the inputs' types.
Status lower_sequence_construct(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> items, cx.inputs(n));
  PLUMB_RETURN_IF_ERROR(cx.error());
  if (items.empty()) return cx.invalid("SequenceConstruct needs at least one input");
  ir::Type elem = cx.type(items[0]);
  for (ValueId v : items) {
    if (cx.type(v).dtype != elem.dtype) return cx.invalid("SequenceConstruct inputs differ in dtype");
    elem = join_types(elem, cx.type(v));
  }
  cx.set_output(n, 0, seq_op(cx, SK::Construct, items, elem));
  return cx.error();
}

// True when `s` is, at the top level of the graph, the result of a `sequence empty` node (whose
// element type, from SequenceEmpty, has no rank).
bool made_empty(LowerCtx& cx, ValueId s) {
  if (cx.b.open_regions() > 0) return false;
  const auto& nodes = cx.b.graph().body.nodes;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it)
    if (it->outputs.size() == 1 && it->outputs[0] == s)
      return it->op == ir::Op::Sequence && ir::attrs<ir::Op::Sequence>(*it).kind == SK::Empty;
  return false;
}

// SequenceInsert-11: S[0:pos] ++ [T] ++ S[pos:], pos defaulting to the end. Into a sequence just
// made by SequenceEmpty (at position 0, the only valid one) this is [T], built with `construct`
// so that the elements get T's type (rank included) instead of SequenceEmpty's unknown one.
Status lower_sequence_insert(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId s, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId t, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  if (made_empty(cx, s) && cx.type(t).is_tensor() && cx.type(t).dtype == seq_elem(cx, s).dtype) {
    auto pos = cx.has_input(n, 2) ? cx.const_ints(n, 2)
                                  : std::optional<std::vector<int64_t>>(std::vector<int64_t>{0});
    if (pos && pos->size() == 1 && (*pos)[0] == 0) {
      cx.set_output(n, 0, seq_op(cx, SK::Construct, {t}, cx.type(t)));
      return cx.error();
    }
  }
  ir::Type elem = seq_elem(cx, s);
  const ir::Type item = cx.type(t);
  if (item.dtype != elem.dtype || !item.is_tensor())
    return cx.invalid("SequenceInsert of " + ir::type_to_string(item) + " into " +
                      ir::type_to_string(cx.type(s)));
  if (!ir::type_refines(item, elem)) {
    elem = join_types(elem, item);
    s = retype(cx, s, ir::Type::sequence(elem));
  }
  ValueId len = dynamic_result(cx, [&] { return seq_op(cx, SK::Length, {s}, elem); });
  PLUMB_ASSIGN_OR_RETURN(const ValueId pos_in, cx.optional_input(n, 2));
  ValueId pos = pos_in != ir::kNoValue ? position(cx, pos_in, len) : len;
  cx.set_output(n, 0, seq_op(cx, SK::Insert, {s, t, pos}, elem));
  return cx.error();
}

// SequenceAt-11: S[pos], pos in [-n, n-1].
Status lower_sequence_at(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId s, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId p, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type elem = seq_elem(cx, s);
  if (!elem.ranked) return cx.unsupported("SequenceAt on a sequence whose elements have unknown rank");
  ValueId len = dynamic_result(cx, [&] { return seq_op(cx, SK::Length, {s}, elem); });
  ValueId pos = position(cx, p, len);
  cx.set_output(n, 0, dynamic_result(cx, [&] { return seq_op(cx, SK::At, {s, pos}, elem); }));
  return cx.error();
}

// SequenceErase-11: S without S[pos], pos defaulting to -1 (the last element).
Status lower_sequence_erase(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId s, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type elem = seq_elem(cx, s);
  ValueId len = dynamic_result(cx, [&] { return seq_op(cx, SK::Length, {s}, elem); });
  PLUMB_ASSIGN_OR_RETURN(const ValueId pos_in, cx.optional_input(n, 1));
  ValueId pos = pos_in != ir::kNoValue ? position(cx, pos_in, len)
                                       : cx.b.binary(BK::Sub, len, cx.b.scalar_int(ir::DType::I64, 1));
  cx.set_output(n, 0, seq_op(cx, SK::Erase, {s, pos}, elem));
  return cx.error();
}

Status lower_sequence_length(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId s, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type elem = seq_elem(cx, s);
  cx.set_output(n, 0, dynamic_result(cx, [&] { return seq_op(cx, SK::Length, {s}, elem); }));
  return cx.error();
}

// ConcatFromSequence-11: concat along axis, or (new_axis = 1) stack along a new axis.
Status lower_concat_from_sequence(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId s, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  if (!n.has_attr("axis")) return cx.invalid("ConcatFromSequence needs the axis attribute");
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, n.attr_int("axis", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t new_axis, n.attr_int("new_axis", 0));
  const ir::Type elem = seq_elem(cx, s);
  if (!elem.ranked)
    return cx.unsupported("ConcatFromSequence on a sequence whose elements have unknown rank");
  const int64_t r = elem.rank();
  if (new_axis != 0) {
    PLUMB_ASSIGN_OR_RETURN(axis, normalize_axis(cx, axis, r + 1));
    PLUMB_RETURN_IF_ERROR(cx.error());
    cx.set_output(n, 0, seq_op(cx, SK::StackAxis, {s}, elem, axis));
  } else {
    PLUMB_ASSIGN_OR_RETURN(axis, normalize_axis(cx, axis, r));
    PLUMB_RETURN_IF_ERROR(cx.error());
    cx.set_output(n, 0, seq_op(cx, SK::ConcatAxis, {s}, elem, axis));
  }
  return cx.error();
}

// SplitToSequence-11 without `split` and keepdims = 0: element i is x[..., i, ...] with the axis
// removed, built by a while loop (i, seq) -> (i + 1, insert(seq, gather(x, i, axis), i)).
ValueId split_squeezed(LowerCtx& cx, ValueId x, int64_t axis) {
  ir::Builder& b = cx.b;
  const ir::Type xt = cx.type(x);
  ir::Shape es = xt.shape;
  es.erase(es.begin() + axis);
  const ir::Type elem = ir::Type::tensor(xt.dtype, es);
  const ir::Type seq_t = ir::Type::sequence(elem);
  const ir::Type i64 = ir::Type::tensor(ir::DType::I64, {});
  ValueId extent = b.reshape(b.emit1(ir::GatherAttrs{ir::GatherKind::Axis, 0, 0},
                                     {shape_value(cx, x), b.scalar_int(ir::DType::I64, axis)}),
                             b.shape_const({}));
  std::vector<ValueId> p = b.begin_region({i64, seq_t});
  ir::Region cond = b.end_region({b.compare(CK::Lt, p[0], extent)});
  p = b.begin_region({i64, seq_t});
  ValueId piece = b.emit1(ir::GatherAttrs{ir::GatherKind::Axis, axis, 0}, {x, p[0]});
  ValueId next = seq_op(cx, SK::Insert, {p[1], piece, p[0]}, elem);
  ir::Region body = b.end_region({b.binary(BK::Add, p[0], b.scalar_int(ir::DType::I64, 1)), next});
  std::vector<ValueId> r = b.while_({b.scalar_int(ir::DType::I64, 0), seq_op(cx, SK::Empty, {}, elem)},
                                    std::move(cond), std::move(body));
  return r.size() == 2 ? r[1] : ir::kNoValue;
}

// SplitToSequence-11: pieces of x along axis. split absent: pieces of 1 (keepdims = 0 removes the
// axis); split a scalar s: pieces of s, the last one holding the rest (ceil(d / s) pieces);
// split a 1-D tensor: those sizes (sequence.R5 when they do not sum to the dim).
Status lower_split_to_sequence(LowerCtx& cx, const OnnxNode& n) {
  ir::Builder& b = cx.b;
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, n.attr_int("axis", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t keepdims, n.attr_int("keepdims", 1));
  const ir::Type xt = cx.type(x);
  PLUMB_ASSIGN_OR_RETURN(axis, normalize_axis(cx, axis, xt.rank()));
  PLUMB_RETURN_IF_ERROR(cx.error());
  ir::Shape es = xt.shape;
  es[axis] = ir::Dim::symbolic();
  const ir::Type elem = ir::Type::tensor(xt.dtype, es);
  ValueId extent = b.emit1(ir::GatherAttrs{ir::GatherKind::Axis, 0, 0},
                           {shape_value(cx, x), b.const_ints(ir::DType::I64, {1}, {axis})});
  ValueId sizes;
  if (!cx.has_input(n, 1)) {
    if (keepdims == 0) {
      cx.set_output(n, 0, split_squeezed(cx, x, axis));
      return cx.error();
    }
    sizes = b.broadcast(b.scalar_int(ir::DType::I64, 1), extent, {});  // d pieces of 1
  } else {
    PLUMB_ASSIGN_OR_RETURN(const ValueId split_in, cx.input(n, 1));
    ValueId split = b.cast(split_in, ir::DType::I64);
    const ir::Type st = cx.type(split);
    if (st.rank() == 1) {
      sizes = split;
    } else if (st.rank() == 0) {
      // count = ceil(d / s); sizes[j] = min(s, d - j * s)
      ValueId d = b.reshape(extent, b.shape_const({}));
      ValueId one = b.scalar_int(ir::DType::I64, 1);
      ValueId count = b.binary(BK::Div, b.binary(BK::Sub, b.binary(BK::Add, d, split), one), split);
      ValueId count_shape = b.reshape(count, b.shape_const({1}));
      ValueId j = b.emit1(ir::IotaAttrs{ir::DType::I64, 0}, {count_shape});
      ValueId rest = b.binary(BK::Sub, b.broadcast(d, count_shape, {}),
                              b.binary(BK::Mul, j, b.broadcast(split, count_shape, {})));
      sizes = b.binary(BK::Min, rest, b.broadcast(split, count_shape, {}));
    } else {
      return cx.invalid("SplitToSequence split must be a scalar or 1-D");
    }
  }
  cx.set_output(n, 0, seq_op(cx, SK::Split, {x, sizes}, elem, axis));
  return cx.error();
}

// Optional-15: wrap the input, or (no input) an empty optional of the `type` attribute.
Status lower_optional(LowerCtx& cx, const OnnxNode& n) {
  if (cx.has_input(n, 0)) {
    PLUMB_ASSIGN_OR_RETURN(ValueId v, cx.input(n, 0));
    PLUMB_RETURN_IF_ERROR(cx.error());
    cx.set_output(n, 0, opt_op(cx, OK::Wrap, {v}, cx.type(v)));
    return cx.error();
  }
  const onnx::OnnxAttribute* a = n.attr("type");
  if (!a || a->type != onnx::AttrType::TypeProto || !a->tp)
    return cx.invalid("Optional without input needs a type attribute");
  cx.set_output(n, 0, opt_op(cx, OK::None, {}, *a->tp));
  return cx.error();
}

// OptionalHasElement-15/18: has(input); a tensor or sequence input (18) has one; no input (18)
// has none.
Status lower_optional_has_element(LowerCtx& cx, const OnnxNode& n) {
  if (!cx.has_input(n, 0)) {
    cx.set_output(n, 0, cx.b.const_ints(ir::DType::Bool, {}, {0}));
    return cx.error();
  }
  PLUMB_ASSIGN_OR_RETURN(ValueId v, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type t = cx.type(v);
  if (t.kind != ir::TypeKind::Optional) {
    if (cx.opset() < 18) return cx.invalid("OptionalHasElement-15 needs an optional input");
    cx.set_output(n, 0, cx.b.const_ints(ir::DType::Bool, {}, {1}));
    return cx.error();
  }
  cx.set_output(n, 0, dynamic_result(cx, [&] { return opt_op(cx, OK::Has, {v}, *t.elem); }));
  return cx.error();
}

// OptionalGetElement-15/18: the held value (optional.R1 when empty); a tensor or sequence input
// (18) is returned as it is.
Status lower_optional_get_element(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId v, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type t = cx.type(v);
  if (t.kind != ir::TypeKind::Optional) {
    if (cx.opset() < 18) return cx.invalid("OptionalGetElement-15 needs an optional input");
    cx.set_output(n, 0, v);
    return cx.error();
  }
  cx.set_output(n, 0, dynamic_result(cx, [&] { return opt_op(cx, OK::Get, {v}, *t.elem); }));
  return cx.error();
}

}  // namespace

void register_sequence(Registry& r) {
  // A table: its rows packed, several to a line.
  // clang-format off
  r.add_since({
      {"SequenceEmpty", 11, lower_sequence_empty}, {"SequenceConstruct", 11, lower_sequence_construct},
      {"SequenceInsert", 11, lower_sequence_insert}, {"SequenceAt", 11, lower_sequence_at},
      {"SequenceErase", 11, lower_sequence_erase}, {"SequenceLength", 11, lower_sequence_length},
      {"ConcatFromSequence", 11, lower_concat_from_sequence},
      {"SplitToSequence", 11, lower_split_to_sequence}, {"Optional", 15, lower_optional},
      {"OptionalHasElement", 15, lower_optional_has_element},
      {"OptionalGetElement", 15, lower_optional_get_element}});
  // clang-format on
}

}  // namespace plumb::lower
