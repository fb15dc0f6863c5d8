// spec/ops/if.md and spec/ops/while.md: inference of the region ops, the verifier over their
// regions, corrupted loops, and the spec pages' examples.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "ir/builder.h"
#include "ir/infer.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "tests/ir/verify_helpers.h"

namespace plumb::ir {
namespace {

using namespace verify_testing;

// ---- if (spec/ops/if.md) ------------------------------------------------------------------------

// Builds `if cond { then: yield then_v } { else: yield else_v }` where the branch values are
// made inside each branch by negating a fresh input of the given type.
struct IfCase {
  Graph g;
  Builder b{g};
  ValueId cond;
  std::vector<ValueId> run(Type cond_type, Type then_t, Type else_t) {
    cond = b.input(cond_type, "c");
    ValueId a = b.input(then_t, "a");
    ValueId e = b.input(else_t, "e");
    b.begin_region({});
    Region then_r = b.end_region({b.unary(UnaryKind::Neg, a)});
    b.begin_region({});
    Region else_r = b.end_region({b.unary(UnaryKind::Neg, e)});
    return b.if_(cond, std::move(then_r), std::move(else_r));
  }
};

TEST(InferIf, ResultTypesFromBranches) {
  IfCase c;
  std::vector<ValueId> r = c.run(boolean(), f32({2, 3}), f32({2, 3}));
  ASSERT_TRUE(c.b.ok()) << c.b.status().to_string();
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(c.b.type_of(r[0]), f32({2, 3}));
}

// ir::preorder_size counts a node with its regions' nodes: the numbering node_place uses.
TEST(InferIf, PreorderSizeCountsTheRegionsNodes) {
  IfCase c;
  c.run(boolean(), f32({2}), f32({2}));
  ASSERT_TRUE(c.b.ok()) << c.b.status().to_string();
  ASSERT_EQ(c.g.body.nodes.size(), 1u);
  EXPECT_EQ(preorder_size(c.g.body.nodes[0]), 3);  // if, then's neg, else's neg
  EXPECT_EQ(preorder_size(c.g.body), 3);
  EXPECT_EQ(preorder_size(Region{}), 0);
}

TEST(InferIf, C1ConditionMustBeBoolScalar) {
  IfCase c;
  c.run(i64({}), f32({2}), f32({2}));
  expect_label(c.b.status(), "if.C1");
  IfCase d;
  d.run(Type::tensor(DType::Bool, static_shape({1})), f32({2}), f32({2}));
  expect_label(d.b.status(), "if.C1");
}

TEST(InferIf, C2BranchesTakeNoParameters) {
  Graph g;
  Builder b(g);
  ValueId p = b.input(boolean(), "p");
  std::vector<ValueId> params = b.begin_region({f32({2})});
  Region then_r = b.end_region({params[0]});
  b.begin_region({});
  ValueId k = b.const_floats(DType::F32, {2}, {1, 2});
  Region else_r = b.end_region({k});
  b.if_(p, std::move(then_r), std::move(else_r));
  expect_label(b.status(), "if.C2");
}

TEST(InferIf, C3BranchesYieldOneValuePerResult) {
  Graph g;
  Builder b(g);
  ValueId p = b.input(boolean(), "p");
  ValueId x = b.input(f32({2}), "x");
  b.begin_region({});
  Region then_r = b.end_region({x, x});
  b.begin_region({});
  Region else_r = b.end_region({x});
  b.if_(p, std::move(then_r), std::move(else_r));
  expect_label(b.status(), "if.C3");
}

TEST(InferIf, C4BranchesAgreeOnDtypeAndRank) {
  IfCase c;
  c.run(boolean(), f32({2}), Type::tensor(DType::F64, static_shape({2})));
  expect_label(c.b.status(), "if.C4");
  IfCase d;
  d.run(boolean(), f32({2}), f32({2, 1}));
  expect_label(d.b.status(), "if.C4");
}

TEST(InferIf, DifferentDimsJoinToSymbolic) {
  IfCase c;
  Type then_t = Type::tensor(DType::F32, {Dim(2), Dim(3), Dim::symbolic("N")});
  Type else_t = Type::tensor(DType::F32, {Dim(2), Dim(4), Dim::symbolic("N")});
  std::vector<ValueId> r = c.run(boolean(), then_t, else_t);
  ASSERT_TRUE(c.b.ok()) << c.b.status().to_string();
  EXPECT_EQ(c.b.type_of(r[0]), Type::tensor(DType::F32, {Dim(2), Dim::symbolic(), Dim::symbolic("N")}));
}

TEST(VerifyIf, BranchesUseEnclosingValues) {
  IfCase c;
  std::vector<ValueId> r = c.run(boolean(), f32({2}), f32({2}));
  c.b.output(r[0], "y");
  ASSERT_TRUE(c.b.ok()) << c.b.status().to_string();
  EXPECT_TRUE(verify(c.g).is_ok()) << verify(c.g).to_string();
  EXPECT_TRUE(verify(if_graph()).is_ok());
}

TEST(VerifyIf, C1CheckedByVerifier) {
  Graph g = if_graph();
  g.values[1].type = i64({});
  expect_label(verify(g), "if.C1");
}

TEST(VerifyIf, DeclaredResultIsChecked) {
  Graph g = if_graph();
  g.values[4].type = f32({3});
  expect_label(verify(g), "graph.V12");
}

// ---- while (spec/ops/while.md) --------------------------------------------------------------------

// while (i < n) { x = -x; i = i + 1 }: x: f32[2], i: i64[], n: i64[] from the enclosing scope.
struct WhileCase {
  Graph g;
  Builder b{g};
  ValueId x, n, zero;
  WhileCase() {
    x = b.input(f32({2}), "x");
    n = b.input(i64({}), "n");
    zero = b.scalar_int(DType::I64, 0);
  }
  Region cond(std::vector<Type> params) {
    std::vector<ValueId> p = b.begin_region(params);
    return b.end_region({b.compare(CompareKind::Lt, p[1], n)});
  }
  Region body(std::vector<Type> params) {
    std::vector<ValueId> p = b.begin_region(params);
    ValueId one = b.scalar_int(DType::I64, 1);
    return b.end_region({b.unary(UnaryKind::Neg, p[0]), b.binary(BinaryKind::Add, p[1], one)});
  }
};

TEST(InferWhile, ResultsAreFinalCarriedValues) {
  WhileCase w;
  std::vector<ValueId> r =
      w.b.while_({w.x, w.zero}, w.cond({f32({2}), i64({})}), w.body({f32({2}), i64({})}));
  ASSERT_TRUE(w.b.ok()) << w.b.status().to_string();
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(w.b.type_of(r[0]), f32({2}));
  EXPECT_EQ(w.b.type_of(r[1]), i64({}));
  w.b.output(r[0], "y");
  EXPECT_TRUE(verify(w.g).is_ok()) << verify(w.g).to_string();
}

TEST(InferWhile, C1OneResultPerCarriedValue) {
  WhileCase w;
  std::vector<Region> regions;
  regions.push_back(w.cond({f32({2}), i64({})}));
  regions.push_back(w.body({f32({2}), i64({})}));
  w.b.emit(Op::While, {w.x, w.zero}, {}, std::move(regions), 1);
  expect_label(w.b.status(), "while.C1");
}

TEST(InferWhile, C2RegionsTakeTheCarriedValues) {
  WhileCase w;
  std::vector<ValueId> p = w.b.begin_region({i64({})});
  Region cond = w.b.end_region({w.b.compare(CompareKind::Lt, p[0], w.n)});
  w.b.while_({w.x, w.zero}, std::move(cond), w.body({f32({2}), i64({})}));
  expect_label(w.b.status(), "while.C2");
}

TEST(InferWhile, C3CondYieldsOneBoolScalar) {
  WhileCase w;
  std::vector<ValueId> p = w.b.begin_region({f32({2}), i64({})});
  Region cond = w.b.end_region({p[1]});  // i64, not bool
  w.b.while_({w.x, w.zero}, std::move(cond), w.body({f32({2}), i64({})}));
  expect_label(w.b.status(), "while.C3");

  WhileCase v;
  p = v.b.begin_region({f32({2}), i64({})});
  ValueId t = v.b.compare(CompareKind::Lt, p[1], v.n);
  cond = v.b.end_region({t, t});
  v.b.while_({v.x, v.zero}, std::move(cond), v.body({f32({2}), i64({})}));
  expect_label(v.b.status(), "while.C3");
}

TEST(InferWhile, C4BodyYieldsOneValuePerCarriedValue) {
  WhileCase w;
  std::vector<ValueId> p = w.b.begin_region({f32({2}), i64({})});
  Region body = w.b.end_region({p[0]});
  w.b.while_({w.x, w.zero}, w.cond({f32({2}), i64({})}), std::move(body));
  expect_label(w.b.status(), "while.C4");
}

TEST(InferWhile, C5InitialValuesFitParameters) {
  WhileCase w;
  w.b.while_({w.x, w.zero}, w.cond({f32({3}), i64({})}), w.body({f32({3}), i64({})}));
  expect_label(w.b.status(), "while.C5");
  WhileCase v;  // dtype: f32 initial value, f64 parameters
  const Type f64_2 = Type::tensor(DType::F64, static_shape({2}));
  v.b.while_({v.x, v.zero}, v.cond({f64_2, i64({})}), v.body({f64_2, i64({})}));
  expect_label(v.b.status(), "while.C5");
  WhileCase u;  // only the cond parameter is wrong
  u.b.while_({u.x, u.zero}, u.cond({f32({5}), i64({})}), u.body({f32({2}), i64({})}));
  expect_label(u.b.status(), "while.C5");
}

TEST(InferWhile, C6BodyResultsFitParameters) {
  WhileCase w;
  // The body yields concat(p0, p0): f32[4] for a parameter declared f32[2].
  std::vector<ValueId> p = w.b.begin_region({f32({2}), i64({})});
  Region body = w.b.end_region({w.b.concat({p[0], p[0]}, 0), p[1]});
  w.b.while_({w.x, w.zero}, w.cond({f32({2}), i64({})}), std::move(body));
  expect_label(w.b.status(), "while.C6");
}

TEST(InferWhile, CarriedShapeMayChange) {
  // x grows by concat each iteration: parameters declared f32[?]; the result is f32[?].
  WhileCase w;
  Type grow = Type::tensor(DType::F32, {Dim::symbolic()});
  std::vector<ValueId> p = w.b.begin_region({grow, i64({})});
  ValueId one = w.b.scalar_int(DType::I64, 1);
  Region body = w.b.end_region({w.b.concat({p[0], w.x}, 0), w.b.binary(BinaryKind::Add, p[1], one)});
  std::vector<ValueId> r = w.b.while_({w.x, w.zero}, w.cond({grow, i64({})}), std::move(body));
  ASSERT_TRUE(w.b.ok()) << w.b.status().to_string();
  EXPECT_EQ(w.b.type_of(r[0]), grow);
  EXPECT_EQ(w.b.type_of(r[1]), i64({}));
  w.b.output(r[0], "y");
  EXPECT_TRUE(verify(w.g).is_ok()) << verify(w.g).to_string();
}

TEST(InferWhile, ZeroCarriedValuesAreValid) {
  Graph g;
  Builder b(g);
  ValueId p = b.input(boolean(), "p");
  b.begin_region({});
  Region cond = b.end_region({p});
  b.begin_region({});
  Region body = b.end_region({});
  std::vector<ValueId> r = b.while_({}, std::move(cond), std::move(body));
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_TRUE(r.empty());
  EXPECT_TRUE(verify(g).is_ok()) << verify(g).to_string();
}

TEST(VerifyWhile, CondValuesAreNotVisibleInBody) {
  WhileCase w;
  std::vector<ValueId> r =
      w.b.while_({w.x, w.zero}, w.cond({f32({2}), i64({})}), w.body({f32({2}), i64({})}));
  w.b.output(r[0], "y");
  ASSERT_TRUE(w.b.ok());
  Node& loop = w.g.body.nodes.back();
  ASSERT_EQ(loop.op, Op::While);
  // The body yields the cond region's first parameter: out of scope there.
  loop.regions[1].results[0] = loop.regions[0].params[0];
  expect_label(verify(w.g), "graph.V8");
}

TEST(VerifyWhile, C2CheckedByVerifier) {
  WhileCase w;
  std::vector<ValueId> r =
      w.b.while_({w.x, w.zero}, w.cond({f32({2}), i64({})}), w.body({f32({2}), i64({})}));
  w.b.output(r[0], "y");
  ASSERT_TRUE(w.b.ok());
  Node& loop = w.g.body.nodes.back();
  loop.regions[1].params.push_back(w.g.add_value(i64({})));
  expect_label(verify(w.g), "while.C2");
}

// The same for a loop with constants, nested regions and values read from enclosing scopes;
// mutations reach inside regions and into the constant table.
TEST(VerifyWhile, NeverCrashesOnCorruptedLoops) {
  std::mt19937 rng(99);
  auto pick = [&](size_t n) { return static_cast<uint32_t>(rng() % n); };
  int refused = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    WhileCase w;
    std::vector<ValueId> r =
        w.b.while_({w.x, w.zero}, w.cond({f32({2}), i64({})}), w.body({f32({2}), i64({})}));
    w.b.output(r[0], "y");
    ASSERT_TRUE(w.b.ok());
    Graph& g = w.g;
    std::vector<Node*> nodes;
    std::vector<Region*> regions;
    for (Node& n : g.body.nodes) {
      nodes.push_back(&n);
      for (Region& reg : n.regions) {
        regions.push_back(&reg);
        for (Node& m : reg.nodes) nodes.push_back(&m);
      }
    }
    const uint32_t nv = static_cast<uint32_t>(g.values.size()) + 3;
    for (int k = 0; k < 2; ++k) {
      Node& n = *nodes[pick(nodes.size())];
      Region& reg = *regions[pick(regions.size())];
      ConstantData& c = g.constants[pick(g.constants.size())];
      switch (pick(12)) {
        case 0:
          if (!n.inputs.empty()) n.inputs[pick(n.inputs.size())] = pick(nv);
          break;
        case 1:
          if (!n.outputs.empty()) n.outputs[pick(n.outputs.size())] = pick(nv);
          break;
        case 2:
          if (!reg.params.empty()) reg.params[pick(reg.params.size())] = pick(nv);
          break;
        case 3:
          if (!reg.results.empty()) reg.results[pick(reg.results.size())] = pick(nv);
          break;
        case 4: reg.params.push_back(pick(nv)); break;
        case 5:
          if (!reg.results.empty()) reg.results.pop_back();
          break;
        case 6: std::swap(reg.nodes, regions[pick(regions.size())]->nodes); break;
        case 7: c.size = std::min<uint64_t>(c.size, pick(20)); break;  // the bytes must exist
        case 8:
          c.type = Type::tensor(static_cast<DType>(pick(kNumDTypes)), {Dim(int64_t(pick(4)) - 1)});
          break;
        case 9: n.attrs = {Attr{"value", ConstRef{pick(4)}}}; break;
        case 10: n.op = static_cast<Op>(pick(kNumOps)); break;
        case 11: g.values[pick(g.values.size())].type = Type::sequence(f32({int64_t(pick(3)) - 1})); break;
      }
    }
    if (!verify(g).is_ok()) ++refused;
  }
  EXPECT_GT(refused, 1000);
}

// The Example of spec/ops/<page>, parsed (ir/text.h) and verified; it must use `op`.
Status verify_spec_example(const std::string& page, Op op) {
  std::ifstream in(std::string(PLUMB_SOURCE_DIR) + "/spec/ops/" + page);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const size_t begin = text.find("```plumb\n");
  if (begin == std::string::npos) return internal_error("no plumb example in " + page);
  const size_t end = text.find("\n```", begin + 9);
  Expected<Graph> g = parse_graph(text.substr(begin + 9, end - begin - 9));
  if (!g) return g.status();
  bool uses_op = false;
  for (const Node& n : g->body.nodes) uses_op |= n.op == op;
  if (!uses_op) return internal_error("the example of " + page + " does not use the op");
  return verify(*g);
}

TEST(VerifyIf, SpecExampleVerifies) {
  Status s = verify_spec_example("if.md", Op::If);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
}

TEST(VerifyWhile, SpecExampleVerifies) {
  Status s = verify_spec_example("while.md", Op::While);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
}

}  // namespace
}  // namespace plumb::ir
