// MatMul's lowering of a batch times a 2-D weight: the batch folds into the rows (no broadcast copy
// of the weight), with the numpy result for static and symbolic batch dims.
#include "runtime/ref_evaluator.h"
#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

std::vector<double> Iota(int64_t n, double scale) {
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(scale * static_cast<double>((i * 7) % 11 - 5));
  return v;
}

// numpy matmul of a [B, M, K] by w [K, N], written out.
std::vector<double> Reference(const std::vector<double>& a, const std::vector<double>& w, int64_t rows,
                              int64_t k, int64_t n) {
  std::vector<double> y(static_cast<size_t>(rows * n), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t q = 0; q < k; ++q) y[r * n + j] += a[r * k + q] * w[q * n + j];
  return y;
}

int CountOps(const ir::Graph& g, ir::Op op) {
  int c = 0;
  for (const ir::Node& n : g.body.nodes) c += n.op == op;
  return c;
}

TEST(LowerMatMul, BatchTimesMatrixFoldsBatchIntoRows) {
  const std::vector<double> a = Iota(2 * 3 * 4, 0.5), w = Iota(4 * 5, 0.25);
  onnx::OnnxModel m = OneNodeModel("MatMul", 13, {{{2, 3, 4}, a}, {{4, 5}, w, ir::DType::F32, true}}, {}, 1);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  EXPECT_EQ(CountOps(*g, ir::Op::Broadcast), 0) << "the weight is broadcast over the batch";
  const ir::Type& out = g->type_of(g->body.results[0]);
  EXPECT_EQ(ir::type_to_string(out), "f32[2,3,5]");
  auto y = RunOneNode("MatMul", 13, {{{2, 3, 4}, a}, {{4, 5}, w, ir::DType::F32, true}}, {}, 1);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().shape, (Ints{2, 3, 5}));
  EXPECT_EQ(Values(y[0]), Reference(a, w, 6, 4, 5));
}

TEST(LowerMatMul, SymbolicBatchTimesMatrix) {
  const std::vector<double> a = Iota(2 * 1 * 3 * 4, 1.0), w = Iota(4 * 2, 2.0);
  onnx::OnnxModel m = OneNodeModel("MatMul", 13, {{{2, 1, 3, 4}, a}, {{4, 2}, w}}, {}, 1);
  m.graph.inputs[0].type = ir::Type::tensor(
      ir::DType::F32,
      ir::Shape{ir::Dim::symbolic("b"), ir::Dim::symbolic("h"), ir::Dim::symbolic("s"), ir::Dim{4}});
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  EXPECT_EQ(CountOps(*g, ir::Op::Broadcast), 0);
  auto s = rt::Session::create(std::move(*g));
  ASSERT_TRUE(s.has_value()) << s.status().to_string();
  ASSERT_TRUE((*s)->set_input(0, MakeTensor(ir::DType::F32, {2, 1, 3, 4}, a)).is_ok());
  ASSERT_TRUE((*s)->set_input(1, MakeTensor(ir::DType::F32, {4, 2}, w)).is_ok());
  ASSERT_TRUE((*s)->run().is_ok());
  EXPECT_EQ((*s)->output(0).tensor().shape, (Ints{2, 1, 3, 2}));
  EXPECT_EQ(Values((*s)->output(0)), Reference(a, w, 6, 4, 2));
}

TEST(LowerMatMul, EmptyBatchTimesMatrix) {
  auto y = RunOneNode("MatMul", 13, {{{0, 3, 4}, {}}, {{4, 2}, Iota(8, 1.0)}}, {}, 1);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().shape, (Ints{0, 3, 2}));
}

TEST(LowerMatMul, BatchTimesVector) {
  const std::vector<double> a = Iota(2 * 3 * 4, 1.0), v = Iota(4, 1.0);
  auto y = RunOneNode("MatMul", 13, {{{2, 3, 4}, a}, {{4}, v}}, {}, 1);
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0].tensor().shape, (Ints{2, 3}));
  EXPECT_EQ(Values(y[0]), Reference(a, v, 6, 4, 1));
}

}  // namespace
}  // namespace plumb::testing
