// spec/verifier.md (graph.Vn), the shared structure labels, and spec/ops/if.md, spec/ops/while.md.
// Well-formed graphs come from the Builder; malformed ones are written by hand.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "ir/builder.h"
#include "ir/constant_values.h"
#include "ir/infer.h"
#include "ir/text.h"
#include "ir/verify.h"

namespace plumb::ir {
namespace {

Type f32(std::vector<int64_t> dims) { return Type::tensor(DType::F32, static_shape(dims)); }
Type i64(std::vector<int64_t> dims) { return Type::tensor(DType::I64, static_shape(dims)); }
Type boolean() { return Type::tensor(DType::Bool, {}); }

Node make_node(Op op, std::vector<ValueId> in, std::vector<ValueId> out, std::vector<Attr> attrs = {},
               std::vector<Region> regions = {}) {
  Node n;
  n.op = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.attrs = std::move(attrs);
  n.regions = std::move(regions);
  return n;
}
Node neg(ValueId in, ValueId out) {
  return make_node(Op::Unary, {in}, {out}, {Attr{"kind", EnumValue{UnaryKind::Neg}}});
}
Region region(std::vector<ValueId> params, std::vector<Node> nodes, std::vector<ValueId> results) {
  Region r;
  r.params = std::move(params);
  r.nodes = std::move(nodes);
  r.results = std::move(results);
  return r;
}

// A graph with one input %0 : f32[2] named "x" and the given output names.
Graph graph_with_input(Type t = f32({2})) {
  Graph g;
  g.body.params.push_back(g.add_value(std::move(t)));
  g.input_names.push_back("x");
  return g;
}
void set_outputs(Graph& g, std::vector<ValueId> outs) {
  g.body.results = outs;
  g.output_names.assign(outs.size(), "y");
}

void expect_label(const Status& s, const std::string& label) {
  EXPECT_FALSE(s.is_ok()) << "expected " << label;
  EXPECT_EQ(s.label(), label) << s.to_string();
  EXPECT_EQ(s.code(), ErrorCode::kInvalidModel) << s.to_string();
}

// x -> neg -> neg -> output: the smallest valid graph.
Graph two_negs() {
  Graph g = graph_with_input();
  ValueId a = g.add_value(f32({2}));
  ValueId b = g.add_value(f32({2}));
  g.body.nodes.push_back(neg(0, a));
  g.body.nodes.push_back(neg(a, b));
  set_outputs(g, {b});
  return g;
}

// ---- graph.Vn ------------------------------------------------------------------------------------

TEST(VerifyGraph, ValidGraphPasses) {
  Graph g = two_negs();
  EXPECT_TRUE(verify(g).is_ok()) << verify(g).to_string();
}

TEST(VerifyGraph, V1CoreVersionNewerIsRefused) {
  Graph g = two_negs();
  g.core_version = 3;
  Status s = verify(g);
  expect_label(s, "graph.V1");
  EXPECT_EQ(s.message(), "core version 3 is newer than this runtime's 1");
  EXPECT_EQ(s.place(), "header");
  g.core_version = kCoreVersion;
  EXPECT_TRUE(verify(g).is_ok());
}

TEST(VerifyGraph, V2NegativeDim) {
  Graph g = two_negs();
  g.values[1].type.shape[0] = Dim(-5);
  expect_label(verify(g), "graph.V2");
}

TEST(VerifyGraph, V2RankOverLimit) {
  Graph g = two_negs();
  g.values[2].type = Type::tensor(DType::F32, Shape(kMaxRank + 1, Dim(1)));
  expect_label(verify(g), "graph.V2");
  g.values[2].type = Type::tensor(DType::F32, Shape(kMaxRank, Dim(1)));
  // A rank-64 type is fine by V2; the unary then disagrees with its declared result (V12).
  expect_label(verify(g), "graph.V12");
}

TEST(VerifyGraph, V2HugeDimsRefusedWithoutOverflow) {
  Graph g = two_negs();
  const int64_t big = int64_t{1} << 62;
  g.values[1].type = Type::tensor(DType::F32, static_shape({big, big, big}));  // product overflows int64
  Status s = verify(g);
  expect_label(s, "graph.V2");
  g.values[1].type = Type::tensor(DType::F32, static_shape({int64_t{1} << 20, int64_t{1} << 21}));  // 2^41
  expect_label(verify(g), "graph.V2");
  // A symbolic dim does not count, the static ones still do.
  g.values[1].type = Type::tensor(DType::F32, {Dim::symbolic("N"), Dim(int64_t{1} << 41)});
  expect_label(verify(g), "graph.V2");
}

TEST(VerifyGraph, V2ContainerWithoutElement) {
  Graph g = two_negs();
  Type t;
  t.kind = TypeKind::Sequence;
  g.add_value(t);
  expect_label(verify(g), "graph.V2");
}

TEST(VerifyGraph, V2TypeNestedTooDeep) {
  Graph g = two_negs();
  Type t = f32({});
  for (int i = 0; i < 40; ++i) t = Type::sequence(t);
  g.add_value(t);
  expect_label(verify(g), "graph.V2");
}

TEST(VerifyGraph, V2BadDTypeAndKindCodes) {
  Graph g = two_negs();
  g.values[2].type.dtype = static_cast<DType>(200);
  expect_label(verify(g), "graph.V2");
  g = two_negs();
  g.values[2].type.kind = static_cast<TypeKind>(9);
  expect_label(verify(g), "graph.V2");
}

TEST(VerifyGraph, V2StaticDimWithName) {
  Graph g = two_negs();
  g.values[1].type.shape[0].sym = "N";
  expect_label(verify(g), "graph.V2");
}

TEST(VerifyGraph, V3NameCountsMatchSignature) {
  Graph g = two_negs();
  g.input_names.push_back("extra");
  expect_label(verify(g), "graph.V3");
  g = two_negs();
  g.output_names.clear();
  expect_label(verify(g), "graph.V3");
}

ConstantData i32_const(std::vector<int64_t> dims, std::vector<uint8_t> bytes) {
  return ConstantData::owned(Type::tensor(DType::I32, static_shape(dims)), std::move(bytes));
}

TEST(VerifyGraph, V4ConstantByteSize) {
  Graph g = two_negs();
  g.constants.push_back(i32_const({3}, std::vector<uint8_t>(12)));
  EXPECT_TRUE(verify(g).is_ok());
  g.constants.push_back(i32_const({3}, std::vector<uint8_t>(11)));
  Status s = verify(g);
  expect_label(s, "graph.V4");
  EXPECT_EQ(s.place(), "constant #1");
}

TEST(VerifyGraph, V4ConstantTypeMustBeStaticTensor) {
  Graph g = two_negs();
  g.constants.push_back(ConstantData::owned(Type::tensor(DType::I32, {Dim::symbolic()}), {}));
  expect_label(verify(g), "graph.V4");
  g = two_negs();
  g.constants.push_back(ConstantData::owned(Type::sequence(i64({})), {}));
  expect_label(verify(g), "graph.V4");
}

TEST(VerifyGraph, V4PackedConstantRoundsUp) {
  Graph g = two_negs();
  g.constants.push_back(
      ConstantData::owned(Type::tensor(DType::I4, static_shape({3})), std::vector<uint8_t>(2)));
  EXPECT_TRUE(verify(g).is_ok());
  g.constants.push_back(
      ConstantData::owned(Type::tensor(DType::I4, static_shape({3})), std::vector<uint8_t>(3)));
  expect_label(verify(g), "graph.V4");
}

std::vector<uint8_t> strings(const std::vector<std::string>& items) {
  std::vector<uint8_t> out;
  for (const std::string& s : items) {
    const uint32_t n = static_cast<uint32_t>(s.size());
    for (int b = 0; b < 4; ++b) out.push_back(static_cast<uint8_t>(n >> (8 * b)));
    out.insert(out.end(), s.begin(), s.end());
  }
  return out;
}

TEST(VerifyGraph, V4StringConstantEncoding) {
  const Type t = Type::tensor(DType::String, static_shape({2}));
  Graph g = two_negs();
  g.constants.push_back(ConstantData::owned(t, strings({"ab", ""})));
  EXPECT_TRUE(verify(g).is_ok()) << verify(g).to_string();

  std::vector<uint8_t> trailing = strings({"ab", ""});
  trailing.push_back(0);
  g.constants[0] = ConstantData::owned(t, trailing);
  expect_label(verify(g), "graph.V4");

  std::vector<uint8_t> short_data = strings({"ab", "cd"});
  short_data.pop_back();
  g.constants[0] = ConstantData::owned(t, short_data);
  expect_label(verify(g), "graph.V4");

  // A length prefix claiming 4 GiB in a 6-byte buffer: refused, nothing read past the end.
  g.constants[0] = ConstantData::owned(t, {0xff, 0xff, 0xff, 0xff, 'a', 'b'});
  expect_label(verify(g), "graph.V4");

  // Many elements claimed, few bytes present: refused without walking 2^30 elements.
  g.constants[0] =
      ConstantData::owned(Type::tensor(DType::String, static_shape({int64_t{1} << 30})), strings({"a"}));
  expect_label(verify(g), "graph.V4");
}

TEST(VerifyGraph, V4ConstantWithoutData) {
  Graph g = two_negs();
  ConstantData c;
  c.type = i64({2});
  c.size = 16;  // claims bytes but has no pointer
  g.constants.push_back(c);
  expect_label(verify(g), "graph.V4");
}

TEST(VerifyGraph, V5OperandOutOfRange) {
  Graph g = two_negs();
  g.body.nodes[1].inputs[0] = 99;
  Status s = verify(g);
  expect_label(s, "graph.V5");
  EXPECT_EQ(s.place(), "node #1 unary");
  g.body.nodes[1].inputs[0] = kNoValue;
  expect_label(verify(g), "graph.V5");
}

TEST(VerifyGraph, V5ResultParamAndOutputOutOfRange) {
  Graph g = two_negs();
  g.body.nodes[0].outputs[0] = 7;
  expect_label(verify(g), "graph.V5");
  g = two_negs();
  g.body.params[0] = 7;
  expect_label(verify(g), "graph.V5");
  g = two_negs();
  g.body.results[0] = 7;
  expect_label(verify(g), "graph.V5");
}

TEST(VerifyGraph, V6DoubleDefinition) {
  Graph g = two_negs();
  g.body.nodes[1].outputs[0] = 1;  // %1 is already the first neg's result
  Status s = verify(g);
  expect_label(s, "graph.V6");
  EXPECT_EQ(s.place(), "node #1 unary");
  // A node result that is a graph input.
  g = two_negs();
  g.body.nodes[0].outputs[0] = 0;
  expect_label(verify(g), "graph.V6");
  // The same value as two parameters.
  g = two_negs();
  g.body.params.push_back(0);
  g.input_names.push_back("x2");
  expect_label(verify(g), "graph.V6");
}

TEST(VerifyGraph, V7UseBeforeDefinition) {
  Graph g = two_negs();
  std::swap(g.body.nodes[0], g.body.nodes[1]);  // the second neg now reads %1 before it exists
  expect_label(verify(g), "graph.V7");
  // An output nothing defines.
  g = two_negs();
  ValueId orphan = g.add_value(f32({2}));
  g.body.results.push_back(orphan);
  g.output_names.push_back("z");
  expect_label(verify(g), "graph.V7");
  // A node reading its own result.
  g = two_negs();
  g.body.nodes[0].inputs[0] = 1;
  expect_label(verify(g), "graph.V7");
}

// %0 x: f32[2], %1 p: bool[]; %4 = if %1 { then () { %2 = neg %0; yield %2 } else () { %3 = neg %0; yield %3
// } }
Graph if_graph() {
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

TEST(VerifyGraph, V8ValueEscapesItsRegion) {
  Graph g = if_graph();
  EXPECT_TRUE(verify(g).is_ok()) << verify(g).to_string();
  // Using the then-branch's %2 after the if.
  ValueId z = g.add_value(f32({2}));
  g.body.nodes.push_back(neg(2, z));
  Status s = verify(g);
  expect_label(s, "graph.V8");
  EXPECT_EQ(s.place(), "node #3 unary");  // pre-order: if #0, then-neg #1, else-neg #2
}

TEST(VerifyGraph, V8SiblingRegionCannotSeeValue) {
  Graph g = if_graph();
  g.body.nodes[0].regions[1].results[0] = 2;  // else yields then's %2
  Status s = verify(g);
  expect_label(s, "graph.V8");
  EXPECT_EQ(s.place(), "node #0 if: region 1");
}

TEST(VerifyGraph, V9UnknownOpCode) {
  Graph g = two_negs();
  g.body.nodes[1].op = static_cast<Op>(kNumOps + 3);
  Status s = verify(g);
  expect_label(s, "graph.V9");
  EXPECT_EQ(s.place(), "node #1");
}

TEST(VerifyGraph, V10TypeAttributeWellFormed) {
  Graph g = two_negs();
  ValueId seq = g.add_value(Type::sequence(f32({2})));
  Type bad = f32({-3});
  g.body.nodes.push_back(make_node(
      Op::Sequence, {}, {seq},
      {Attr{"kind", EnumValue{SequenceKind::Empty}}, Attr{"axis", int64_t{0}}, Attr{"elem", TypeAttr{bad}}}));
  expect_label(verify(g), "graph.V10");
}

// `depth` ifs nested in then-branches; the innermost yields x.
Graph nested_ifs(int depth) {
  Graph g = graph_with_input();
  ValueId p = g.add_value(boolean());
  g.body.params.push_back(p);
  g.input_names.push_back("p");
  ValueId inner = 0;
  Node node;
  for (int d = 0; d < depth; ++d) {
    ValueId r = g.add_value(f32({2}));
    std::vector<Region> regions;
    Region then_r = region({}, {}, {inner});
    if (d > 0) then_r.nodes.push_back(std::move(node));  // moved: building stays linear
    regions.push_back(std::move(then_r));
    regions.push_back(region({}, {}, {0}));
    node = make_node(Op::If, {p}, {r}, {}, std::move(regions));
    inner = r;
  }
  g.body.nodes.push_back(std::move(node));
  set_outputs(g, {inner});
  return g;
}

TEST(VerifyGraph, V11RegionNestingBounded) {
  EXPECT_TRUE(verify(nested_ifs(64)).is_ok()) << verify(nested_ifs(64)).to_string();
  expect_label(verify(nested_ifs(65)), "graph.V11");
  // Far deeper than the limit: refused, no stack exhaustion (the walk stops at the limit).
  expect_label(verify(nested_ifs(5000)), "graph.V11");
}

TEST(VerifyGraph, V12DeclaredTypeMustAgree) {
  Graph g = two_negs();
  g.values[2].type = f32({3});  // neg of f32[2] declared f32[3]
  Status s = verify(g);
  expect_label(s, "graph.V12");
  EXPECT_EQ(s.place(), "node #1 unary");
  g.values[2].type = Type::tensor(DType::F64, static_shape({2}));
  expect_label(verify(g), "graph.V12");
  g.values[2].type = f32({2, 1});
  expect_label(verify(g), "graph.V12");
}

TEST(VerifyGraph, V12SymbolicDimsAccepted) {
  // Declared symbolic, inferred static: accepted.
  Graph g = two_negs();
  g.values[2].type = Type::tensor(DType::F32, {Dim::symbolic("N")});
  EXPECT_TRUE(verify(g).is_ok()) << verify(g).to_string();
  // Inferred symbolic (input f32[?]), declared static: accepted; the runtime checks it.
  g = two_negs();
  g.values[0].type = Type::tensor(DType::F32, {Dim::symbolic()});
  EXPECT_TRUE(verify(g).is_ok()) << verify(g).to_string();
}

TEST(VerifyGraph, StructureLabels) {
  Graph g = two_negs();
  g.body.nodes[0].inputs.push_back(0);
  expect_label(verify(g), "unary.arity");
  g = two_negs();
  g.body.nodes[0].attrs.clear();
  expect_label(verify(g), "unary.attrs");
  g = two_negs();
  g.body.nodes[0].attrs[0].value = int64_t{3};
  expect_label(verify(g), "unary.attrs");
  g = two_negs();
  g.body.nodes[0].regions.emplace_back();
  expect_label(verify(g), "unary.arity");
}

TEST(VerifyGraph, OpConstraintsComeFromInference) {
  Graph g = two_negs();
  g.values[0].type = Type::tensor(DType::U8, static_shape({2}));
  g.values[1].type = g.values[0].type;
  g.values[2].type = g.values[0].type;
  Status s = verify(g);
  expect_label(s, "unary.C2");  // neg is not defined on unsigned integers
  EXPECT_EQ(s.place(), "node #0 unary");
}

TEST(VerifyGraph, PlaceCarriesProvenance) {
  Graph g = two_negs();
  g.body.nodes[1].prov = Provenance{"Neg_7", "Neg", 13, ""};
  g.values[2].type = f32({5});
  EXPECT_EQ(verify(g).place(), "node #1 unary [from 'Neg_7' (Neg-13)]");
}

TEST(VerifyGraph, ConstantValuesReachInference) {
  // reshape(x: f32[6], constant [3, 2]) is inferred f32[3,2] only when the constant's values reach
  // inference; a declared f32[2,3] must then be refused.
  Graph g = graph_with_input(f32({6}));
  std::vector<uint8_t> bytes(16, 0);
  bytes[0] = 3;
  bytes[8] = 2;
  g.constants.push_back(ConstantData::owned(i64({2}), bytes));
  ValueId shape = g.add_value(i64({2}));
  ValueId out = g.add_value(f32({3, 2}));
  g.body.nodes.push_back(make_node(Op::Constant, {}, {shape}, {Attr{"value", ConstRef{0}}}));
  g.body.nodes.push_back(make_node(Op::Reshape, {0, shape}, {out}));
  set_outputs(g, {out});
  EXPECT_TRUE(verify(g).is_ok()) << verify(g).to_string();
  g.values[out].type = f32({2, 3});
  expect_label(verify(g), "graph.V12");
}

TEST(VerifyGraph, ConstantIndexOutOfRangeIsConstantC1) {
  Graph g = two_negs();
  ValueId c = g.add_value(i64({2}));
  g.body.nodes.push_back(make_node(Op::Constant, {}, {c}, {Attr{"value", ConstRef{5}}}));
  expect_label(verify(g), "constant.C1");
}

// Random corruption of valid graphs: the verifier must return (ok or an error), never crash.
TEST(VerifyGraph, NeverCrashesOnCorruptedGraphs) {
  std::mt19937 rng(1234);
  auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  int refused = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    Graph g = (iter % 2) ? if_graph() : two_negs();
    std::vector<Node*> nodes;
    for (Node& n : g.body.nodes) {
      nodes.push_back(&n);
      for (Region& r : n.regions)
        for (Node& m : r.nodes) nodes.push_back(&m);
    }
    for (int k = 0; k < 3; ++k) {
      Node& n = *nodes[pick(nodes.size())];
      switch (pick(10)) {
        case 0:
          if (!n.inputs.empty()) n.inputs[pick(n.inputs.size())] = pick(12);
          break;
        case 1:
          if (!n.outputs.empty()) n.outputs[pick(n.outputs.size())] = pick(12);
          break;
        case 2: n.op = static_cast<Op>(pick(kNumOps + 4)); break;
        case 3: n.inputs.push_back(pick(6)); break;
        case 4: n.attrs.clear(); break;
        case 5: n.attrs.push_back(Attr{"value", ConstRef{pick(3)}}); break;
        case 6:
          if (!n.regions.empty()) n.regions[pick(n.regions.size())].results.push_back(pick(8));
          break;
        case 7:
          if (!n.regions.empty()) n.regions[pick(n.regions.size())].params.push_back(pick(8));
          break;
        case 8:
          g.values[pick(g.values.size())].type = Type::tensor(DType::F32, {Dim(int64_t(pick(5)) - 2)});
          break;
        case 9: g.values[pick(g.values.size())].type.dtype = static_cast<DType>(pick(kNumDTypes + 3)); break;
      }
    }
    if (!verify(g).is_ok()) ++refused;
  }
  EXPECT_GT(refused, 1000);
}

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

// ---- constant decoding (ir/constant_values.h) ---------------------------------------------------------

TEST(ConstantValues, DecodesLittleEndianAndPackedTypes) {
  auto decode = [](DType dt, std::vector<int64_t> dims, std::vector<uint8_t> bytes) {
    return constant_int_values(ConstantData::owned(Type::tensor(dt, static_shape(dims)), std::move(bytes)));
  };
  EXPECT_EQ(decode(DType::I16, {2}, {0x34, 0x12, 0xfe, 0xff}), (std::vector<int64_t>{0x1234, -2}));
  EXPECT_EQ(decode(DType::U16, {1}, {0xfe, 0xff}), (std::vector<int64_t>{65534}));
  // i4 [1, 2, 3, -1]: low nibble first.
  EXPECT_EQ(decode(DType::I4, {4}, {0x21, 0xf3}), (std::vector<int64_t>{1, 2, 3, -1}));
  EXPECT_EQ(decode(DType::U4, {3}, {0x21, 0xf3}), (std::vector<int64_t>{1, 2, 3}));
  // i2 [1, -2, -1, 0] = 0b00'11'10'01
  EXPECT_EQ(decode(DType::I2, {4}, {0x39}), (std::vector<int64_t>{1, -2, -1, 0}));
  EXPECT_EQ(decode(DType::I64, {}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}),
            (std::vector<int64_t>{-1}));
  // Not integer, wrong size, too big for int64, too many: unknown.
  EXPECT_FALSE(decode(DType::F32, {1}, {0, 0, 0, 0}).has_value());
  EXPECT_FALSE(decode(DType::I32, {2}, {0, 0, 0, 0}).has_value());
  EXPECT_FALSE(decode(DType::U64, {}, {0, 0, 0, 0, 0, 0, 0, 0x80}).has_value());
  EXPECT_FALSE(
      decode(DType::I8, {kMaxKnownValues + 1}, std::vector<uint8_t>(kMaxKnownValues + 1)).has_value());
}

TEST(ConstantValues, EncodeRoundTrips) {
  Expected<std::vector<uint8_t>> b = encode_int_values(DType::I4, {1, -2, 7, -8, 3});
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(*b, (std::vector<uint8_t>{0xe1, 0x87, 0x03}));
  Expected<std::vector<uint8_t>> w = encode_int_values(DType::I8, {300});  // wraps to 44
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(*w, (std::vector<uint8_t>{44}));
  Expected<std::vector<uint8_t>> f = encode_float_values(DType::F32, {1.0, 1e300});
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(*f, (std::vector<uint8_t>{0, 0, 0x80, 0x3f, 0, 0, 0x80, 0x7f}));  // 1.0f, +inf
  EXPECT_FALSE(encode_int_values(DType::F32, {1}).has_value());
  EXPECT_FALSE(encode_float_values(DType::F16, {1}).has_value());
}

}  // namespace
}  // namespace plumb::ir
