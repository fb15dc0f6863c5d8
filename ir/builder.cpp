#include "ir/builder.h"

#include <algorithm>
#include <utility>

#include "ir/constant_values.h"
#include "ir/fold.h"
#include "ir/infer.h"

namespace plumb::ir {

namespace {

// "new node binary [from 'Add_3' (Add-14)]": a node being built has no pre-order number yet.
std::string build_place(const Node& n) {
  std::string s = node_place(n, 0);
  return "new " + s.substr(s.find("node"), 4) + s.substr(s.find(' ', 5));
}

int default_num_outputs(const OpInfo& info, const std::vector<ValueId>& inputs,
                        const std::vector<Region>& regions) {
  if (info.op == Op::If) return regions.empty() ? 0 : static_cast<int>(regions[0].results.size());
  if (info.op == Op::While) return static_cast<int>(inputs.size());
  return info.min_outputs;
}

}  // namespace

std::vector<Attr> order_attrs(Op op, std::vector<Attr> attrs) {
  if (static_cast<int>(op) >= kNumOps) return attrs;
  const OpInfo& info = op_info(op);
  auto rank = [&](const Attr& a) {
    for (int i = 0; i < info.num_attrs; ++i)
      if (info.attrs[i].name == a.name) return i;
    return info.num_attrs;
  };
  std::stable_sort(attrs.begin(), attrs.end(),
                   [&](const Attr& a, const Attr& b) { return rank(a) < rank(b); });
  return attrs;
}

Builder::Builder(Graph& g) : g_(g) {
  // Constants the graph already has at top level keep feeding inference.
  const_of_.assign(g_.values.size(), -1);
  for (const Node& n : g_.body.nodes)
    if (n.op == Op::Constant && n.outputs.size() == 1 && n.outputs[0] < g_.values.size()) {
      Expected<ConstantAttrs> a = decode_attrs<Op::Constant>(n);
      if (a && a->value.index < g_.constants.size()) const_of_[n.outputs[0]] = a->value.index;
    }
}

void Builder::fail(Status s) {
  if (status_.is_ok()) status_ = std::move(s);
}

const Type& Builder::type_of(ValueId v) const {
  static const Type kNone;  // immutable
  return v < g_.values.size() ? g_.values[v].type : kNone;
}

const std::vector<int64_t>* Builder::known_values(ValueId v) {
  if (v >= const_of_.size() || const_of_[v] < 0) return nullptr;
  const auto c = static_cast<size_t>(const_of_[v]);
  if (decoded_.size() < g_.constants.size()) decoded_.resize(g_.constants.size());
  if (c >= decoded_.size()) return nullptr;
  if (!decoded_[c]) decoded_[c] = constant_int_values(g_.constants[c]);
  return *decoded_[c] ? &**decoded_[c] : nullptr;
}

ValueId Builder::input(Type type, std::string onnx_name) {
  if (!ok()) return kNoValue;
  const std::string why = type_problem(type);
  if (!why.empty()) {
    fail(Status(ErrorCode::kInvalidModel, why, "graph.V2", "input '" + onnx_name + "'"));
    return kNoValue;
  }
  const ValueId v = g_.add_value(std::move(type), onnx_name);
  g_.body.params.push_back(v);
  g_.input_names.push_back(std::move(onnx_name));
  return v;
}

void Builder::output(ValueId v, std::string onnx_name) {
  if (!ok()) return;
  if (v >= g_.values.size()) {
    fail(Status(ErrorCode::kInvalidModel, "output is not a value of this graph", "graph.V5",
                "output '" + onnx_name + "'"));
    return;
  }
  if (g_.values[v].onnx_name.empty()) g_.values[v].onnx_name = onnx_name;
  g_.body.results.push_back(v);
  g_.output_names.push_back(std::move(onnx_name));
}

std::vector<ValueId> Builder::emit(Op op, std::vector<ValueId> inputs, std::vector<Attr> attrs,
                                   std::vector<Region> regions, int num_outputs) {
  const bool known_op = static_cast<int>(op) < kNumOps;
  const int fallback = num_outputs >= 0 ? num_outputs : known_op ? op_info(op).min_outputs : 0;
  const std::vector<ValueId> failed(static_cast<size_t>(fallback), kNoValue);
  if (!ok()) return failed;
  if (!known_op) {
    fail(invalid_model("graph.V9", strfmt("op code %d is not a core op", static_cast<int>(op))));
    return failed;
  }
  Node n;
  n.op = op;
  n.inputs = std::move(inputs);
  n.attrs = order_attrs(op, std::move(attrs));
  n.regions = std::move(regions);
  n.prov = prov_;
  const std::string place = build_place(n);
  const int nout = num_outputs >= 0 ? num_outputs : default_num_outputs(op_info(op), n.inputs, n.regions);
  n.outputs.assign(static_cast<size_t>(nout), kNoValue);
  for (size_t i = 0; i < n.inputs.size(); ++i)
    if (n.inputs[i] >= g_.values.size()) {
      fail(Status(ErrorCode::kInvalidModel, strfmt("operand %zu is not a value of this graph", i), "graph.V5",
                  place));
      return failed;
    }
  if (Status s = check_node_structure(n); !s.is_ok()) {
    fail(s.with_place(place));
    return failed;
  }
  for (const Attr& a : n.attrs)
    if (const auto* t = std::get_if<TypeAttr>(&a.value)) {
      const std::string why = type_problem(t->type);
      if (!why.empty()) {
        fail(Status(ErrorCode::kInvalidModel, "attribute '" + a.name + "': " + why, "graph.V10", place));
        return failed;
      }
    }
  if (node_limit_ >= 0 && emitted_ >= node_limit_) {
    fail(Status(ErrorCode::kInvalidModel,
                strfmt("the lowering needs more than %lld core nodes (the limit)", (long long)node_limit_),
                "", place));
    return failed;
  }
  std::vector<Operand> operands(n.inputs.size());
  for (size_t i = 0; i < n.inputs.size(); ++i)
    operands[i] = Operand{&g_.values[n.inputs[i]].type, known_values(n.inputs[i])};
  Expected<std::vector<Type>> types = infer_types(InferCtx{n, operands, g_, false});
  if (!types) {
    fail(types.status().with_place(place));
    return failed;
  }
  if (types->size() != n.outputs.size()) {
    fail(Status(ErrorCode::kInvalidModel,
                strfmt("%zu results asked for, inference gives %zu", n.outputs.size(), types->size()),
                "graph.V12", place));
    return failed;
  }
  for (size_t i = 0; i < types->size(); ++i) n.outputs[i] = g_.add_value(std::move((*types)[i]));
  const_of_.resize(g_.values.size(), -1);
  if (std::optional<ConstantData> c = fold(n)) {
    // The node becomes the constant it computes (same result value, same provenance).
    n.op = Op::Constant;
    n.inputs.clear();
    n.attrs = attr_list(ConstantAttrs{ConstRef{static_cast<uint32_t>(g_.constants.size())}});
    g_.constants.push_back(std::move(*c));
  }
  if (n.op == Op::Constant) const_of_[n.outputs[0]] = ir::attrs<Op::Constant>(n).value.index;
  std::vector<ValueId> results = n.outputs;
  current().nodes.push_back(std::move(n));
  ++emitted_;
  return results;
}

std::optional<ConstantData> Builder::fold(const Node& n) {
  if (!eval_ || !open_.empty() || n.outputs.size() != 1 || n.op == Op::Constant) return std::nullopt;
  const Type& t = g_.values[n.outputs[0]].type;
  if (!may_fold(n, {t}, FoldScope::kGraph, is_float(t.dtype) ? kFoldFloats : kFoldInts)) return std::nullopt;
  if (n.op == Op::ShapeOf) return shape_of_constant(type_of(n.inputs[0]), t);
  std::vector<const ConstantData*> operands;
  for (ValueId in : n.inputs) {
    if (in >= const_of_.size() || const_of_[in] < 0) return std::nullopt;
    operands.push_back(&g_.constants[static_cast<size_t>(const_of_[in])]);
  }
  std::optional<ConstantData> c = fold_node(*eval_, n, operands, t);
  if (c && c->type != t) return std::nullopt;  // an evaluator's mistake must not retype the value
  return c;
}

ValueId Builder::emit1(Op op, std::vector<ValueId> inputs, std::vector<Attr> attrs) {
  std::vector<ValueId> r = emit(op, std::move(inputs), std::move(attrs), {}, 1);
  return r.empty() ? kNoValue : r[0];
}

// ---- constants ---------------------------------------------------------------------------------

ValueId Builder::constant(ConstantData data) {
  if (!ok()) return kNoValue;
  const std::string why = constant_problem(data);
  if (!why.empty()) {
    fail(Status(ErrorCode::kInvalidModel, why, "graph.V4", "new constant"));
    return kNoValue;
  }
  const auto index = static_cast<uint32_t>(g_.constants.size());
  g_.constants.push_back(std::move(data));
  return emit1(ConstantAttrs{ConstRef{index}}, {});
}

ValueId Builder::const_ints(DType dt, std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  if (!ok()) return kNoValue;
  Expected<std::vector<uint8_t>> bytes = encode_int_values(dt, values);
  if (!bytes) {
    fail(bytes.status());
    return kNoValue;
  }
  return constant(ConstantData::owned(Type::tensor(dt, static_shape(dims)), std::move(*bytes)));
}

ValueId Builder::const_floats(DType dt, std::vector<int64_t> dims, const std::vector<double>& values) {
  if (!ok()) return kNoValue;
  const DType stored = dt == DType::F64 ? DType::F64 : DType::F32;
  Expected<std::vector<uint8_t>> bytes = encode_float_values(stored, values);
  if (!bytes) {
    fail(bytes.status());
    return kNoValue;
  }
  const ValueId c =
      constant(ConstantData::owned(Type::tensor(stored, static_shape(dims)), std::move(*bytes)));
  return stored == dt ? c : cast(c, dt);
}

ValueId Builder::shape_const(const std::vector<int64_t>& dims) {
  return const_ints(DType::I64, {static_cast<int64_t>(dims.size())}, dims);
}

// ---- ops -----------------------------------------------------------------------------------------

ValueId Builder::iota(ValueId shape, DType dtype, int64_t axis) {
  return emit1(IotaAttrs{dtype, axis}, {shape});
}
ValueId Builder::unary(UnaryKind kind, ValueId operand) { return emit1(UnaryAttrs{kind}, {operand}); }
ValueId Builder::binary(BinaryKind kind, ValueId lhs, ValueId rhs) {
  return emit1(BinaryAttrs{kind}, {lhs, rhs});
}
ValueId Builder::compare(CompareKind kind, ValueId lhs, ValueId rhs) {
  return emit1(CompareAttrs{kind}, {lhs, rhs});
}
ValueId Builder::select(ValueId pred, ValueId on_true, ValueId on_false) {
  return emit1(SelectAttrs{}, {pred, on_true, on_false});
}
ValueId Builder::cast(ValueId operand, DType to, bool saturate, RoundMode round) {
  return emit1(CastAttrs{to, saturate, round}, {operand});
}
ValueId Builder::bitcast(ValueId operand, DType to) { return emit1(BitcastAttrs{to}, {operand}); }
ValueId Builder::shape_of(ValueId operand) { return emit1(ShapeOfAttrs{}, {operand}); }
ValueId Builder::reshape(ValueId operand, ValueId shape) { return emit1(ReshapeAttrs{}, {operand, shape}); }
ValueId Builder::broadcast(ValueId operand, ValueId shape, std::vector<int64_t> dims) {
  return emit1(BroadcastAttrs{std::move(dims)}, {operand, shape});
}
ValueId Builder::transpose(ValueId operand, std::vector<int64_t> perm) {
  return emit1(TransposeAttrs{std::move(perm)}, {operand});
}
ValueId Builder::slice(ValueId operand, ValueId start, ValueId limit, ValueId stride) {
  return emit1(SliceAttrs{}, {operand, start, limit, stride});
}
ValueId Builder::concat(std::vector<ValueId> operands, int64_t axis) {
  return emit1(ConcatAttrs{axis}, std::move(operands));
}
ValueId Builder::pad(ValueId operand, ValueId low, ValueId high, ValueId value, PadMode mode) {
  return emit1(PadAttrs{mode}, {operand, low, high, value});
}
ValueId Builder::gather(GatherKind kind, ValueId operand, ValueId indices, int64_t axis, int64_t batch_dims) {
  return emit1(GatherAttrs{kind, axis, batch_dims}, {operand, indices});
}
ValueId Builder::scatter(GatherKind kind, ValueId operand, ValueId indices, ValueId updates, int64_t axis,
                         ScatterReduction reduction) {
  return emit1(ScatterAttrs{kind, axis, reduction}, {operand, indices, updates});
}
std::vector<ValueId> Builder::sort(ValueId operand, int64_t axis, bool descending) {
  return emit(SortAttrs{axis, descending}, {operand});
}
ValueId Builder::nonzero(ValueId operand) { return emit1(NonZeroAttrs{}, {operand}); }
ValueId Builder::reduce(ReduceKind kind, ValueId operand, std::vector<int64_t> axes) {
  return emit1(ReduceAttrs{kind, std::move(axes)}, {operand});
}
ValueId Builder::arg_reduce(ArgKind kind, ValueId operand, int64_t axis, bool select_last) {
  return emit1(ArgReduceAttrs{kind, axis, select_last}, {operand});
}
ValueId Builder::scan(ReduceKind kind, ValueId operand, int64_t axis, bool exclusive, bool reverse) {
  return emit1(ScanAttrs{kind, axis, exclusive, reverse}, {operand});
}
std::vector<ValueId> Builder::pool(const PoolAttrs& attrs, ValueId operand, int num_outputs) {
  return emit(attrs, {operand}, {}, num_outputs);
}
ValueId Builder::matmul(ValueId lhs, ValueId rhs, DType to) { return emit1(MatMulAttrs{to}, {lhs, rhs}); }
ValueId Builder::conv(const ConvAttrs& attrs, ValueId lhs, ValueId rhs) { return emit1(attrs, {lhs, rhs}); }

// ---- regions -------------------------------------------------------------------------------------

std::vector<ValueId> Builder::begin_region(const std::vector<Type>& param_types) {
  // The region is opened even after a failure, so begin/end stay balanced.
  open_.emplace_back();
  std::vector<ValueId> params;
  for (const Type& t : param_types) {
    if (!ok()) {
      params.push_back(kNoValue);
      continue;
    }
    const std::string why = type_problem(t);
    if (!why.empty()) {
      fail(Status(ErrorCode::kInvalidModel, why, "graph.V2", "new region parameter"));
      params.push_back(kNoValue);
      continue;
    }
    params.push_back(g_.add_value(t));
    open_.back().params.push_back(params.back());
  }
  const_of_.resize(g_.values.size(), -1);
  return params;
}

Region Builder::end_region(std::vector<ValueId> results) {
  if (open_.empty()) {
    fail(internal_error("builder: end_region without begin_region"));
    return Region{};
  }
  Region r = std::move(open_.back());
  open_.pop_back();
  if (!ok()) return Region{};
  for (ValueId v : results)
    if (v >= g_.values.size()) {
      fail(Status(ErrorCode::kInvalidModel, "region result is not a value of this graph", "graph.V5",
                  "new region"));
      return Region{};
    }
  r.results = std::move(results);
  return r;
}

std::vector<ValueId> Builder::if_(ValueId cond, Region then_region, Region else_region) {
  std::vector<Region> regions;
  regions.push_back(std::move(then_region));
  regions.push_back(std::move(else_region));
  return emit(Op::If, {cond}, {}, std::move(regions));
}

std::vector<ValueId> Builder::while_(std::vector<ValueId> init, Region cond, Region body) {
  std::vector<Region> regions;
  regions.push_back(std::move(cond));
  regions.push_back(std::move(body));
  return emit(Op::While, std::move(init), {}, std::move(regions));
}

}  // namespace plumb::ir
