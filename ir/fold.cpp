#include "ir/fold.h"

#include <map>
#include <set>

#include "ir/attrs.h"
#include "ir/constant_values.h"

namespace plumb::ir {

namespace {

// A `constant` node defining `out` in `sub` with the data `c`.
Node constant_node(Graph& sub, ValueId out, ConstantData c) {
  Node cn;
  cn.op = Op::Constant;
  cn.outputs = {out};
  cn.attrs = attr_list(ConstantAttrs{ConstRef{static_cast<uint32_t>(sub.constants.size())}});
  sub.constants.push_back(std::move(c));
  return cn;
}

// Ops whose values do not go into the graph: sources of data the graph keeps computing (rng,
// image_decode), containers and strings.
bool graph_foldable_op(Op op) {
  return op != Op::Rng && op != Op::ImageDecode && op != Op::If && op != Op::While && op != Op::Sequence &&
         op != Op::Optional && op != Op::Map && op != Op::String;
}

// A result a plan may hold: a static tensor, not string, of at most max_elements elements.
bool plan_foldable_type(const Type& t, int64_t max_elements) {
  if (!t.is_tensor() || !t.ranked || !shape_is_static(t.shape) || t.dtype == DType::String) return false;
  return shape_num_elements(t.shape) <= max_elements;
}

}  // namespace

bool may_fold(const Node& n, const std::vector<Type>& results, FoldScope scope, int64_t max_elements) {
  if (!n.regions.empty()) return false;
  if (scope == FoldScope::kGraph && !graph_foldable_op(n.op)) return false;
  for (const Type& t : results)
    if (scope == FoldScope::kGraph ? !foldable_type(t, max_elements) : !plan_foldable_type(t, max_elements))
      return false;
  return true;
}

bool foldable_type(const Type& t, int64_t max_elements) {
  if (t.kind != TypeKind::Tensor || !t.ranked || !shape_is_static(t.shape)) return false;
  if (t.dtype == DType::String || is_packed(t.dtype)) return false;
  const int64_t n = shape_num_elements(t.shape);
  return n >= 0 && n <= max_elements;
}

std::optional<std::vector<int64_t>> static_shape_dims(const Type& operand) {
  if (operand.kind != TypeKind::Tensor || !operand.ranked || !shape_is_static(operand.shape))
    return std::nullopt;
  std::vector<int64_t> dims;
  for (const Dim& d : operand.shape) dims.push_back(d.size);
  return dims;
}

std::optional<ConstantData> shape_of_constant(const Type& operand, const Type& result) {
  std::optional<std::vector<int64_t>> dims = static_shape_dims(operand);
  if (!dims || result.dtype != DType::I64) return std::nullopt;
  Expected<std::vector<uint8_t>> bytes = encode_int_values(DType::I64, *dims);
  if (!bytes) return std::nullopt;
  return ConstantData::owned(result, std::move(*bytes));
}

std::optional<ConstantData> fold_node(const Evaluator& eval, const Node& n,
                                      const std::vector<const ConstantData*>& operands, const Type& result) {
  if (operands.size() != n.inputs.size() || n.outputs.size() != 1) return std::nullopt;
  Graph sub;
  Node copy = n;
  for (size_t i = 0; i < operands.size(); ++i) {
    copy.inputs[i] = sub.add_value(operands[i]->type);
    sub.body.nodes.push_back(constant_node(sub, copy.inputs[i], *operands[i]));
  }
  copy.outputs = {sub.add_value(result)};
  sub.body.results = {copy.outputs[0]};
  sub.output_names = {""};
  sub.body.nodes.push_back(std::move(copy));
  return eval.evaluate(std::move(sub), FoldLimits{}.max_bytes);
}

void Folder::index(const Graph& g) {
  for (; indexed_ < g.body.nodes.size(); ++indexed_)
    for (ValueId o : g.body.nodes[indexed_].outputs) producer_[o] = indexed_;
}

bool Folder::is_constant(const Graph& g, ValueId v) {
  index(g);
  auto p = producer_.find(v);
  return p != producer_.end() && g.body.nodes[p->second].op == Op::Constant;
}

std::optional<ConstantData> Folder::fold(const Graph& g, ValueId v, const InputValue& input_value) {
  if (v >= g.values.size() || !foldable_type(g.type_of(v), limits_.max_elements)) return std::nullopt;
  index(g);
  // The nodes `v` depends on, found depth-first; any leaf that is not a constant ends the attempt.
  std::set<size_t> needed;
  std::vector<ValueId> stack{v};
  std::set<ValueId> seen;
  std::map<ValueId, ConstantData> leaves;  // graph inputs standing for given values
  while (!stack.empty()) {
    const ValueId x = stack.back();
    stack.pop_back();
    if (!seen.insert(x).second) continue;
    auto p = producer_.find(x);
    if (p == producer_.end()) {
      // A graph input with a value given, or else the end: a value of an open region, or an input.
      std::optional<ConstantData> c = input_value ? input_value(x) : std::nullopt;
      if (!c) return std::nullopt;
      leaves.emplace(x, std::move(*c));
      continue;
    }
    const Node& n = g.body.nodes[p->second];
    std::vector<Type> results;
    for (ValueId o : n.outputs) results.push_back(g.type_of(o));
    if (!may_fold(n, results, FoldScope::kGraph, limits_.max_elements)) return std::nullopt;
    needed.insert(p->second);
    if (needed.size() > limits_.max_nodes) return std::nullopt;
    if (n.op == Op::ShapeOf && static_shape_dims(g.type_of(n.inputs[0]))) continue;
    for (ValueId in : n.inputs) stack.push_back(in);
  }
  // A graph of copies of those nodes, in their original order, whose one output is `v`; values are
  // renumbered into the small graph, constants shared (their bytes are not copied).
  Graph sub;
  std::unordered_map<ValueId, ValueId> renamed;
  auto value_in_sub = [&](ValueId x) {
    auto it = renamed.find(x);
    if (it != renamed.end()) return it->second;
    const ValueId y = sub.add_value(g.type_of(x));
    renamed[x] = y;
    return y;
  };
  for (auto& [x, c] : leaves) {
    const ValueId y = value_in_sub(x);
    sub.body.nodes.push_back(constant_node(sub, y, std::move(c)));
  }
  for (size_t k : needed) {
    const Node& n = g.body.nodes[k];
    if (n.op == Op::ShapeOf && static_shape_dims(g.type_of(n.inputs[0]))) {
      // Replace shape_of by the constant it computes (its operand is not part of `sub`).
      std::optional<ConstantData> c = shape_of_constant(g.type_of(n.inputs[0]), g.type_of(n.outputs[0]));
      if (!c) return std::nullopt;
      const ValueId y = value_in_sub(n.outputs[0]);
      sub.body.nodes.push_back(constant_node(sub, y, std::move(*c)));
      continue;
    }
    Node copy = n;
    for (ValueId& x : copy.inputs) x = value_in_sub(x);
    for (ValueId& x : copy.outputs) x = value_in_sub(x);
    if (copy.op == Op::Constant) {
      const uint32_t src = attrs<Op::Constant>(copy).value.index;
      if (src >= g.constants.size()) return std::nullopt;
      copy.attrs = attr_list(ConstantAttrs{ConstRef{static_cast<uint32_t>(sub.constants.size())}});
      sub.constants.push_back(g.constants[src]);
    }
    sub.body.nodes.push_back(std::move(copy));
  }
  sub.body.results = {value_in_sub(v)};
  sub.output_names = {""};
  return eval_->evaluate(std::move(sub), limits_.max_bytes);
}

}  // namespace plumb::ir
