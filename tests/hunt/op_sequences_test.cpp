// hunt/op_sequences.h and hunt/op_labels.h on models built in code: labels and their classes,
// n-grams along data edges (Constant nodes left out, subgraphs included), coverage counts, JSON.
#include "hunt/op_sequences.h"

#include <gtest/gtest.h>

#include "tests/hunt/test_models.h"

namespace plumb::hunt {
namespace {

using testing::ModelBuilder;

// X -> Conv (depthwise, 2-D) -> Relu -> Add (broadcast bias) -> Softmax(axis -1) -> ReduceSum
// (axes from a Constant, [-1]) -> Y.
::onnx::ModelProto chain() {
  ModelBuilder b(13);
  b.input("x", {1, 3, 8, 8});
  b.init_f32("w", {3, 1, 3, 3}, std::vector<float>(27, 0.1f));
  b.init_f32("bias", {1, 3, 1, 1}, {1, 2, 3});
  ModelBuilder::attr_int(b.node("Conv", {"x", "w"}, {"c"}, "conv"), "group", 3);
  b.node("Relu", {"c"}, {"r"}, "relu");
  b.node("Add", {"r", "bias"}, {"a"}, "add");
  ModelBuilder::attr_int(b.node("Softmax", {"a"}, {"s"}, "softmax"), "axis", -1);
  ModelBuilder::attr_ints(b.node("Constant", {}, {"axes"}, "axes_const"), "value_ints", {-1});
  b.node("ReduceSum", {"s", "axes"}, {"y"}, "sum");
  b.output("y", {1, 3, 6, 1});
  return b.model();
}

std::vector<std::string> keys(const SequenceSet& s, int n) {
  std::vector<std::string> k;
  for (const auto& [key, g] : s.grams[n - 1]) k.push_back(key);
  return k;
}

TEST(OpSequences, LabelsCarryTheClassesThatChangeTheLowering) {
  SequenceSet s(1);
  add_model(chain(), "chain.onnx", s);
  EXPECT_EQ(s.nodes, 5);  // the Constant is a parameter, not a node
  EXPECT_EQ(keys(s, 1),
            (std::vector<std::string>{"Add[f32,bcast]", "Conv[f32,2d,depthwise]", "ReduceSum[f32,axes-]",
                                      "Relu[f32]", "Softmax[f32,axis-]"}));
}

TEST(OpSequences, PathsFollowDataEdges) {
  SequenceSet s(3);
  add_model(chain(), "chain.onnx", s);
  EXPECT_EQ(s.grams[1].size(), 4u);
  EXPECT_EQ(s.grams[2].size(), 3u);
  const Gram& g = s.grams[2].at("Conv[f32,2d,depthwise] -> Relu[f32] -> Add[f32,bcast]");
  EXPECT_EQ(g.count, 1);
  EXPECT_EQ(g.example, "chain.onnx: conv -> relu -> add");
  EXPECT_EQ(s.op_grams[1].at("Relu -> Add"), 1);
}

TEST(OpSequences, SubgraphNodesAndOuterScopeReadsAreEdges) {
  ModelBuilder b(13);
  b.input("x", {2});
  b.input("cond", {}, 9);
  b.node("Relu", {"x"}, {"r"}, "relu");
  ::onnx::NodeProto& ifn = b.node("If", {"cond"}, {"y"}, "if");
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = ifn.add_attribute();
    a->set_name(branch);
    a->set_type(::onnx::AttributeProto::GRAPH);
    ::onnx::GraphProto* g = a->mutable_g();
    g->set_name(branch);
    ModelBuilder::add_node(g, std::string(branch) == "then_branch" ? "Neg" : "Abs", {"r"},
                           {std::string(branch) + "_y"});
    ModelBuilder::set_type(g->add_output(), std::string(branch) + "_y", 1, {2});
  }
  b.output("y", {2});
  SequenceSet s(2);
  add_model(b.model(), "if.onnx", s);
  EXPECT_EQ(s.nodes, 4);
  for (const char* k : {"Relu[f32] -> If[bool]", "Relu[f32] -> Neg[f32]", "Relu[f32] -> Abs[f32]"})
    EXPECT_TRUE(s.grams[1].count(k)) << k;
}

TEST(OpSequences, CoverageCountsDistinctAndOccurrences) {
  SequenceSet models(2), against(2);
  add_model(chain(), "a.onnx", models);
  add_model(chain(), "b.onnx", models);
  ModelBuilder b(13);  // Conv -> Relu only, and a Relu -> Add without broadcast
  b.input("x", {1, 3, 8, 8});
  b.init_f32("w", {3, 1, 3, 3}, std::vector<float>(27, 0.1f));
  ModelBuilder::attr_int(b.node("Conv", {"x", "w"}, {"c"}), "group", 3);
  b.node("Relu", {"c"}, {"r"});
  b.node("Add", {"r", "r"}, {"y"});
  b.output("y", {1, 3, 6, 6});
  add_model(b.model(), "suite.onnx", against);
  const SequenceCoverage c = sequence_coverage(models, &against);
  ASSERT_EQ(c.counts.size(), 2u);
  EXPECT_EQ(c.counts[0].distinct, 5);
  EXPECT_EQ(c.counts[0].covered, 2);  // Conv, Relu (Add differs by its broadcast class)
  EXPECT_EQ(c.counts[0].occurrences, 10);
  EXPECT_EQ(c.counts[0].covered_occurrences, 4);
  EXPECT_EQ(c.counts[0].ops_covered, 3);  // by op type alone, Add is covered
  EXPECT_EQ(c.counts[1].distinct, 4);
  EXPECT_EQ(c.counts[1].covered, 1);  // Conv -> Relu
  EXPECT_EQ(c.counts[1].ops_covered, 2);
  ASSERT_EQ(c.uncovered.size(), 6u);                   // 3 one-grams, 3 two-grams, each seen twice
  EXPECT_EQ(c.uncovered[0]->key(), "Add[f32,bcast]");  // equal counts: shorter first, then by key
  const std::string json = coverage_json(c);
  EXPECT_NE(json.find("\"format\": \"plumb-sequence-coverage/1\""), std::string::npos);
  EXPECT_NE(
      json.find(
          "{\"n\": 2, \"count\": 2, \"key\": \"Relu[f32] -> Add[f32,bcast]\", \"ops\": [{\"op\": \"Relu\", "
          "\"domain\": \"\", \"label\": \"Relu[f32]\", \"dtype\": \"f32\", \"classes\": []}"),
      std::string::npos)
      << json;
  EXPECT_NE(coverage_html(c, 10).find("<table id=\"uncovered\">"), std::string::npos);
}

TEST(OpSequences, WithoutAgainstNothingIsCovered) {
  SequenceSet models(1);
  add_model(chain(), "a.onnx", models);
  const SequenceCoverage c = sequence_coverage(models, nullptr);
  EXPECT_EQ(c.counts[0].covered, 0);
  EXPECT_EQ(c.uncovered.size(), 5u);
}

TEST(OpSequences, AMissingSourceIsAnErrorNamingIt) {
  SequenceSet s(1);
  Status st = add_source("/nonexistent/models", s);
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.to_string().find("/nonexistent/models"), std::string::npos);
}

}  // namespace
}  // namespace plumb::hunt
