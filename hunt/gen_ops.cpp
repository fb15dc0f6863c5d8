// plumb gen's op recipes (docs/gen.md): each picks a float32 value of the pool (the latest one most
// often, so that ops form chains along data edges), checks that the op applies to it, and adds the
// node with attributes and constant inputs valid at the model's opset. Which inputs and attributes
// an op has at that opset (axes as an attribute or an input, dilations of a pool) and which types a
// Cast may target come from libonnx's schemas; output shapes are the recipes' hand-written rules
// (hunt/gen_recipes_compute.cpp, gen_recipes_data.cpp; the schemas hold them as inference code, not as data),
// checked by libonnx's full check in tests/cli/gen.sh. Values stay well-conditioned by construction: a value
// whose bound exceeds kMaxBound is first scaled by a power of two, weights are scaled by 1/fan-in, variances
// of BatchNormalization are in [0.5, 1.5], LayerNormalization's input gets a ramp that keeps its variance far
// from 0, comparisons read only exact values.
#include <vector>

#include "hunt/gen_graph.h"
#include "hunt/gen_recipe.h"

namespace plumb::hunt::gen {

const std::vector<OpRecipe>& op_recipes() {
  using namespace recipe;
  static const std::vector<OpRecipe> recipes = {
      {"Abs", "unary", unary},
      {"Neg", "unary", unary},
      {"Relu", "unary", unary},
      {"Sigmoid", "unary", unary},
      {"Tanh", "unary", unary},
      {"Add", "binary", binary},
      {"Sub", "binary", binary},
      {"Mul", "binary", binary},
      {"Max", "binary", binary},
      {"Min", "binary", binary},
      {"MatMul", "matmul", matmul},
      {"Gemm", "matmul", gemm},
      {"Conv", "conv", conv},
      {"ConvTranspose", "conv", conv_transpose},
      {"BatchNormalization", "norm", batch_normalization},
      {"LayerNormalization", "norm", layer_normalization},
      {"Sqrt", "norm", layer_norm_decomposed},
      {"Clip", "activation", clip},
      {"Erf", "activation", gelu},
      {"Pad", "activation", pad},
      {"MaxPool", "pool", pool},
      {"AveragePool", "pool", pool},
      {"GlobalAveragePool", "pool", global_pool},
      {"GlobalMaxPool", "pool", global_pool},
      {"ReduceSum", "reduce", reduce},
      {"ReduceMean", "reduce", reduce},
      {"ReduceMax", "reduce", reduce},
      {"ReduceMin", "reduce", reduce},
      {"ReduceProd", "reduce", reduce},
      {"ReduceL1", "reduce", reduce},
      {"ReduceL2", "reduce", reduce},
      {"ReduceSumSquare", "reduce", reduce},
      {"ReduceLogSumExp", "reduce", reduce},
      {"Softmax", "softmax", softmax},
      {"LogSoftmax", "softmax", softmax},
      {"Reshape", "shape", reshape_op},
      {"Transpose", "shape", transpose},
      {"Flatten", "shape", flatten},
      {"Squeeze", "shape", squeeze},
      {"Unsqueeze", "shape", unsqueeze},
      {"Shape", "shape", shape_reshape},
      {"Expand", "shape", expand},
      {"Concat", "gather", concat},
      {"Split", "gather", split},
      {"Slice", "gather", slice},
      {"Gather", "gather", gather},
      {"Where", "where", where},
      {"Equal", "where", where},
      {"Greater", "where", where},
      {"GreaterOrEqual", "where", where},
      {"Less", "where", where},
      {"LessOrEqual", "where", where},
      {"Cast", "cast", cast},
  };
  return recipes;
}

}  // namespace plumb::hunt::gen
