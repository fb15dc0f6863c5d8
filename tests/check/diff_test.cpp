// check/diff_match.h, check/diff_weights.h and check/diff.h: which core nodes pair, and how the
// differences between two graphs are classified and ordered.
#include "check/diff.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "check_test_util.h"

namespace plumb::check {
namespace {

using testing::graph_of;

// x -> exp (A) -> mul by w (B) -> add x (C)
constexpr const char* kBase = R"(plumb 1
func @main(%x: f32[2,3]) -> (f32[2,3]) {
  %t = unary %x {kind = exp} : f32[2,3] loc("A", Exp, 13)
  %w = constant {value = dense<f32[2,3]>[1.5, -2.25, 0.125, 3.0, 0.5, -1.0]} : f32[2,3] loc("B", Mul, 13)
  %u = binary %t, %w {kind = mul} : f32[2,3] loc("B", Mul, 13)
  %y = binary %u, %x {kind = add} : f32[2,3] loc("C", Add, 13)
  return %y
}
)";

std::string with(const std::string& from, const std::string& to) {
  std::string s = kBase;
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

GraphDiff diff_of(const std::string& a, const std::string& b) {
  return diff_graphs(graph_of(a), graph_of(b));
}

std::string lines(const GraphDiff& d) {
  std::string s;
  for (const DiffFinding& f : d.findings) s += f.line() + "\n";
  return s;
}

TEST(DiffMatch, SameGraphIsEquivalent) {
  const GraphDiff d = diff_of(kBase, kBase);
  EXPECT_TRUE(d.equivalent()) << lines(d);
  for (int b : d.match.a_of_b) EXPECT_GE(b, 0);
}

TEST(DiffMatch, CommutedOperandsPair) {
  const GraphDiff d = diff_of(kBase, with("binary %u, %x {kind = add}", "binary %x, %u {kind = add}"));
  EXPECT_TRUE(d.equivalent()) << lines(d);
}

TEST(DiffMatch, NonCommutativeSwapIsAChange) {
  const std::string a = with("{kind = add}", "{kind = sub}");
  const std::string b = with("binary %u, %x {kind = add}", "binary %x, %u {kind = sub}");
  const GraphDiff d = diff_of(a, b);
  EXPECT_FALSE(d.equivalent());
}

TEST(DiffMatch, NamesAndOrderOfNodesDoNotMatter) {
  // Another exporter: other node and tensor names, the constant emitted first.
  const GraphDiff d = diff_of(kBase, R"(plumb 1
func @main(%x: f32[2,3]) -> (f32[2,3]) {
  %k = constant {value = dense<f32[2,3]>[1.5, -2.25, 0.125, 3.0, 0.5, -1.0]} : f32[2,3] loc("mul_1", Mul, 17)
  %e = unary %x {kind = exp} : f32[2,3] loc("exp_0", Exp, 17)
  %m = binary %e, %k {kind = mul} : f32[2,3] loc("mul_1", Mul, 17)
  %o = binary %m, %x {kind = add} : f32[2,3] loc("add_2", Add, 17)
  return %o
}
)");
  EXPECT_TRUE(d.equivalent()) << lines(d);
}

TEST(DiffMatch, DeadNodesAreNotCompared) {
  const GraphDiff d = diff_of(
      kBase,
      with("  return %y", "  %dead = unary %x {kind = neg} : f32[2,3] loc(\"D\", Neg, 13)\n  return %y"));
  EXPECT_TRUE(d.equivalent()) << lines(d);
}

TEST(DiffMatch, SharedConstantPairsWithBothCopies) {
  // A reads one constant twice, B holds two equal copies (and the other way round).
  const std::string shared = R"(plumb 1
func @main(%x: f32[2]) -> (f32[2]) {
  %w = constant {value = dense<f32[2]>[0.5, 2.0]} : f32[2] loc("M", Mul, 13)
  %u = binary %x, %w {kind = mul} : f32[2] loc("M", Mul, 13)
  %y = binary %u, %w {kind = add} : f32[2] loc("P", Add, 13)
  return %y
}
)";
  const std::string copies = R"(plumb 1
func @main(%x: f32[2]) -> (f32[2]) {
  %w = constant {value = dense<f32[2]>[0.5, 2.0]} : f32[2] loc("M", Mul, 13)
  %u = binary %x, %w {kind = mul} : f32[2] loc("M", Mul, 13)
  %v = constant {value = dense<f32[2]>[0.5, 2.0]} : f32[2] loc("P", Add, 13)
  %y = binary %u, %v {kind = add} : f32[2] loc("P", Add, 13)
  return %y
}
)";
  const GraphDiff d = diff_of(shared, copies);
  EXPECT_TRUE(d.equivalent()) << lines(d);
  const GraphDiff e = diff_of(copies, shared);
  EXPECT_TRUE(e.equivalent()) << lines(e);
}

TEST(DiffFindings, InsertedNodeIsAddedAndTheRestStillPairs) {
  // B computes exp into %t0 and an Abs node named like A's exp output: the walk finds its way
  // back through the ONNX tensor name "t", so only the Abs is reported.
  const GraphDiff d = diff_of(kBase, with("  %t = unary %x {kind = exp} : f32[2,3] loc(\"A\", Exp, 13)",
                                          "  %t0 = unary %x {kind = exp} : f32[2,3] loc(\"A\", Exp, 13)\n"
                                          "  %t = unary %t0 {kind = abs} : f32[2,3] loc(\"N\", Abs, 13)"));
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);
  EXPECT_EQ(d.findings[0].kind, FindingKind::structure);
  EXPECT_EQ(d.findings[0].line(), "changed node 'N' (Abs): only in B (added): 1 core node [unary abs]");
}

TEST(DiffFindings, RemovedNodeIsNamedFromA) {
  const GraphDiff d = diff_of(kBase, with("%u = binary %t, %w {kind = mul} : f32[2,3] loc(\"B\", Mul, 13)\n"
                                          "  %y = binary %u, %x {kind = add}",
                                          "%y = binary %t, %x {kind = add}"));
  // C now reads exp's output: it still pairs (the same ONNX node, reading around the removed one).
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);
  EXPECT_EQ(d.findings[0].line(), "changed node 'B' (Mul): only in A (removed): 1 core node [binary mul]");
}

TEST(DiffFindings, RewiredNodeReadsOtherInputs) {
  // C reads exp's output instead of the Mul's, the Mul still there (feeding the graph's output).
  const std::string a = R"(plumb 1
func @main(%x: f32[2]) -> (f32[2], f32[2]) {
  %t = unary %x {kind = exp} : f32[2] loc("A", Exp, 13)
  %u = binary %t, %x {kind = mul} : f32[2] loc("B", Mul, 13)
  %y = binary %u, %x {kind = add} : f32[2] loc("C", Add, 13)
  return %y, %u
}
)";
  std::string b = a;
  b.replace(b.find("binary %u, %x"), 13, "binary %t, %x");
  const GraphDiff d = diff_of(a, b);
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);
  EXPECT_EQ(d.findings[0].line(), "changed node 'C' (Add): reads other inputs: 1 core node [binary add]");
}

TEST(DiffFindings, AttributeChangeInCoreTerms) {
  const GraphDiff d = diff_of(kBase, with("{kind = mul}", "{kind = div}"));
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);
  EXPECT_EQ(d.findings[0].kind, FindingKind::attribute);
  EXPECT_EQ(d.findings[0].line(), "changed node 'B' (Mul): core binary div kind mul -> div");
}

TEST(DiffFindings, OpSwapOntoTheSameCoreOpIsStructure) {
  const GraphDiff d = diff_of(kBase, with("unary %x {kind = exp} : f32[2,3] loc(\"A\", Exp, 13)",
                                          "unary %x {kind = neg} : f32[2,3] loc(\"A\", Neg, 13)"));
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);
  EXPECT_EQ(d.findings[0].kind, FindingKind::structure);
  EXPECT_EQ(d.findings[0].op_type, "Exp -> Neg");
}

TEST(DiffFindings, AttributeDescriberSpeaksOnnx) {
  const AttrDescriber onnx = [](const ir::Provenance& a, const ir::Provenance& b) {
    return a.node_name == "B" && b.node_name == "B" ? std::string("pads [1,1] -> [0,2]") : std::string();
  };
  const GraphDiff d = diff_graphs(graph_of(kBase), graph_of(with("{kind = mul}", "{kind = div}")), onnx);
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);
  EXPECT_EQ(d.findings[0].line(), "changed node 'B' (Mul): pads [1,1] -> [0,2]");
}

TEST(DiffFindings, ScaledSliceIsARealChange) {
  const GraphDiff d = diff_of(kBase, with("[1.5, -2.25, 0.125,", "[1.575, -2.3625, 0.13125,"));
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);
  const DiffFinding& f = d.findings[0];
  EXPECT_EQ(f.kind, FindingKind::weight);
  EXPECT_EQ(f.node, "B");
  EXPECT_NE(
      f.what.find("weight 'w' f32[2,3]: real change: 3 of 6 elements differ (slice 0 of 2 along axis 0)"),
      std::string::npos)
      << f.what;
  EXPECT_NE(f.what.find("scaled by 1.05"), std::string::npos) << f.what;
}

TEST(DiffFindings, RoundedToF16IsPrecisionLoss) {
  // 0.1 and 0.3 as f32, and as f16 widened back to f32 (0.0999755859375, 0.300048828125).
  const std::string a = with("[1.5, -2.25, 0.125, 3.0, 0.5, -1.0]", "[0.1, 0.3, 0.125, 3.0, 0.5, -1.0]");
  const std::string b =
      with("[1.5, -2.25, 0.125, 3.0, 0.5, -1.0]", "[0.0999755859375, 0.300048828125, 0.125, 3.0, 0.5, -1.0]");
  const GraphDiff d = diff_of(a, b);
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);
  EXPECT_EQ(d.findings[0].kind, FindingKind::precision);
  EXPECT_NE(d.findings[0].what.find("precision loss (equal after rounding to f16): 2 of 6 elements differ"),
            std::string::npos)
      << d.findings[0].what;
}

TEST(DiffFindings, MostSignificantFirst) {
  std::string b = with("[1.5, -2.25,", "[1.6, -2.25,");   // weight
  b.replace(b.find("{kind = add}"), 12, "{kind = sub}");  // attribute
  b.replace(b.find("  return %y"), 11,
            "  %z = unary %y {kind = neg} : f32[2,3] loc(\"N\", Neg, 13)\n  return %z");
  const GraphDiff d = diff_of(kBase, b);
  ASSERT_EQ(d.findings.size(), 3u) << lines(d);
  EXPECT_EQ(d.findings[0].kind, FindingKind::structure);
  EXPECT_EQ(d.findings[1].kind, FindingKind::attribute);
  EXPECT_EQ(d.findings[2].kind, FindingKind::weight);
}

constexpr const char* kIf = R"(plumb 1
func @main(%x: f32[2], %c: bool[]) -> (f32[2]) {
  %e = unary %x {kind = abs} : f32[2] loc("P", Abs, 13)
  %r = if %c {
    then() {
      %s = unary %e {kind = neg} : f32[2] loc("L", If, 13)
      yield %s
    }
    else() {
      %q = unary %e {kind = sqrt} : f32[2] loc("L", If, 13)
      yield %q
    }
  } : f32[2] loc("L", If, 13)
  return %r
}
)";

TEST(DiffMatch, RegionsAreComparedNodeForNode) {
  EXPECT_TRUE(diff_of(kIf, kIf).equivalent());
  std::string b = kIf;
  b.replace(b.find("{kind = neg}"), 12, "{kind = abs}");
  const GraphDiff d = diff_of(kIf, b);
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);
  EXPECT_EQ(d.findings[0].kind, FindingKind::structure);
  EXPECT_EQ(d.findings[0].node, "L");
  EXPECT_NE(d.findings[0].what.find("its subgraph differs"), std::string::npos) << d.findings[0].what;
  EXPECT_FALSE(d.match.same_b[1]);
}

ir::ConstantData f32_constant(const std::vector<float>& v) {
  return ir::ConstantData::copy_of(
      ir::Type::tensor(ir::DType::F32, ir::static_shape({static_cast<int64_t>(v.size())})), v.data(),
      v.size() * sizeof(float));
}

TEST(DiffWeights, RoundedToBF16IsPrecisionLossButNotF16) {
  // 1/3 in f32, and 1/3 rounded to bf16 (0.333984375): not what f16 rounding gives (0.33325195).
  const auto d = diff_weights(f32_constant({1.0f / 3, 2.0f}), f32_constant({0.333984375f, 2.0f}));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->loss, "bf16");
  EXPECT_EQ(d->differ, 1);
}

TEST(DiffWeights, OverflowIsNoRounding) {
  // Both overflow f16 (its largest finite value is 65504): not "equal in f16"; both round to 70144
  // in bf16.
  const auto d = diff_weights(f32_constant({70000.0f}), f32_constant({70001.0f}));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->loss, "bf16");
  const auto e = diff_weights(f32_constant({70000.0f}), f32_constant({90000.0f}));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->loss, "");
}

TEST(DiffWeights, MaxDifferences) {
  const auto d = diff_weights(f32_constant({1.0f, 2.0f, 0.0f}), f32_constant({1.5f, 2.0f, 0.25f}));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->loss, "");
  EXPECT_EQ(d->differ, 2);
  EXPECT_DOUBLE_EQ(d->max_abs, 0.5);
  EXPECT_TRUE(std::isinf(d->max_rel));  // 0 -> 0.25
  EXPECT_EQ(d->scale, 0);
}

}  // namespace
}  // namespace plumb::check
