// hunt/reduce.h on models built in code: each predicate reduces to the node at fault, the repro
// still fails, the attribute and shape passes, and the errors.
#include "hunt/reduce.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "check/onnx/run_check.h"
#include "hunt/reduce_values.h"
#include "tests/hunt/test_models.h"
#include "tests/hunt/wrong_backend.h"

namespace plumb::hunt {
namespace {

using testing::f32_value;
using testing::fresh_dir;
using testing::ModelBuilder;

// x[1,2] -> Relu -> Gemm(W, C, alpha 1 given, transB 1, beta) -> Tanh -> y. The expected values
// (every tensor) are those of beta = 1, computed here; `beta` other than 1 is the injected fault.
::onnx::ModelProto gemm_model(float beta) {
  ModelBuilder b(13);
  b.input("x", {1, 2});
  b.init_f32("W", {2, 2}, {1, 2, 3, 4});
  b.init_f32("C", {2}, {0.5f, -1});
  b.node("Relu", {"x"}, {"r"}, "relu");
  ::onnx::NodeProto& g = b.node("Gemm", {"r", "W", "C"}, {"g"}, "gemm");
  ModelBuilder::attr_int(g, "transB", 1);
  auto* alpha = g.add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(::onnx::AttributeProto::FLOAT);
  alpha->set_f(1.0f);
  auto* bt = g.add_attribute();
  bt->set_name("beta");
  bt->set_type(::onnx::AttributeProto::FLOAT);
  bt->set_f(beta);
  b.node("Tanh", {"g"}, {"y"}, "tanh");
  b.output("y", {1, 2});
  return b.model();
}

// Writes model.onnx and data/ (input_0.pb, output_0.pb; with `intermediates` also r and g).
std::string write_gemm_case(const std::string& name, float beta, bool intermediates) {
  const std::string dir = fresh_dir(name);
  EXPECT_TRUE(write_model_proto(dir + "/model.onnx", gemm_model(beta)).is_ok());
  std::filesystem::create_directories(dir + "/data");
  EXPECT_TRUE(onnx::write_data_file(dir + "/data/input_0.pb", f32_value("x", {1, 2}, {-1, 2})).is_ok());
  // r = [0, 2]; g = r W^T + C = [4.5, 7]; y = tanh(g)
  EXPECT_TRUE(onnx::write_data_file(dir + "/data/output_0.pb",
                                    f32_value("y", {1, 2}, {std::tanh(4.5f), std::tanh(7.0f)}))
                  .is_ok());
  if (intermediates) {
    EXPECT_TRUE(onnx::write_data_file(dir + "/data/r.pb", f32_value("r", {1, 2}, {0, 2})).is_ok());
    EXPECT_TRUE(onnx::write_data_file(dir + "/data/g.pb", f32_value("g", {1, 2}, {4.5f, 7})).is_ok());
  }
  return dir;
}

ReduceRequest request(const std::string& dir, ReduceMode mode) {
  ReduceRequest r;
  r.model = dir + "/model.onnx";
  r.data_dir = dir + "/data";
  r.mode = mode;
  r.out_dir = dir + "/out";
  return r;
}

TEST(Reduce, CheckFailsKeepsOnlyTheFaultyNodeAndItsNonDefaultAttributes) {
  const std::string dir = write_gemm_case("check_fails", 0.5f, true);
  ReduceRequest r = request(dir, ReduceMode::kCheckFails);
  auto res = reduce_model(r);
  ASSERT_TRUE(res) << res.status().to_string();
  EXPECT_EQ(res->nodes_before, 3u);
  EXPECT_EQ(res->nodes_after, 1u);
  EXPECT_EQ(res->kept, (std::vector<std::string>{"'gemm' (Gemm)"}));
  EXPECT_EQ(res->attributes_removed, 1);  // alpha = 1 is the default; transB and beta change the result
  auto out = read_model_proto(r.out_dir + "/model.onnx");
  ASSERT_TRUE(out);
  ASSERT_EQ(out->graph().node_size(), 1);
  EXPECT_EQ(out->graph().node(0).attribute_size(), 2);
  EXPECT_EQ(out->graph().input(0).name(), "r");  // fed with the expected value of r
  // The repro fails plumb check on its own.
  check::CheckRequest c;
  c.model = r.out_dir + "/model.onnx";
  c.inputs = check::InputFiles{r.out_dir + "/test_data_set_0", {}};
  auto rep = check::run_check(c);
  ASSERT_TRUE(rep) << rep.status().to_string();
  EXPECT_EQ(rep->verdict, check::Verdict::mismatch);
  // Pure ddmin (no hint from check's first divergence) finds the same node.
  r.hint = false;
  r.out_dir = dir + "/out_nohint";
  auto pure = reduce_model(r);
  ASSERT_TRUE(pure) << pure.status().to_string();
  EXPECT_EQ(pure->kept, res->kept);
  EXPECT_GT(pure->tests, res->tests);
}

TEST(Reduce, CheckFailsWithOutputsOnlyCannotCutWhatHasNoExpectedValue) {
  // Only y has an expected value: feeding Gemm with plumb's own (faulty) values would make any
  // downstream node look guilty, so nothing upstream of a compared tensor is cut.
  const std::string dir = write_gemm_case("outputs_only", 0.5f, false);
  ReduceRequest r = request(dir, ReduceMode::kCheckFails);
  auto res = reduce_model(r);
  ASSERT_TRUE(res) << res.status().to_string();
  EXPECT_EQ(res->nodes_after, 3u);
}

TEST(Reduce, ThePredicateMustHoldOnTheModelAsGiven) {
  const std::string dir = write_gemm_case("no_fault", 1.0f, true);
  ReduceRequest r = request(dir, ReduceMode::kCheckFails);
  auto res = reduce_model(r);
  ASSERT_FALSE(res);
  EXPECT_NE(res.status().to_string().find("does not hold on the model as given"), std::string::npos)
      << res.status().to_string();
}

// x[2,3] -> Relu -> Tanh -> Mul(x) -> Exp -> y
std::string write_tanh_case(const std::string& name) {
  ModelBuilder b(13);
  b.input("x", {2, 3});
  b.node("Relu", {"x"}, {"r"}, "relu");
  b.node("Tanh", {"r"}, {"t"}, "tanh");
  b.node("Mul", {"t", "x"}, {"m"}, "mul");
  b.node("Exp", {"m"}, {"y"}, "exp");
  b.output("y", {2, 3});
  const std::string dir = fresh_dir(name);
  EXPECT_TRUE(write_model_proto(dir + "/model.onnx", b.model()).is_ok());
  std::filesystem::create_directories(dir + "/data");
  EXPECT_TRUE(
      onnx::write_data_file(dir + "/data/input_0.pb", f32_value("x", {2, 3}, {0.5f, -1, 2, 0.25f, 3, -0.5f}))
          .is_ok());
  return dir;
}

TEST(Reduce, BackendsDifferFindsTheNodeTheBackendGetsWrongAndShrinksItsInput) {
  const std::string dir = write_tanh_case("backends");
  ReduceRequest r = request(dir, ReduceMode::kBackendsDiffer);
  r.backend_a = "ref";
  r.backend_b = "wrong_tanh";
  r.extra_backends = {testing::wrong_tanh_backend()};
  auto res = reduce_model(r);
  ASSERT_TRUE(res) << res.status().to_string();
  EXPECT_EQ(res->kept, (std::vector<std::string>{"'tanh' (Tanh)"}));
  EXPECT_EQ(res->dims_shrunk, 2);  // 2 -> 1 and 3 -> 1
  auto in = onnx::read_data_file(r.out_dir + "/test_data_set_0/input_0.pb");
  ASSERT_TRUE(in);
  EXPECT_EQ(in->tensor.dims, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(in->name, "r");
  auto out = onnx::read_data_file(r.out_dir + "/test_data_set_0/output_0.pb");  // ref's (A's) output
  ASSERT_TRUE(out);
  EXPECT_FLOAT_EQ(testing::floats_of(*out)[0], std::tanh(0.5f));
}

TEST(Reduce, BackendsThatAgreeAreNoFailure) {
  const std::string dir = write_tanh_case("agree");
  ReduceRequest r = request(dir, ReduceMode::kBackendsDiffer);
  r.backend_a = "ref";
  r.backend_b = "ref";
  auto res = reduce_model(r);
  ASSERT_FALSE(res);
  EXPECT_NE(res.status().to_string().find("identical outputs"), std::string::npos)
      << res.status().to_string();
}

TEST(Reduce, CommandPredicateOnTheModelFile) {
  const std::string dir = write_tanh_case("command");
  ReduceRequest r = request(dir, ReduceMode::kCommand);
  // Interesting while the model still holds an Exp node and its data folder has an output.
  r.command = "grep -q Exp {model} && test -f {data}/output_0.pb";
  auto res = reduce_model(r);
  ASSERT_TRUE(res) << res.status().to_string();
  EXPECT_EQ(res->kept, (std::vector<std::string>{"'exp' (Exp)"}));
  EXPECT_EQ(res->dims_shrunk, 2);
  auto out = read_model_proto(r.out_dir + "/model.onnx");
  ASSERT_TRUE(out);
  EXPECT_EQ(out->graph().input(0).name(), "m");  // fed with ref's value of m
}

TEST(Reduce, ACommandThatTimesOutIsNoFailure) {
  const std::string dir = write_tanh_case("timeout");
  ReduceRequest r = request(dir, ReduceMode::kCommand);
  r.command = "sleep 10";
  r.timeout_s = 0.2;
  auto res = reduce_model(r);
  ASSERT_FALSE(res);
  EXPECT_NE(res.status().to_string().find("timed out"), std::string::npos) << res.status().to_string();
}

TEST(Reduce, MissingInputsAreAnErrorNamingTheFolder) {
  const std::string dir = write_tanh_case("no_inputs");
  std::filesystem::remove(dir + "/data/input_0.pb");
  ReduceRequest r = request(dir, ReduceMode::kCheckFails);
  auto res = reduce_model(r);
  ASSERT_FALSE(res);
  EXPECT_NE(res.status().to_string().find("input_0.pb"), std::string::npos) << res.status().to_string();
}

// A graph output that the lowering makes an alias of another value (a Clip without bounds has no
// node of its own) still has its computed value (plumb gen found it missing: "ref computed no
// value for output").
TEST(Reduce, AGraphOutputAliasedByTheLoweringHasItsComputedValue) {
  ModelBuilder b(13);
  b.input("x", {1, 2});
  b.node("Relu", {"x"}, {"r"}, "relu");
  b.node("Clip", {"r"}, {"y"}, "clip");
  b.output("y", {1, 2});
  const std::string dir = fresh_dir("alias_output");
  ASSERT_TRUE(write_model_proto(dir + "/model.onnx", b.model()).is_ok());
  std::filesystem::create_directories(dir + "/data");
  ASSERT_TRUE(onnx::write_data_file(dir + "/data/input_0.pb", f32_value("x", {1, 2}, {-1, 2})).is_ok());
  ValueSources src;
  src.model_path = dir + "/model.onnx";
  src.data_dir = dir + "/data";
  src.expected_path = "-";
  auto t = read_value_table(b.model(), src);
  ASSERT_TRUE(t) << t.status().to_string();
  ASSERT_TRUE(t->computed_unavailable.empty()) << t->computed_unavailable;
  auto y = t->computed.find("y");
  ASSERT_NE(y, t->computed.end());
  float got[2];
  ASSERT_EQ(y->second.tensor.size, sizeof got);
  std::memcpy(got, y->second.tensor.data, sizeof got);
  EXPECT_EQ(got[0], 0.0f);
  EXPECT_EQ(got[1], 2.0f);
}

}  // namespace
}  // namespace plumb::hunt
