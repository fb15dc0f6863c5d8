// Graph-building helpers shared by the verifier tests (verify_test.cpp: graph.Vn and structure
// labels; verify_control_test.cpp: if and while): small hand-written graphs, valid or malformed.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"

namespace plumb::ir::verify_testing {

inline Type f32(std::vector<int64_t> dims) { return Type::tensor(DType::F32, static_shape(dims)); }
inline Type i64(std::vector<int64_t> dims) { return Type::tensor(DType::I64, static_shape(dims)); }
inline Type boolean() { return Type::tensor(DType::Bool, {}); }

inline Node make_node(Op op, std::vector<ValueId> in, std::vector<ValueId> out, std::vector<Attr> attrs = {},
                      std::vector<Region> regions = {}) {
  Node n;
  n.op = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.attrs = std::move(attrs);
  n.regions = std::move(regions);
  return n;
}
inline Node neg(ValueId in, ValueId out) {
  return make_node(Op::Unary, {in}, {out}, {Attr{"kind", EnumValue{UnaryKind::Neg}}});
}
inline Region region(std::vector<ValueId> params, std::vector<Node> nodes, std::vector<ValueId> results) {
  Region r;
  r.params = std::move(params);
  r.nodes = std::move(nodes);
  r.results = std::move(results);
  return r;
}

// A graph with one input %0 : f32[2] named "x" and the given output names.
inline Graph graph_with_input(Type t = f32({2})) {
  Graph g;
  g.body.params.push_back(g.add_value(std::move(t)));
  g.input_names.push_back("x");
  return g;
}
inline void set_outputs(Graph& g, std::vector<ValueId> outs) {
  g.body.results = outs;
  g.output_names.assign(outs.size(), "y");
}

inline void expect_label(const Status& s, const std::string& label) {
  EXPECT_FALSE(s.is_ok()) << "expected " << label;
  EXPECT_EQ(s.label(), label) << s.to_string();
  EXPECT_EQ(s.code(), ErrorCode::kInvalidModel) << s.to_string();
}

// x -> neg -> neg -> output: the smallest valid graph.
inline Graph two_negs() {
  Graph g = graph_with_input();
  ValueId a = g.add_value(f32({2}));
  ValueId b = g.add_value(f32({2}));
  g.body.nodes.push_back(neg(0, a));
  g.body.nodes.push_back(neg(a, b));
  set_outputs(g, {b});
  return g;
}

// %0 x: f32[2], %1 p: bool[]; %4 = if %1 { then () { %2 = neg %0; yield %2 } else () { %3 = neg %0; yield %3
// } }
inline Graph if_graph() {
  Graph g = graph_with_input();
  ValueId p = g.add_value(boolean());
  g.body.params.push_back(p);
  g.input_names.push_back("p");
  ValueId t = g.add_value(f32({2}));
  ValueId e = g.add_value(f32({2}));
  ValueId r = g.add_value(f32({2}));
  std::vector<Region> regions;
  regions.push_back(region({}, {neg(0, t)}, {t}));
  regions.push_back(region({}, {neg(0, e)}, {e}));
  g.body.nodes.push_back(make_node(Op::If, {p}, {r}, {}, std::move(regions)));
  set_outputs(g, {r});
  return g;
}

}  // namespace plumb::ir::verify_testing
