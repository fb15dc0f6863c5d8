// plumb gen's recipes for recurrent ops (RNN, LSTM, GRU) and control flow (If, Loop, Scan)
// (hunt/gen_recipe.h; the rules common to all recipes are at the top of gen_ops.cpp). Recurrent
// weights are scaled by 1/(input + hidden) so that the gates stay away from saturation; a
// control-flow op's subgraphs are one or two nodes on values of the outer scope, typed in full (the
// checker's full check infers their shapes), and If's condition is a comparison of an exact value.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "hunt/gen_recipe.h"

namespace plumb::hunt::gen::recipe {

namespace {

void typed(::onnx::ValueInfoProto* vi, const std::string& name, int32_t elem, const Dims& dims) {
  vi->set_name(name);
  auto* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem);
  auto* shape = t->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

::onnx::NodeProto* sub_node(::onnx::GraphProto* g, const std::string& op, const std::vector<std::string>& ins,
                            const std::string& out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(g->name() + "_n" + std::to_string(g->node_size() - 1));
  for (const auto& i : ins) n->add_input(i);
  n->add_output(out);
  return n;
}

::onnx::GraphProto* graph_attr(::onnx::NodeProto* node, const std::string& name) {
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::GRAPH);
  auto* g = a->mutable_g();
  g->set_name(name);
  return g;
}

// A scalar float constant node inside a subgraph (subgraphs here hold no initializers).
std::string sub_const(::onnx::GraphProto* g, const std::string& name, float v) {
  auto* n = g->add_node();
  n->set_op_type("Constant");
  n->set_name(g->name() + "_" + name);
  n->add_output(name);
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(::onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(::onnx::TensorProto::FLOAT);
  a->mutable_t()->add_float_data(v);
  return name;
}

}  // namespace

// RNN, LSTM, GRU over a rank-3 value read as [seq, batch, input]: forward, reverse or bidirectional, with or
// without bias and initial state, GRU's linear_before_reset; Y and Y_h (and LSTM's Y_c) go on as values.
bool rnn(Builder& b, const std::string& op) {
  const Value x = ready(b, of_rank(b, 3, 3, {b.rng.in(1, 4), b.rng.in(1, 3), b.rng.in(1, 4)}), 2);
  // layout 1 (batch-major, opset 14) is left out: onnxruntime's CPU kernels refuse it ("Batchwise
  // recurrent operations (layout == 1) are not supported"); the code for it stays for a backend
  // that has it.
  const bool batch_major = false;
  const int64_t seq = x.dims[batch_major ? 1 : 0], batch = x.dims[batch_major ? 0 : 1], in = x.dims[2];
  const int64_t hidden = b.rng.in(1, 4);
  const int gates = op == "LSTM" ? 4 : (op == "GRU" ? 3 : 1);
  static const char* const kDirections[] = {"forward", "reverse", "bidirectional"};
  const std::string direction = kDirections[b.rng.below(3)];
  const int64_t dirs = direction == "bidirectional" ? 2 : 1;
  const float scale = 1.0f / static_cast<float>(in + hidden);
  std::vector<std::string> ins = {x.name, b.const_f32_random({dirs, gates * hidden, in}, -scale, scale),
                                  b.const_f32_random({dirs, gates * hidden, hidden}, -scale, scale)};
  const bool bias = b.rng.chance(60), init = b.rng.chance(40);
  const Dims state = batch_major ? Dims{batch, dirs, hidden} : Dims{dirs, batch, hidden};
  if (bias || init) ins.push_back(bias ? b.const_f32_random({dirs, 2 * gates * hidden}, -0.5f, 0.5f) : "");
  if (init) {
    ins.push_back("");  // sequence_lens: every sequence full length
    ins.push_back(b.const_f32_random(state, -1, 1));
    if (op == "LSTM" && b.rng.chance(50)) ins.push_back(b.const_f32_random(state, -1, 1));
  }
  const Dims ydims = batch_major ? Dims{batch, seq, dirs, hidden} : Dims{seq, dirs, batch, hidden};
  const bool want_y = b.rng.chance(70), want_h = !want_y || b.rng.chance(50);
  const bool want_c = op == "LSTM" && b.rng.chance(30);
  std::vector<std::string> outs = {want_y ? b.fresh("v") : "", want_h ? b.fresh("v") : ""};
  if (want_c) outs.push_back(b.fresh("v"));
  if (outs.back().empty()) outs.pop_back();
  auto* node = b.node(op, ins, outs);
  set_int(node, "hidden_size", hidden);
  if (direction != "forward" || b.rng.chance(30)) set_string(node, "direction", direction);
  if (batch_major) set_int(node, "layout", 1);
  if (op == "GRU" && b.rng.chance(50)) set_int(node, "linear_before_reset", 1);
  if (want_y) b.pool.push_back(Value{outs[0], ydims, 1, false});
  if (want_h) b.pool.push_back(Value{outs[1], state, 1, false});
  if (want_c) b.pool.push_back(Value{outs[2], state, static_cast<double>(seq) + 1, false});
  return true;
}

// If (a comparison of an exact scalar picks one of two one-node branches on an outer value), Loop
// (a trip count of 1 to 3, the carried value halved plus a constant, its values scanned out),
// Scan (a running sum along axis 0, forward or reverse).
bool control(Builder& b, const std::string& op) {
  if (op == "If") {
    const Value c = exact_value(b, 1, 6, {b.rng.in(1, 4), b.rng.in(1, 5)});
    const std::string top = b.fresh("v");
    auto* rm = b.node("ReduceMax", {c.name}, {top});
    set_int(rm, "keepdims", 0);
    const std::string cond = condition(b, Value{top, {}, c.bound, true});
    const Value x = any_value(b);
    const Value out = b.push(x.dims, x.bound, false);
    auto* node = b.node("If", {cond}, {out.name});
    static const char* const kOps[] = {"Relu", "Neg", "Abs", "Sigmoid", "Tanh"};
    for (const char* branch : {"then_branch", "else_branch"}) {
      auto* g = graph_attr(node, branch);
      const std::string y = std::string(branch) + "_y";
      sub_node(g, kOps[b.rng.below(5)], {x.name}, y);
      typed(g->add_output(), y, ::onnx::TensorProto::FLOAT, x.dims);
    }
    return true;
  }
  const Value x = any_value(b, op == "Scan" ? 1 : 0);
  if (op == "SequenceMap") {
    // A sequence of x and 1 or 2 constants of its dims, each mapped through a one-node body with a
    // constant (Mul by 0.5 or Add 0.5), stacked back on a new axis.
    std::vector<std::string> items = {x.name};
    for (int k = b.rng.in(1, 2); k > 0; --k) items.push_back(b.const_f32_random(x.dims, -1, 1));
    Dims dims = x.dims;
    dims.insert(dims.begin(), static_cast<int64_t>(items.size()));
    if (num_elements(dims) > kMaxElements) return false;
    const std::string seq = b.fresh("v"), mapped = b.fresh("v"), cat = b.fresh("v");
    b.node("SequenceConstruct", items, {seq});
    auto* node = b.node("SequenceMap", {seq}, {mapped});
    auto* g = graph_attr(node, "body");
    auto* in = g->add_input();
    typed(in, "e", ::onnx::TensorProto::FLOAT, x.dims);
    const bool mul = b.rng.chance(50);
    sub_node(g, mul ? "Mul" : "Add", {"e", sub_const(g, "k", 0.5f)}, "f");
    typed(g->add_output(), "f", ::onnx::TensorProto::FLOAT, x.dims);
    auto* cn = b.node("ConcatFromSequence", {mapped}, {cat});
    set_int(cn, "axis", 0);
    set_int(cn, "new_axis", 1);
    settle(b, cat, dims, std::max(x.bound, 1.0) + 0.5, false);
    return true;
  }
  if (op == "Loop") {
    const int64_t trips = b.rng.in(1, 3);
    const bool scan_out = b.rng.chance(60);
    Dims sdims = {trips};
    sdims.insert(sdims.end(), x.dims.begin(), x.dims.end());
    if (scan_out && num_elements(sdims) > kMaxElements) return false;
    const Value last = b.push(x.dims, x.bound + 1, false);
    std::vector<std::string> outs = {last.name};
    if (scan_out) outs.push_back(b.fresh("v"));
    const bool t = true;
    const std::string cond_in = b.rng.chance(50) ? "" : b.initializer(::onnx::TensorProto::BOOL, {}, &t, 1);
    auto* node = b.node("Loop", {b.const_i64({trips}, true), cond_in, x.name}, outs);
    auto* g = graph_attr(node, "body");
    typed(g->add_input(), "i", ::onnx::TensorProto::INT64, {});
    typed(g->add_input(), "cond", ::onnx::TensorProto::BOOL, {});
    typed(g->add_input(), "v", ::onnx::TensorProto::FLOAT, x.dims);
    const std::string half = sub_const(g, "half", 0.5f), step = sub_const(g, "step", 0.5f);
    sub_node(g, "Identity", {"cond"}, "cond_out");
    sub_node(g, "Mul", {"v", half}, "halved");
    sub_node(g, "Add", {"halved", step}, "v_out");
    typed(g->add_output(), "cond_out", ::onnx::TensorProto::BOOL, {});
    typed(g->add_output(), "v_out", ::onnx::TensorProto::FLOAT, x.dims);
    if (scan_out) {
      sub_node(g, "Identity", {"v_out"}, "scanned");
      typed(g->add_output(), "scanned", ::onnx::TensorProto::FLOAT, x.dims);
      settle(b, outs[1], sdims, x.bound + 1, false);  // its length is data-dependent in ONNX
    }
    return true;
  }
  // Scan: state = x[0]'s shape of zeros, then state += x[t]; y[t] = state.
  const Dims row(x.dims.begin() + 1, x.dims.end());
  const int64_t n = x.dims[0];
  const std::string init = b.const_f32(row, std::vector<float>(static_cast<size_t>(num_elements(row)), 0.0f));
  const Value total = b.push(row, x.bound * static_cast<double>(n), false);
  const Value ys{b.fresh("v"), x.dims, x.bound * static_cast<double>(n), false};
  auto* node = b.node("Scan", {init, x.name}, {total.name, ys.name});
  set_int(node, "num_scan_inputs", 1);
  if (b.rng.chance(40)) set_ints(node, "scan_input_directions", {1});
  auto* g = graph_attr(node, "body");
  typed(g->add_input(), "s", ::onnx::TensorProto::FLOAT, row);
  typed(g->add_input(), "xt", ::onnx::TensorProto::FLOAT, row);
  sub_node(g, "Add", {"s", "xt"}, "s_out");
  sub_node(g, "Identity", {"s_out"}, "y");
  typed(g->add_output(), "s_out", ::onnx::TensorProto::FLOAT, row);
  typed(g->add_output(), "y", ::onnx::TensorProto::FLOAT, row);
  b.pool.push_back(ys);
  return true;
}

}  // namespace plumb::hunt::gen::recipe
