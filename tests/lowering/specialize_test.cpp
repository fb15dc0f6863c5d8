// Ruling R1 of spec/onnx-rulings.md: parameters ONNX takes as inputs are found at build time, by
// folding constant computations or by specializing on offered input values.
#include "runtime/ref_evaluator.h"
#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

onnx::Tensor I64Tensor(const std::string& name, Ints dims, const std::vector<int64_t>& v) {
  const auto* p = reinterpret_cast<const uint8_t*>(v.data());
  return onnx::Tensor::owned(name, ir::DType::I64, std::move(dims),
                             std::vector<uint8_t>(p, p + v.size() * 8));
}

TEST(LowerSpecialize, AxesFromGraphInputNeedAValue) {
  onnx::OnnxModel m = OneNodeModel("ReduceSum", 13, {{{2, 3}, {}}, {{1}, {}, ir::DType::I64}}, {}, 1);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_FALSE(g.has_value());
  EXPECT_EQ(g.status().code(), ErrorCode::kUnsupported) << g.status().to_string();
  EXPECT_NE(g.status().to_string().find("axes"), std::string::npos) << g.status().to_string();
}

TEST(LowerSpecialize, AxesFromOfferedInputValue) {
  onnx::OnnxModel m = OneNodeModel("ReduceSum", 13, {{{2, 3}, {}}, {{1}, {}, ir::DType::I64}}, {}, 1);
  lower::LowerOptions o;
  o.input_values["i1"] = I64Tensor("i1", {1}, {-1});
  auto l = lower::lower_model_specialized(m, rt::RefEvaluator(), o);
  ASSERT_TRUE(l.has_value()) << l.status().to_string();
  EXPECT_EQ(l->specialized_inputs, std::vector<std::string>{"i1"});
  auto s = rt::Session::create(std::move(l->graph));
  ASSERT_TRUE(s.has_value()) << s.status().to_string();
  ASSERT_TRUE((*s)->set_input(0, MakeTensor(ir::DType::F32, {2, 3}, {1, 2, 3, 10, 20, 30})).is_ok());
  ASSERT_TRUE((*s)->set_input(1, MakeTensor(ir::DType::I64, {1}, {-1})).is_ok());
  ASSERT_TRUE((*s)->run().is_ok());
  EXPECT_EQ(Values((*s)->output(0)), (std::vector<double>{6, 60}));  // keepdims: shape [2, 1]
  EXPECT_EQ((*s)->output(0).tensor().shape, (Ints{2, 1}));
}

TEST(LowerSpecialize, OfferedValueOfAnotherDtypeIsNotUsed) {
  onnx::OnnxModel m = OneNodeModel("ReduceSum", 13, {{{2, 3}, {}}, {{1}, {}, ir::DType::I64}}, {}, 1);
  lower::LowerOptions o;
  const std::vector<int32_t> v{1};
  o.input_values["i1"] = onnx::Tensor::owned("i1", ir::DType::I32, {1}, {1, 0, 0, 0});
  auto l = lower::lower_model_specialized(m, rt::RefEvaluator(), o);
  ASSERT_FALSE(l.has_value());
  EXPECT_EQ(l.status().code(), ErrorCode::kUnsupported);
}

TEST(LowerSpecialize, UnusedOfferIsNotASpecialization) {
  onnx::OnnxModel m = OneNodeModel("Add", 14, {{{2}, {}}, {{2}, {}}}, {}, 1);
  lower::LowerOptions o;
  o.input_values["i1"] = onnx::Tensor::owned("i1", ir::DType::F32, {2}, std::vector<uint8_t>(8, 0));
  auto l = lower::lower_model_specialized(m, rt::RefEvaluator(), o);
  ASSERT_TRUE(l.has_value()) << l.status().to_string();
  EXPECT_TRUE(l->specialized_inputs.empty());
}

// Shape -> Gather -> Concat -> Reshape, as exporters write a flatten: the target shape folds at
// build time from the input's static shape, with no input value offered.
TEST(LowerSpecialize, ShapeChainFoldsWithoutValues) {
  onnx::OnnxModel m = OneNodeModel("Shape", 15, {{{2, 3, 4}, {}}}, {}, 1);
  m.graph.outputs.clear();
  onnx::OnnxNode gather;
  gather.op_type = "Gather";
  gather.name = "g";
  gather.inputs = {"o0", "idx"};
  gather.outputs = {"batch"};
  m.graph.initializers.push_back(I64Tensor("idx", {1}, {0}));
  m.graph.initializers.push_back(I64Tensor("minus1", {1}, {-1}));
  onnx::OnnxNode concat;
  concat.op_type = "Concat";
  concat.name = "c";
  concat.inputs = {"batch", "minus1"};
  concat.outputs = {"target"};
  concat.attributes = {IntAttr("axis", 0)};
  onnx::OnnxNode reshape;
  reshape.op_type = "Reshape";
  reshape.name = "r";
  reshape.inputs = {"i0", "target"};
  reshape.outputs = {"y"};
  m.graph.nodes.push_back(gather);
  m.graph.nodes.push_back(concat);
  m.graph.nodes.push_back(reshape);
  m.graph.outputs.push_back({"y", std::nullopt});
  auto l = lower::lower_model_specialized(m, rt::RefEvaluator(), {});
  ASSERT_TRUE(l.has_value()) << l.status().to_string();
  EXPECT_TRUE(l->specialized_inputs.empty());
  const ir::Type& out = l->graph.type_of(l->graph.body.results[0]);
  ASSERT_EQ(out.shape.size(), 2u);
  EXPECT_EQ(out.shape[0].size, 2);
  EXPECT_EQ(out.shape[1].size, 12);
}

// A bool graph input (Dropout's training_mode) specializes like an integer one.
TEST(LowerSpecialize, BoolInputValue) {
  onnx::OnnxModel m =
      OneNodeModel("Dropout", 13, {{{3}, {}}, {{}, {}, ir::DType::F32}, {{}, {}, ir::DType::Bool}}, {}, 1);
  lower::LowerOptions o;
  o.input_values["i2"] = onnx::Tensor::owned("i2", ir::DType::Bool, {}, {0});
  auto l = lower::lower_model_specialized(m, rt::RefEvaluator(), o);
  ASSERT_TRUE(l.has_value()) << l.status().to_string();
  EXPECT_EQ(l->specialized_inputs, std::vector<std::string>{"i2"});
}

// A 1-D MatMul operand of static length keeps the result's type static (no shape arithmetic).
TEST(LowerSpecialize, MatMulVectorKeepsStaticType) {
  onnx::OnnxModel m = OneNodeModel("MatMul", 13, {{{4}, {}}, {{2, 4, 1}, {}}}, {}, 1);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  const ir::Type& out = g->type_of(g->body.results[0]);
  ASSERT_EQ(out.shape.size(), 2u);
  EXPECT_EQ(out.shape[0].size, 2);
  EXPECT_EQ(out.shape[1].size, 1);
}

// ConstantOfShape of a shape computed from an offered input (AffineGrid's `size` split into its
// dims, as the ONNX function body does) gets a static type instead of a symbolic one.
TEST(LowerSpecialize, ConstantOfShapeFromOfferedShapeIsStatic) {
  onnx::OnnxModel m = OneNodeModel("ConstantOfShape", 20, {{{2}, {}, ir::DType::I64}}, {}, 1);
  lower::LowerOptions o;
  o.input_values["i0"] = I64Tensor("i0", {2}, {3, 4});
  auto l = lower::lower_model_specialized(m, rt::RefEvaluator(), o);
  ASSERT_TRUE(l.has_value()) << l.status().to_string();
  EXPECT_EQ(l->specialized_inputs, std::vector<std::string>{"i0"});
  const ir::Type& out = l->graph.type_of(l->graph.body.results[0]);
  ASSERT_EQ(out.shape.size(), 2u);
  EXPECT_EQ(out.shape[0].size, 3);
  EXPECT_EQ(out.shape[1].size, 4);
  // Without the value the result stays symbolic (and runs with the shape it is given).
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  EXPECT_FALSE(ir::shape_is_static(g->type_of(g->body.results[0]).shape));
}

// Expand's shape of statically unknown length: known once the input's value is offered.
TEST(LowerSpecialize, ExpandShapeOfUnknownLengthFromOfferedInput) {
  onnx::OnnxModel m = OneNodeModel("Expand", 13, {{{3}, {}}, {{2}, {}, ir::DType::I64}}, {}, 1);
  m.graph.inputs[1].type = ir::Type::tensor(ir::DType::I64, ir::Shape{ir::Dim::symbolic("n")});
  auto unspecialized = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_FALSE(unspecialized.has_value());
  EXPECT_EQ(unspecialized.status().code(), ErrorCode::kUnsupported);
  lower::LowerOptions o;
  o.input_values["i1"] = I64Tensor("i1", {2}, {2, 1});
  auto l = lower::lower_model_specialized(m, rt::RefEvaluator(), o);
  ASSERT_TRUE(l.has_value()) << l.status().to_string();
  EXPECT_EQ(l->specialized_inputs, std::vector<std::string>{"i1"});
  auto s = rt::Session::create(std::move(l->graph));
  ASSERT_TRUE(s.has_value()) << s.status().to_string();
  ASSERT_TRUE((*s)->set_input(0, MakeTensor(ir::DType::F32, {3}, {1, 2, 3})).is_ok());
  ASSERT_TRUE((*s)->set_input(1, MakeTensor(ir::DType::I64, {2}, {2, 1})).is_ok());
  ASSERT_TRUE((*s)->run().is_ok());
  EXPECT_EQ((*s)->output(0).tensor().shape, (Ints{2, 3}));
  EXPECT_EQ(Values((*s)->output(0)), (std::vector<double>{1, 2, 3, 1, 2, 3}));
}

}  // namespace
}  // namespace plumb::testing
