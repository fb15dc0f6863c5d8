#include "lowering/onnx/fold.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/attrs.h"
#include "runtime/session.h"

namespace plumb::lower {

namespace {

bool foldable_type(const ir::Type& t, int64_t max_elements) {
  if (t.kind != ir::TypeKind::Tensor || !t.ranked || !ir::shape_is_static(t.shape)) return false;
  if (t.dtype == ir::DType::String || ir::is_packed(t.dtype)) return false;
  const int64_t n = ir::shape_num_elements(t.shape);
  return n >= 0 && n <= max_elements;
}

bool foldable_op(ir::Op op) {
  return op != ir::Op::Rng && op != ir::Op::ImageDecode && op != ir::Op::If && op != ir::Op::While &&
         op != ir::Op::Sequence && op != ir::Op::Optional && op != ir::Op::Map && op != ir::Op::String;
}

// shape_of of a statically shaped value is a constant: it needs neither the node nor its input.
std::optional<std::vector<int64_t>> static_shape_of(const ir::Graph& g, const ir::Node& n) {
  if (n.op != ir::Op::ShapeOf) return std::nullopt;
  const ir::Type& in = g.type_of(n.inputs[0]);
  if (in.kind != ir::TypeKind::Tensor || !in.ranked || !ir::shape_is_static(in.shape)) return std::nullopt;
  std::vector<int64_t> dims;
  for (const ir::Dim& d : in.shape) dims.push_back(d.size);
  return dims;
}

// The file-format constant of a run-time tensor (nullopt for dtypes whose layouts differ).
std::optional<ir::ConstantData> to_constant(const rt::Tensor& t) {
  if (rt::runtime_elem_bytes(t.dtype) * 8 != ir::dtype_bits(t.dtype)) return std::nullopt;
  const auto* p = static_cast<const uint8_t*>(t.data);
  return ir::ConstantData::owned(ir::Type::tensor(t.dtype, ir::static_shape(t.shape)),
                                 std::vector<uint8_t>(p, p + t.nbytes()));
}

std::optional<rt::Tensor> run_one_output(ir::Graph sub) {
  rt::SessionOptions so;
  so.max_bytes = int64_t{64} << 20;
  auto session = rt::Session::create(std::move(sub), so);
  if (!session) return std::nullopt;  // e.g. the values are not yet well typed: leave it to the graph
  if (!(*session)->run().is_ok()) return std::nullopt;  // a run-time error surfaces when the graph runs
  const rt::RtValue& out = (*session)->output(0);
  if (!out.is_tensor()) return std::nullopt;
  return out.tensor();
}

ir::Node constant_node(ir::Graph& sub, ir::ValueId out, ir::ConstantData c) {
  ir::Node cn;
  cn.op = ir::Op::Constant;
  cn.outputs = {out};
  cn.attrs = {ir::Attr{"value", ir::ConstRef{static_cast<uint32_t>(sub.constants.size())}}};
  sub.constants.push_back(std::move(c));
  return cn;
}

}  // namespace

std::optional<ir::ConstantData> fold_node(const ir::Node& n,
                                          const std::vector<const ir::ConstantData*>& operands,
                                          const ir::Type& result) {
  if (operands.size() != n.inputs.size() || n.outputs.size() != 1) return std::nullopt;
  ir::Graph sub;
  ir::Node copy = n;
  for (size_t i = 0; i < operands.size(); ++i) {
    copy.inputs[i] = sub.add_value(operands[i]->type);
    sub.body.nodes.push_back(constant_node(sub, copy.inputs[i], *operands[i]));
  }
  copy.outputs = {sub.add_value(result)};
  sub.body.results = {copy.outputs[0]};
  sub.output_names = {""};
  sub.body.nodes.push_back(std::move(copy));
  std::optional<rt::Tensor> t = run_one_output(std::move(sub));
  if (!t) return std::nullopt;
  return to_constant(*t);
}

void Folder::index(const ir::Graph& g) {
  for (; indexed_ < g.body.nodes.size(); ++indexed_)
    for (ir::ValueId o : g.body.nodes[indexed_].outputs) producer_[o] = indexed_;
}

bool Folder::is_constant(const ir::Graph& g, ir::ValueId v) {
  index(g);
  auto p = producer_.find(v);
  return p != producer_.end() && g.body.nodes[p->second].op == ir::Op::Constant;
}

std::optional<onnx::Tensor> Folder::fold(const ir::Graph& g, ir::ValueId v, const InputValue& input_value) {
  if (v >= g.values.size() || !foldable_type(g.type_of(v), limits_.max_elements)) return std::nullopt;
  index(g);
  // The nodes `v` depends on, found depth-first; any leaf that is not a constant ends the attempt.
  std::set<size_t> needed;
  std::vector<ir::ValueId> stack{v};
  std::set<ir::ValueId> seen;
  std::map<ir::ValueId, const onnx::Tensor*> leaves;  // graph inputs standing for given values
  while (!stack.empty()) {
    const ir::ValueId x = stack.back();
    stack.pop_back();
    if (!seen.insert(x).second) continue;
    auto p = producer_.find(x);
    if (p == producer_.end()) {
      // A graph input with a value given, or else the end: a value of an open region, or an input.
      const onnx::Tensor* t = input_value ? input_value(x) : nullptr;
      if (!t) return std::nullopt;
      leaves[x] = t;
      continue;
    }
    const ir::Node& n = g.body.nodes[p->second];
    if (!foldable_op(n.op) || !n.regions.empty()) return std::nullopt;
    for (ir::ValueId o : n.outputs)
      if (!foldable_type(g.type_of(o), limits_.max_elements)) return std::nullopt;
    needed.insert(p->second);
    if (needed.size() > limits_.max_nodes) return std::nullopt;
    if (static_shape_of(g, n)) continue;
    for (ir::ValueId in : n.inputs) stack.push_back(in);
  }
  // A graph of copies of those nodes, in their original order, whose one output is `v`; values are
  // renumbered into the small graph, constants shared (their bytes are not copied).
  ir::Graph sub;
  std::unordered_map<ir::ValueId, ir::ValueId> renamed;
  auto value_in_sub = [&](ir::ValueId x) {
    auto it = renamed.find(x);
    if (it != renamed.end()) return it->second;
    const ir::ValueId y = sub.add_value(g.type_of(x));
    renamed[x] = y;
    return y;
  };
  for (const auto& [x, t] : leaves) {
    ir::Node cn;
    cn.op = ir::Op::Constant;
    cn.outputs = {value_in_sub(x)};
    cn.attrs = ir::attr_list(ir::ConstantAttrs{ir::ConstRef{static_cast<uint32_t>(sub.constants.size())}});
    sub.constants.push_back(t->to_constant());
    sub.body.nodes.push_back(std::move(cn));
  }
  for (size_t k : needed) {
    const ir::Node& n = g.body.nodes[k];
    if (auto dims = static_shape_of(g, n)) {
      // Replace shape_of by the constant it computes (its input is not part of `sub`).
      if (g.type_of(n.outputs[0]).dtype != ir::DType::I64) return std::nullopt;
      ir::ConstantData c = ir::ConstantData::owned(
          g.type_of(n.outputs[0]),
          std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(dims->data()),
                               reinterpret_cast<const uint8_t*>(dims->data() + dims->size())));
      ir::Node cn;
      cn.op = ir::Op::Constant;
      cn.outputs = {value_in_sub(n.outputs[0])};
      cn.attrs = ir::attr_list(ir::ConstantAttrs{ir::ConstRef{static_cast<uint32_t>(sub.constants.size())}});
      sub.constants.push_back(std::move(c));
      sub.body.nodes.push_back(std::move(cn));
      continue;
    }
    ir::Node copy = n;
    for (ir::ValueId& x : copy.inputs) x = value_in_sub(x);
    for (ir::ValueId& x : copy.outputs) x = value_in_sub(x);
    if (copy.op == ir::Op::Constant) {
      const uint32_t src = ir::attrs<ir::Op::Constant>(copy).value.index;
      if (src >= g.constants.size()) return std::nullopt;
      for (ir::Attr& a : copy.attrs)
        if (a.name == "value") a.value = ir::ConstRef{static_cast<uint32_t>(sub.constants.size())};
      sub.constants.push_back(g.constants[src]);
    }
    sub.body.nodes.push_back(std::move(copy));
  }
  sub.body.results = {value_in_sub(v)};
  sub.output_names = {""};
  rt::SessionOptions so;
  so.max_bytes = limits_.max_bytes;
  auto session = rt::Session::create(std::move(sub), so);
  if (!session) return std::nullopt;  // e.g. the values are not yet well typed: leave it to the graph
  if (!(*session)->run().is_ok()) return std::nullopt;  // a run-time error surfaces when the graph runs
  const rt::RtValue& out = (*session)->output(0);
  if (!out.is_tensor()) return std::nullopt;
  const rt::Tensor& t = out.tensor();
  if (rt::runtime_elem_bytes(t.dtype) * 8 != ir::dtype_bits(t.dtype)) return std::nullopt;
  const auto* p = static_cast<const uint8_t*>(t.data);
  return onnx::Tensor::owned("", t.dtype, t.shape, std::vector<uint8_t>(p, p + t.nbytes()));
}

}  // namespace plumb::lower
