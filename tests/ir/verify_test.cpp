// spec/verifier.md (graph.Vn) and the shared structure labels. Well-formed graphs come from the
// Builder or verify_helpers.h; malformed ones are written by hand.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "ir/builder.h"
#include "ir/constant_values.h"
#include "ir/infer.h"
#include "ir/verify.h"
#include "tests/ir/verify_helpers.h"

namespace plumb::ir {
namespace {

using namespace verify_testing;

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

}  // namespace
}  // namespace plumb::ir
