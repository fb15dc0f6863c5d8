// Issue 13: shape parameters computed at run time. A model whose input dims are symbolic (or whose
// sizes / k are graph inputs) lowers to one graph that serves every input size; each test runs it
// and compares, bit for bit, with the static lowering of the same model at that size (the static
// path builds its tables at build time and is checked against the ONNX values elsewhere, e.g.
// resize_test.cpp). Also: the builder folds shape arithmetic on constants as it emits it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ir/verify.h"
#include "lowering/onnx/driver.h"
#include "runtime/ref_evaluator.h"
#include "tests/lowering/multi_node.h"

namespace plumb::testing {
namespace {

using Doubles = std::vector<double>;

// The model with every graph input's dims symbolic (as an export with dynamic_axes).
onnx::OnnxModel Dynamic(onnx::OnnxModel m) {
  for (onnx::OnnxValueInfo& in : m.graph.inputs)
    for (ir::Dim& d : in.type->shape) d = ir::Dim::symbolic();
  return m;
}

// Bit-exact comparison of two runs' outputs (NaN equals NaN).
void ExpectSameOutputs(const std::vector<rt::RtValue>& a, const std::vector<rt::RtValue>& b,
                       const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t k = 0; k < a.size(); ++k) {
    const rt::Tensor& x = a[k].tensor();
    const rt::Tensor& y = b[k].tensor();
    ASSERT_EQ(x.shape, y.shape) << what << " output " << k;
    ASSERT_EQ(x.dtype, y.dtype) << what << " output " << k;
    EXPECT_EQ(0, std::memcmp(x.data, y.data, static_cast<size_t>(x.nbytes()))) << what << " output " << k;
  }
}

std::vector<double> Ramp(int64_t n, double scale = 1.0) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(0.7 * static_cast<double>(i) + 0.3) * scale;
  return v;
}

// Resize on x [1, 2, h, w] with constant scales or sizes: the symbolic-dims lowering takes the
// run-time path (resize_runtime.cpp) and must equal the static one.
void CompareResize(std::vector<onnx::OnnxAttribute> attrs, const std::vector<double>& scales,
                   const Ints& sizes, int64_t h, int64_t w, int64_t opset = 19) {
  std::vector<NodeInput> inputs{{{1, 2, h, w}, Ramp(2 * h * w, 10.0)}, {{0}, {}, ir::DType::F32, true}};
  if (!scales.empty())
    inputs.push_back({{static_cast<int64_t>(scales.size())}, scales, ir::DType::F32, true});
  else
    inputs.push_back({{0}, {}, ir::DType::F32, true});
  if (!sizes.empty())
    inputs.push_back(
        {{static_cast<int64_t>(sizes.size())}, Doubles(sizes.begin(), sizes.end()), ir::DType::I64, true});
  onnx::OnnxModel m = OneNodeModel("Resize", opset, inputs, attrs, 1);
  rt::Tensor x = MakeTensor(ir::DType::F32, {1, 2, h, w}, Ramp(2 * h * w, 10.0));
  std::string what;
  for (const auto& a : attrs) what += a.name + "=" + a.s + " ";
  what += "h=" + std::to_string(h) + " w=" + std::to_string(w);
  std::vector<rt::RtValue> fixed = RunModel(m, {x});
  std::vector<rt::RtValue> dynamic = RunModel(Dynamic(m), {x});
  ExpectSameOutputs(fixed, dynamic, what);
}

TEST(RuntimeShapes, ResizeEveryModeAndCoordinateMatchesStatic) {
  const char* coords[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"};
  const char* nearest[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  for (const char* c : coords) {
    for (const char* nm : nearest)
      CompareResize({StrAttr("mode", "nearest"), StrAttr("coordinate_transformation_mode", c),
                     StrAttr("nearest_mode", nm)},
                    {1, 1, 2.5f, 0.6f}, {}, 3, 5);
    for (const char* mode : {"linear", "cubic"}) {
      CompareResize({StrAttr("mode", mode), StrAttr("coordinate_transformation_mode", c)}, {1, 1, 1.7f, 0.5f},
                    {}, 4, 6);
      CompareResize({StrAttr("mode", mode), StrAttr("coordinate_transformation_mode", c)}, {}, {1, 2, 7, 1},
                    3, 4);
      CompareResize({StrAttr("mode", mode), StrAttr("coordinate_transformation_mode", c)}, {}, {1, 2, 1, 9},
                    1, 3);
    }
  }
  CompareResize(
      {StrAttr("mode", "nearest"), StrAttr("coordinate_transformation_mode", "tf_half_pixel_for_nn")},
      {1, 1, 2, 3}, {}, 2, 2, 11);
}

TEST(RuntimeShapes, ResizeRefusesWhatNeedsBuildTimeExtentsNamingTheInput) {
  onnx::OnnxModel m = Dynamic(OneNodeModel("Resize", 19,
                                           {{{1, 1, 4, 4}, Ramp(16)},
                                            {{0}, {}, ir::DType::F32, true},
                                            {{4}, {1, 1, 0.5, 0.5}, ir::DType::F32, true}},
                                           {StrAttr("mode", "linear"), IntAttr("antialias", 1)}, 1));
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_FALSE(g.has_value());
  EXPECT_EQ(g.status().code(), ErrorCode::kUnsupported);
  const std::string msg = g.status().to_string();
  EXPECT_NE(msg.find("antialias"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'i0'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("plumb run"), std::string::npos) << msg;
}

// Resize sizes as a graph input (a computed tensor): a run-time operand, at any value.
TEST(RuntimeShapes, ResizeSizesFromAGraphInput) {
  onnx::OnnxModel computed = OneNodeModel("Resize", 19,
                                          {{{1, 1, 3, 4}, Ramp(12)},
                                           {{0}, {}, ir::DType::F32, true},
                                           {{0}, {}, ir::DType::F32, true},
                                           {{4}, {1, 1, 5, 2}, ir::DType::I64}},
                                          {StrAttr("mode", "linear")}, 1);
  rt::Tensor x = MakeTensor(ir::DType::F32, {1, 1, 3, 4}, Ramp(12));
  for (const Ints& sizes : {Ints{1, 1, 5, 2}, Ints{1, 1, 1, 7}, Ints{1, 1, 0, 3}}) {
    onnx::OnnxModel fixed = OneNodeModel("Resize", 19,
                                         {{{1, 1, 3, 4}, Ramp(12)},
                                          {{0}, {}, ir::DType::F32, true},
                                          {{0}, {}, ir::DType::F32, true},
                                          {{4}, Doubles(sizes.begin(), sizes.end()), ir::DType::I64, true}},
                                         {StrAttr("mode", "linear")}, 1);
    ExpectSameOutputs(
        RunModel(fixed, {x}),
        RunModel(computed, {x, MakeTensor(ir::DType::I64, {4}, Doubles(sizes.begin(), sizes.end()))}),
        "sizes");
  }
}

// TopK with k a graph input; k beyond the axis is the run-time error of the TopK node.
TEST(RuntimeShapes, TopKComputedK) {
  const Doubles data{3, 1, 4, 1, 5, 9, 2, 6};
  onnx::OnnxModel m = OneNodeModel("TopK", 11, {{{2, 4}, data}, {{1}, {2}, ir::DType::I64}}, {}, 2);
  for (int64_t k : {0, 1, 4}) {
    onnx::OnnxModel fixed =
        OneNodeModel("TopK", 11, {{{2, 4}, data}, {{1}, {double(k)}, ir::DType::I64, true}}, {}, 2);
    rt::Tensor x = MakeTensor(ir::DType::F32, {2, 4}, data);
    ExpectSameOutputs(RunModel(fixed, {x}),
                      RunModel(Dynamic(m), {x, MakeTensor(ir::DType::I64, {1}, {double(k)})}),
                      "k=" + std::to_string(k));
  }
  Status err;
  RunModel(m, {MakeTensor(ir::DType::F32, {2, 4}, data), MakeTensor(ir::DType::I64, {1}, {5})}, &err);
  EXPECT_FALSE(err.is_ok());
  EXPECT_NE(err.to_string().find("'n0' (TopK"), std::string::npos) << err.to_string();
}

// Runs `op` twice: with parameter input 1 a constant (the static lowering) and with it a graph
// input (the run-time one), on the same data; the outputs must be identical.
void CompareParam(const std::string& op, int64_t opset, const NodeInput& x, const NodeInput& param,
                  std::vector<onnx::OnnxAttribute> attrs, std::vector<NodeInput> rest = {}) {
  NodeInput as_const = param, as_input = param;
  as_const.constant = true;
  as_input.constant = false;
  std::vector<NodeInput> fixed_in{x, as_const}, dyn_in{x, as_input};
  for (const NodeInput& r : rest) fixed_in.push_back(r), dyn_in.push_back(r);
  const onnx::OnnxModel fixed = OneNodeModel(op, opset, fixed_in, attrs, 1);
  const onnx::OnnxModel dynamic = Dynamic(OneNodeModel(op, opset, dyn_in, attrs, 1));
  rt::Tensor xv = MakeTensor(x.dtype, x.shape, x.data);
  ExpectSameOutputs(RunModel(fixed, {xv}),
                    RunModel(dynamic, {xv, MakeTensor(param.dtype, param.shape, param.data)}), op);
}

TEST(RuntimeShapes, TilePadOneHotWithRunTimeParameters) {
  const NodeInput x{{2, 3}, Ramp(6)};
  CompareParam("Tile", 13, x, {{2}, {2, 3}, ir::DType::I64}, {});
  CompareParam("Tile", 13, x, {{2}, {0, 1}, ir::DType::I64}, {});
  CompareParam("Pad", 13, x, {{4}, {1, -1, 0, 2}, ir::DType::I64}, {StrAttr("mode", "constant")});
  CompareParam("Pad", 13, x, {{4}, {0, 2, 1, 1}, ir::DType::I64}, {StrAttr("mode", "reflect")});
  CompareParam("Pad", 13, x, {{4}, {-1, 0, 0, -2}, ir::DType::I64}, {StrAttr("mode", "edge")});
  const NodeInput values{{2}, {0, 5}, ir::DType::F32, true};
  CompareParam("OneHot", 11, {{2, 2}, {0, 3, -1, 1}, ir::DType::I64}, {{1}, {4}, ir::DType::I64},
               {IntAttr("axis", 1)}, {values});
  CompareParam("OneHot", 11, {{3}, {2, 0, 1}, ir::DType::I64}, {{}, {3.0}, ir::DType::F32}, {}, {values});
}

// A parameter that decides the rank stays a build-time value: the refusal names it, the graph
// input it is computed from, and says that a run with data works.
TEST(RuntimeShapes, RankChangingParameterRefusalSaysWhatWorks) {
  onnx::OnnxModel m = OneNodeModel("ReduceSum", 13, {{{2, 3}, {}}, {{1}, {}, ir::DType::I64}}, {}, 1);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_FALSE(g.has_value());
  const std::string msg = g.status().to_string();
  EXPECT_EQ(g.status().code(), ErrorCode::kUnsupported) << msg;
  EXPECT_NE(msg.find("'i1'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank"), std::string::npos) << msg;
  EXPECT_NE(msg.find("plumb run or plumb check with input data"), std::string::npos) << msg;
}

// Reshape to a shape computed from constants (Concat of two constants): the builder folds the
// concat as it emits it, so the result type is static (before, it was f32[?,?]).
TEST(RuntimeShapes, ShapeArithmeticOnConstantsFoldsAsBuilt) {
  MultiNode g(17);
  g.Input("x", ir::DType::F32, {2, 3}, Ramp(6));
  g.Const("a", ir::DType::I64, {1}, {3});
  g.Const("b", ir::DType::I64, {1}, {2});
  g.Add(Node("Concat", {"a", "b"}, {"s"}, {IntAttr("axis", 0)}));
  g.Add(Node("Reshape", {"x", "s"}, {"y"}));
  g.Output("y");
  auto lowered = lower::lower_model(g.m, rt::RefEvaluator());
  ASSERT_TRUE(lowered.has_value()) << lowered.status().to_string();
  const ir::Graph& core = *lowered;
  EXPECT_EQ(ir::type_to_string(core.type_of(core.body.results[0])), "f32[3,2]");
  for (const ir::Node& n : core.body.nodes) EXPECT_NE(n.op, ir::Op::Concat);
}

// With input values at hand (plumb run/check), the lowering specializes on their shapes first:
// a symbolic input becomes static, so Shape -> ... -> Reshape folds to constants.
TEST(RuntimeShapes, OfferedValuesSpecializeInputShapes) {
  onnx::OnnxModel m = Dynamic(OneNodeModel("Shape", 15, {{{2, 3}, Ramp(6)}}, {}, 1));
  lower::LowerOptions o;
  o.input_values["i0"] = OnnxTensor("i0", ir::DType::F32, {2, 3}, Ramp(6));
  auto l = lower::lower_model_specialized(m, rt::RefEvaluator(), o);
  ASSERT_TRUE(l.has_value()) << l.status().to_string();
  EXPECT_EQ(ir::type_to_string(l->graph.type_of(l->graph.body.params[0])), "f32[2,3]");
  ASSERT_EQ(l->graph.body.nodes.size(), 1u);
  EXPECT_EQ(l->graph.body.nodes[0].op, ir::Op::Constant);
  // A value that does not fit the declared type leaves it alone (the run rejects it).
  o.input_values["i0"] = OnnxTensor("i0", ir::DType::F32, {6}, Ramp(6));
  auto other = lower::lower_model_specialized(m, rt::RefEvaluator(), o);
  ASSERT_TRUE(other.has_value()) << other.status().to_string();
  EXPECT_EQ(ir::type_to_string(other->graph.type_of(other->graph.body.params[0])), "f32[?,?]");
}

}  // namespace
}  // namespace plumb::testing
