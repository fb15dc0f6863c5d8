// run_check end to end on small .plumb models with .npy inputs and expected values: verdicts, the
// first divergence (local vs carried), errors that name their file, and find_first_divergence.
#include "check/onnx/run_check.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/check/check_test_util.h"

namespace plumb::check {
namespace {

using testing::f32;
using testing::TempDir;

// x -> A: exp -> t -> B: t * 2 -> u -> C: u + 1 -> y
constexpr const char* kChain = R"(plumb 1
func @main(%x: f32[3]) -> (f32[3]) {
  %t = unary %x {kind = exp} : f32[3] loc("A", Exp, 13)
  %two = constant {value = dense<f32[3]>[2.0, 2.0, 2.0]} : f32[3] loc("B", Mul, 14)
  %u = binary %t, %two {kind = mul} : f32[3] loc("B", Mul, 14)
  %one = constant {value = dense<f32[3]>[1.0, 1.0, 1.0]} : f32[3] loc("C", Add, 14)
  %y = binary %u, %one {kind = add} : f32[3] loc("C", Add, 14)
  return %y
}
)";

const std::vector<float> kX = {0.0f, 0.5f, -1.0f};

struct Chain {
  std::vector<float> t, u, y;
};

// The chain as a correct f32 implementation computes it, with B's result scaled by `b_fault`.
Chain chain(float b_fault) {
  Chain c;
  for (float x : kX) {
    c.t.push_back(std::exp(x));
    c.u.push_back(c.t.back() * 2.0f * b_fault);
    c.y.push_back(c.u.back() + 1.0f);
  }
  return c;
}

class RunCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    ASSERT_EQ(::mkdir(dir_.file("data").c_str(), 0777), 0);
    ASSERT_EQ(::mkdir(dir_.file("expected").c_str(), 0777), 0);
    req_.model = dir_.model(kChain);
    req_.inputs.data_dir = dir_.file("data");
    req_.expected = dir_.file("expected");
    TempDir::write_npy_file(dir_.file("data/input_0.npy"), f32({3}, kX));
  }
  void expect(const std::string& name, const std::vector<float>& v) {
    TempDir::write_npy_file(dir_.file("expected/" + name + ".npy"), f32({3}, v));
  }
  TempDir dir_;
  CheckRequest req_;
};

TEST_F(RunCheck, CorrectValuesMatch) {
  const Chain c = chain(1.0f);
  expect("t", c.t);
  expect("u", c.u);
  expect("y", c.y);
  std::vector<std::string> steps;
  req_.progress = [&](const std::string& s) { steps.push_back(s); };
  auto rep = run_check(req_);
  ASSERT_TRUE(rep.has_value()) << rep.status().to_string();
  EXPECT_EQ(rep->verdict, Verdict::match);
  EXPECT_TRUE(rep->isolated);
  ASSERT_EQ(rep->rows.size(), 3u);
  EXPECT_EQ(rep->rows[0].name, "t");
  EXPECT_EQ(rep->rows[2].name, "y");
  EXPECT_TRUE(rep->specialized.empty());
  EXPECT_FALSE(steps.empty());
}

// B's output is 1% off; C, fed B's expected output, computes right: B is the divergence, local.
TEST_F(RunCheck, TheFaultyNodeIsTheFirstDivergence) {
  const Chain c = chain(1.01f);
  expect("t", c.t);
  expect("u", c.u);
  expect("y", c.y);
  auto rep = run_check(req_);
  ASSERT_TRUE(rep.has_value()) << rep.status().to_string();
  EXPECT_EQ(rep->verdict, Verdict::mismatch);
  ASSERT_GE(rep->first, 0);
  EXPECT_EQ(rep->rows[rep->first].name, "u");
  EXPECT_EQ(rep->first_kind, "local");
  EXPECT_EQ(rep->node_place(rep->rows[rep->first].node), "node 'B' (Mul-14)");
  EXPECT_TRUE(rep->localized());
  EXPECT_EQ(rep->divergence_text(), "node 'B' (Mul-14)");
  EXPECT_TRUE(rep->rows[2].has_local);
  EXPECT_TRUE(rep->rows[2].local.match) << rep->rows[2].local.why;  // C is right on its inputs
  EXPECT_FALSE(rep->rows[2].carried.match);
}

TEST_F(RunCheck, OutputsOnlyGiveACarriedDivergence) {
  expect("y", chain(1.01f).y);
  auto rep = run_check(req_);
  ASSERT_TRUE(rep.has_value()) << rep.status().to_string();
  EXPECT_EQ(rep->verdict, Verdict::mismatch);
  EXPECT_FALSE(rep->isolated);
  EXPECT_EQ(rep->first_kind, "carried");
  EXPECT_FALSE(rep->localized());
  EXPECT_EQ(
      rep->divergence_text(),
      "between the graph inputs and the first differing tensor 'y' (3 nodes: 'A' (Exp-13), 'B' (Mul-14), "
      "'C' (Add-14))");
}

// Issue 12 item 4: u is not compared, so the error lies somewhere in B or C; C's inputs were never
// compared, and naming C alone ("its inputs agree") would blame the wrong node.
TEST_F(RunCheck, SparseExpectedValuesNameTheSpan) {
  const Chain c = chain(1.01f);
  expect("t", c.t);
  expect("y", c.y);
  auto rep = run_check(req_);
  ASSERT_TRUE(rep.has_value()) << rep.status().to_string();
  EXPECT_EQ(rep->verdict, Verdict::mismatch);
  EXPECT_EQ(rep->rows[rep->first].name, "y");
  EXPECT_FALSE(rep->localized());
  EXPECT_EQ(
      rep->divergence_text(),
      "between the last agreeing tensor 't' and the first differing tensor 'y' (2 nodes: 'B' (Mul-14), 'C' "
      "(Add-14))");
  const std::string json = report_json(*rep);
  EXPECT_NE(json.find("\"first_divergence\": {\"node\": null"), std::string::npos) << json;
  EXPECT_NE(
      json.find("\"span\": {\"after\": [\"t\"], \"from_graph_inputs\": false, \"nodes\": [{\"name\": \"B\""),
      std::string::npos)
      << json;
}

TEST_F(RunCheck, NoIsolateJudgesEndToEnd) {
  const Chain c = chain(1.01f);
  expect("t", c.t);
  expect("u", c.u);
  req_.isolate = false;
  auto rep = run_check(req_);
  ASSERT_TRUE(rep.has_value()) << rep.status().to_string();
  EXPECT_FALSE(rep->isolated);
  EXPECT_EQ(rep->rows[rep->first].name, "u");
  EXPECT_EQ(rep->first_kind, "carried");
}

TEST_F(RunCheck, ErrorsNameTheirFile) {
  auto none = run_check(req_);  // no expected value at all
  ASSERT_FALSE(none.has_value());
  EXPECT_NE(none.status().to_string().find(req_.expected), std::string::npos) << none.status().to_string();
  expect("y", chain(1.0f).y);
  ASSERT_EQ(::unlink(dir_.file("data/input_0.npy").c_str()), 0);
  auto missing = run_check(req_);
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.status().to_string().find("input_0"), std::string::npos) << missing.status().to_string();
  EXPECT_NE(missing.status().to_string().find(req_.inputs.data_dir), std::string::npos);
}

// Issue 12 item 2: every model with a rank-0 float intermediate (a reduction to a scalar, torch.std,
// a loss, attention's scale) crashed in the perturbed isolated runs: the running sum of |p - r|
// started as a default RtValue, a rank-0 tensor with no storage, which passed for a scalar sum.
TEST(RunCheckScalar, RankZeroIntermediatesAreChecked) {
  TempDir dir;
  ASSERT_EQ(::mkdir(dir.file("data").c_str(), 0777), 0);
  ASSERT_EQ(::mkdir(dir.file("expected").c_str(), 0777), 0);
  CheckRequest req;
  req.model = dir.model(R"(plumb 1
func @main(%x: f32[3]) -> (f32[]) {
  %s = reduce %x {kind = sum, axes = [0]} : f32[] loc("S", ReduceSum, 13)
  %y = binary %s, %s {kind = mul} : f32[] loc("M", Mul, 14)
  return %y
}
)");
  req.inputs.data_dir = dir.file("data");
  req.expected = dir.file("expected");
  TempDir::write_npy_file(dir.file("data/input_0.npy"), f32({3}, {1.0f, 2.0f, 4.0f}));
  TempDir::write_npy_file(dir.file("expected/s.npy"), f32({}, {7.0f}));
  TempDir::write_npy_file(dir.file("expected/y.npy"), f32({}, {49.0f}));
  auto rep = run_check(req);
  ASSERT_TRUE(rep.has_value()) << rep.status().to_string();
  EXPECT_TRUE(rep->isolated);
  EXPECT_EQ(rep->verdict, Verdict::match);
  TempDir::write_npy_file(dir.file("expected/y.npy"), f32({}, {50.0f}));
  rep = run_check(req);
  ASSERT_TRUE(rep.has_value()) << rep.status().to_string();
  EXPECT_EQ(rep->verdict, Verdict::mismatch);
  EXPECT_EQ(rep->node_place(rep->rows[rep->first].node), "node 'M' (Mul-14)");
  EXPECT_EQ(rep->first_kind, "local");
}

TEST(FirstDivergence, ALocalFailureWinsOverAnEarlierCarriedOne) {
  CheckReport r;
  r.rows.resize(3);
  r.rows[0].carried.match = false;  // carried only: its node's inputs were not fed
  r.rows[1].has_local = true;
  r.rows[1].local.match = false;
  r.rows[2].has_local = true;
  find_first_divergence(r);
  EXPECT_EQ(r.first, 1);
  EXPECT_EQ(r.first_kind, "local");
  EXPECT_EQ(r.verdict, Verdict::mismatch);
  r.rows[1].local.match = true;
  find_first_divergence(r);
  EXPECT_EQ(r.first, 0);
  EXPECT_EQ(r.first_kind, "carried");
  r.rows[0].carried.match = true;
  find_first_divergence(r);
  EXPECT_EQ(r.first, -1);
  EXPECT_EQ(r.verdict, Verdict::match);
}

}  // namespace
}  // namespace plumb::check
