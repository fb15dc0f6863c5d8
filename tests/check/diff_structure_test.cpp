// check/diff_structure.h: spans of core nodes that correspond, reported as fused, split or the same
// computation by the ONNX nodes on each side; and check/diff_match.h's constants compared by value.
#include "check/diff_structure.h"

#include <gtest/gtest.h>

#include <string>

#include "check/onnx/diff_onnx.h"
#include "check_test_util.h"

namespace plumb::check {
namespace {

using testing::graph_of;

std::string lines(const GraphDiff& d) {
  std::string s;
  for (const DiffFinding& f : d.findings) s += f.line() + "\n";
  return s;
}

GraphDiff diff_of(const std::string& a, const std::string& b, bool fold = true) {
  return diff_graphs(graph_of(a), graph_of(b), nullptr, fold ? weight_folder() : ConstantFolder());
}

// x * w (a "Conv" C), times a per-channel factor s (a "BatchNormalization" N), then exp (R); and
// the same with s folded into w (w * s), the Conv writing the BatchNormalization's tensor %n.
constexpr const char* kUnfolded = R"(plumb 1
func @main(%x: f32[2]) -> (f32[2]) {
  %w = constant {value = dense<f32[2]>[1.5, -2.0]} : f32[2] loc("C", Conv, 13)
  %c = binary %x, %w {kind = mul} : f32[2] loc("C", Conv, 13)
  %s = constant {value = dense<f32[2]>[0.5, 4.0]} : f32[2] loc("N", BatchNormalization, 13)
  %n = binary %c, %s {kind = mul} : f32[2] loc("N", BatchNormalization, 13)
  %y = unary %n {kind = exp} : f32[2] loc("R", Exp, 13)
  return %y
}
)";
constexpr const char* kFolded = R"(plumb 1
func @main(%x: f32[2]) -> (f32[2]) {
  %w = constant {value = dense<f32[2]>[0.75, -8.0]} : f32[2] loc("C", Conv, 13)
  %n = binary %x, %w {kind = mul} : f32[2] loc("C", Conv, 13)
  %y = unary %n {kind = exp} : f32[2] loc("R", Exp, 13)
  return %y
}
)";

TEST(DiffStructure, FoldedNodeIsFusedWithTheWeightsItChanged) {
  const GraphDiff d = diff_of(kUnfolded, kFolded);
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);
  EXPECT_EQ(d.findings[0].kind, FindingKind::fused);
  EXPECT_EQ(d.findings[0].line(),
            "changed node 'C' (Conv): fused: A's Conv 'C' + BatchNormalization 'N' -> B's Conv 'C' "
            "(BatchNormalization 'N' folded into it), 2 core nodes [binary mul, binary mul] -> 1 core node "
            "[binary mul]; changed with it: weight 'w' f32[2] (real change, max rel diff 3)");
  EXPECT_FALSE(d.equivalent());
}

TEST(DiffStructure, TheOtherWayRoundIsSplit) {
  const GraphDiff d = diff_of(kFolded, kUnfolded);
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);
  EXPECT_EQ(d.findings[0].kind, FindingKind::split);
  EXPECT_EQ(d.findings[0].line().rfind("changed node 'C' (Conv): split: A's Conv 'C' -> B's Conv 'C' + "
                                       "BatchNormalization 'N' (BatchNormalization 'N' split out of it), ",
                                       0),
            0u)
      << lines(d);
}

TEST(DiffStructure, DroppedNodeNextToUnchangedWeightsIsRemoved) {
  // The BatchNormalization dropped, the Conv's weights kept: a removal, not a fold.
  std::string b = kUnfolded;
  b.replace(b.find("  %s = constant"), b.find("  %y = unary") - b.find("  %s = constant"), "");
  b.replace(b.find("unary %n"), 8, "unary %c");
  const GraphDiff d = diff_of(kUnfolded, b);
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);
  EXPECT_EQ(d.findings[0].line(),
            "changed node 'N' (BatchNormalization): only in A (removed): 1 core node [binary mul]");
}

TEST(DiffStructure, RenamedNodeWithOtherWeightsIsAWeightFinding) {
  // Another exporter's names: the same ops, one weight changed. Not a rewrite of the nodes.
  std::string b = kFolded;
  for (const char* from : {"\"C\", Conv", "\"R\", Exp"}) {
    const std::string f = from;
    for (size_t at = b.find(f); at != std::string::npos; at = b.find(f))
      b.replace(at, 3, f.substr(0, 2) + "2\"");
  }
  b.replace(b.find("0.75"), 4, "0.70");
  const GraphDiff d = diff_of(kFolded, b);
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);
  EXPECT_EQ(d.findings[0].kind, FindingKind::weight);
  EXPECT_EQ(d.findings[0].node, "C2");
}

// One ONNX node G computing in f64 (as plumb lowers a Gelu), against its arithmetic as separate
// nodes D, E in f32 whose result tensor has another name: R finds its way back through its own name.
constexpr const char* kOneNode = R"(plumb 1
func @main(%x: f32[2]) -> (f32[2]) {
  %x64 = cast %x {to = f64, saturate = false, round = nearest_even} : f64[2] loc("G", Gelu, 20)
  %k = constant {value = dense<f64[2]>[0.7071067811865476, 0.7071067811865476]} : f64[2] loc("G", Gelu, 20)
  %t = binary %x64, %k {kind = mul} : f64[2] loc("G", Gelu, 20)
  %e = unary %t {kind = erf} : f64[2] loc("G", Gelu, 20)
  %g = cast %e {to = f32, saturate = false, round = nearest_even} : f32[2] loc("G", Gelu, 20)
  %y = unary %g {kind = exp} : f32[2] loc("R", Exp, 13)
  return %y
}
)";
constexpr const char* kExpanded = R"(plumb 1
func @main(%x: f32[2]) -> (f32[2]) {
  %k = constant {value = dense<f32[2]>[1.4142135, 1.4142135]} : f32[2] loc("D", Div, 13)
  %t = binary %x, %k {kind = div} : f32[2] loc("D", Div, 13)
  %h = unary %t {kind = erf} : f32[2] loc("E", Erf, 13)
  %y = unary %h {kind = exp} : f32[2] loc("R", Exp, 13)
  return %y
}
)";

TEST(DiffStructure, ExpansionIsSplitAndTheWalkFindsItsWayBack) {
  const GraphDiff d = diff_of(kOneNode, kExpanded);
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);  // nothing at R: it pairs through its ONNX name
  EXPECT_EQ(
      d.findings[0].line(),
      "changed node 'G' (Gelu): split: A's Gelu 'G' -> B's Div 'D' + Erf 'E', 4 core nodes [cast, binary "
      "mul, unary erf, cast] -> 2 core nodes [binary div, unary erf]");
  const GraphDiff e = diff_of(kExpanded, kOneNode);
  ASSERT_EQ(e.findings.size(), 1u) << lines(e);
  EXPECT_EQ(e.findings[0].kind, FindingKind::fused);
  EXPECT_EQ(e.findings[0].node, "G");
}

TEST(DiffStructure, RewrittenCoreNodesThatStillPairAreSplit) {
  // Gelu-like G against D and E whose core nodes pair node for node, one of them computing
  // otherwise (mul -> div): a split that takes in the attribute and weight findings.
  const GraphDiff d = diff_of(R"(plumb 1
func @main(%x: f32[2]) -> (f32[2]) {
  %k = constant {value = dense<f32[2]>[0.5, 0.5]} : f32[2] loc("G", Gelu, 20)
  %t = binary %x, %k {kind = mul} : f32[2] loc("G", Gelu, 20)
  %g = unary %t {kind = erf} : f32[2] loc("G", Gelu, 20)
  %y = unary %g {kind = exp} : f32[2] loc("R", Exp, 13)
  return %y
}
)",
                              R"(plumb 1
func @main(%x: f32[2]) -> (f32[2]) {
  %k = constant {value = dense<f32[2]>[2.0, 2.0]} : f32[2] loc("D", Div, 13)
  %t = binary %x, %k {kind = div} : f32[2] loc("D", Div, 13)
  %g = unary %t {kind = erf} : f32[2] loc("E", Erf, 13)
  %y = unary %g {kind = exp} : f32[2] loc("R", Exp, 13)
  return %y
}
)");
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);
  EXPECT_EQ(d.findings[0].kind, FindingKind::split);
  EXPECT_NE(d.findings[0].what.find("; changed with it: "), std::string::npos) << lines(d);
}

TEST(DiffStructure, SameCoreNodesFromOtherOnnxNodesAreTheSameComputation) {
  // A Gemm's multiply-add against a MatMul and an Add: equivalent, said as a note.
  const GraphDiff d = diff_of(R"(plumb 1
func @main(%x: f32[2]) -> (f32[2]) {
  %w = constant {value = dense<f32[2]>[1.5, -2.0]} : f32[2] loc("G", Gemm, 13)
  %m = binary %x, %w {kind = mul} : f32[2] loc("G", Gemm, 13)
  %c = constant {value = dense<f32[2]>[0.25, 1.0]} : f32[2] loc("G", Gemm, 13)
  %y = binary %m, %c {kind = add} : f32[2] loc("G", Gemm, 13)
  return %y
}
)",
                              R"(plumb 1
func @main(%x: f32[2]) -> (f32[2]) {
  %w = constant {value = dense<f32[2]>[1.5, -2.0]} : f32[2] loc("M", MatMul, 13)
  %m = binary %x, %w {kind = mul} : f32[2] loc("M", MatMul, 13)
  %c = constant {value = dense<f32[2]>[0.25, 1.0]} : f32[2] loc("P", Add, 13)
  %y = binary %m, %c {kind = add} : f32[2] loc("P", Add, 13)
  return %y
}
)");
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);
  EXPECT_TRUE(d.findings[0].same_computation);
  EXPECT_TRUE(d.equivalent());
  EXPECT_EQ(
      d.findings[0].line(),
      "same computation: split: A's Gemm 'G' -> B's MatMul 'M' + Add 'P'; the same 2 core nodes [binary mul, "
      "binary add]");
}

// A weight read as is, against the same values stored transposed and transposed back.
constexpr const char* kPlainWeight = R"(plumb 1
func @main(%x: f32[3,2]) -> (f32[3,2]) {
  %w = constant {value = dense<f32[3,2]>[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]} : f32[3,2] loc("M", Mul, 13)
  %y = binary %x, %w {kind = mul} : f32[3,2] loc("M", Mul, 13)
  return %y
}
)";
std::string transposed_weight(const std::string& values) {
  return R"(plumb 1
func @main(%x: f32[3,2]) -> (f32[3,2]) {
  %v = constant {value = dense<f32[2,3]>[)" +
         values + R"(]} : f32[2,3] loc("T", Transpose, 13)
  %w = transpose %v {perm = [1, 0]} : f32[3,2] loc("T", Transpose, 13)
  %y = binary %x, %w {kind = mul} : f32[3,2] loc("M", Mul, 13)
  return %y
}
)";
}

TEST(DiffMatch, ConstantsAreComparedByValue) {
  const GraphDiff d = diff_of(kPlainWeight, transposed_weight("1.0, 3.0, 5.0, 2.0, 4.0, 6.0"));
  EXPECT_TRUE(d.equivalent()) << lines(d);
  EXPECT_TRUE(d.match.same_b[2]);
  // Without a folder the transposed weight cannot be evaluated: a difference, not a silent match.
  EXPECT_FALSE(diff_of(kPlainWeight, transposed_weight("1.0, 3.0, 5.0, 2.0, 4.0, 6.0"), false).equivalent());
  const GraphDiff e = diff_of(kPlainWeight, transposed_weight("1.0, 3.0, 5.0, 2.0, 4.0, 7.0"));
  ASSERT_EQ(e.findings.size(), 1u) << lines(e);
  EXPECT_EQ(e.findings[0].kind, FindingKind::weight);
  EXPECT_EQ(
      e.findings[0].line().rfind("changed node 'M' (Mul): weight 'w' f32[3,2] (in B computed by Transpose "
                                 "'T'): real change: 1 of 6 elements differ",
                                 0),
      0u)
      << lines(e);
}

TEST(DiffMatch, DequantizedWeightIsInt8PrecisionLoss) {
  // B: q * 0.01 from an i8 constant (a DequantizeLinear); A: values that round to those.
  const GraphDiff d = diff_of(R"(plumb 1
func @main(%x: f32[8]) -> (f32[8]) {
  %w = constant {value = dense<f32[8]>[-1.268, -0.642, -0.031, 0.052, 0.168, 0.401, 0.99, 1.272]} : f32[8] loc("M", Mul, 13)
  %y = binary %x, %w {kind = mul} : f32[8] loc("M", Mul, 13)
  return %y
}
)",
                              R"(plumb 1
func @main(%x: f32[8]) -> (f32[8]) {
  %q = constant {value = dense<i8[8]>[-127, -64, -3, 5, 17, 40, 99, 127]} : i8[8] loc("Q", DequantizeLinear, 13)
  %f = cast %q {to = f32, saturate = false, round = nearest_even} : f32[8] loc("Q", DequantizeLinear, 13)
  %s = constant {value = dense<f32[8]>[0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01]} : f32[8] loc("Q", DequantizeLinear, 13)
  %w = binary %f, %s {kind = mul} : f32[8] loc("Q", DequantizeLinear, 13)
  %y = binary %x, %w {kind = mul} : f32[8] loc("M", Mul, 13)
  return %y
}
)");
  ASSERT_EQ(d.findings.size(), 1u) << lines(d);
  EXPECT_EQ(d.findings[0].kind, FindingKind::precision);
  EXPECT_EQ(d.findings[0].line().rfind("changed node 'M' (Mul): weight 'w' f32[8] (in B computed by "
                                       "DequantizeLinear 'Q'): precision loss (equal after rounding to int8, "
                                       "symmetric, scale 0.01): 8 of 8 elements differ",
                                       0),
            0u)
      << lines(d);
}

}  // namespace
}  // namespace plumb::check
