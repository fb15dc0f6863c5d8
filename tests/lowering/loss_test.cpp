// Lowering of ONNX NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (lowering/onnx/loss.cpp):
// one-node models built by hand, lowered, run on ref, compared with values worked out by hand from
// the ONNX definition.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "frontends/onnx/model.h"
#include "lowering/onnx/driver.h"
#include "runtime/ref_evaluator.h"
#include "runtime/session.h"

namespace plumb {
namespace {

using Ints = std::vector<int64_t>;
using Doubles = std::vector<double>;

onnx::OnnxAttribute IntAttr(const std::string& name, int64_t v) {
  onnx::OnnxAttribute a;
  a.name = name;
  a.type = onnx::AttrType::Int;
  a.i = v;
  return a;
}
onnx::OnnxAttribute StrAttr(const std::string& name, std::string v) {
  onnx::OnnxAttribute a;
  a.name = name;
  a.type = onnx::AttrType::String;
  a.s = std::move(v);
  return a;
}

struct In {
  ir::DType dt;
  Ints shape;
  Doubles data;
  bool symbolic = false;  // declare every dim symbolic (unrelated names) instead of static
};

ir::Type DeclaredType(const In& in, size_t input) {
  if (!in.symbolic) return ir::Type::tensor(in.dt, ir::static_shape(in.shape));
  ir::Shape s;
  for (size_t i = 0; i < in.shape.size(); ++i)
    s.push_back(ir::Dim::symbolic("i" + std::to_string(input) + "d" + std::to_string(i)));
  return ir::Type::tensor(in.dt, s);
}

struct Result {
  Status lowered;  // lowering / session creation
  Status ran;      // run
  std::vector<rt::RtValue> outputs;
};

// Runs a one-node model (inputs i0, i1, ..., outputs o0, o1, ...).
Result RunNode(const std::string& op, int64_t opset, const std::vector<In>& inputs,
               std::vector<onnx::OnnxAttribute> attrs, size_t num_outputs = 1) {
  Result res;
  onnx::OnnxModel m;
  m.ir_version = 8;
  m.opsets[""] = opset;
  onnx::OnnxNode n;
  n.op_type = op;
  n.attributes = std::move(attrs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "i" + std::to_string(i);
    n.inputs.push_back(name);
    m.graph.inputs.push_back({name, DeclaredType(inputs[i], i)});
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    const std::string name = "o" + std::to_string(i);
    n.outputs.push_back(name);
    m.graph.outputs.push_back({name, std::nullopt});
  }
  m.graph.nodes.push_back(n);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  if (!g.has_value()) {
    res.lowered = g.status();
    return res;
  }
  auto s = rt::Session::create(std::move(*g));
  if (!s.has_value()) {
    res.lowered = s.status();
    return res;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    rt::Tensor t = rt::Tensor::allocate(inputs[i].dt, inputs[i].shape);
    for (size_t k = 0; k < inputs[i].data.size(); ++k) {
      const double v = inputs[i].data[k];
      switch (inputs[i].dt) {
        case ir::DType::F32: t.as<float>()[k] = static_cast<float>(v); break;
        case ir::DType::F64: t.as<double>()[k] = v; break;
        case ir::DType::F16: t.as<uint16_t>()[k] = static_cast<uint16_t>(v); break;  // raw bits
        case ir::DType::I32: t.as<int32_t>()[k] = static_cast<int32_t>(v); break;
        case ir::DType::I64: t.as<int64_t>()[k] = static_cast<int64_t>(v); break;
        default: ADD_FAILURE() << "unsupported test dtype";
      }
    }
    EXPECT_TRUE((*s)->set_input(i, t).is_ok());
  }
  res.ran = (*s)->run();
  if (res.ran.is_ok()) res.outputs = (*s)->outputs();
  return res;
}

Doubles Values(const rt::RtValue& v) {
  const rt::Tensor& t = v.tensor();
  Doubles out;
  for (int64_t k = 0; k < t.numel(); ++k)
    out.push_back(t.dtype == ir::DType::F64 ? t.as<double>()[k] : static_cast<double>(t.as<float>()[k]));
  return out;
}

// Runs and expects success with `want` (within 1e-6 relative) in output `k`, of shape `shape`.
void ExpectOutput(const Result& r, size_t k, const Ints& shape, const Doubles& want) {
  ASSERT_TRUE(r.lowered.is_ok()) << r.lowered.to_string();
  ASSERT_TRUE(r.ran.is_ok()) << r.ran.to_string();
  ASSERT_GT(r.outputs.size(), k);
  EXPECT_EQ(r.outputs[k].tensor().shape, shape);
  Doubles got = Values(r.outputs[k]);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-6 * std::fabs(want[i]) + 1e-7) << i;
}

// x[3, 3]: row n holds -(3n+1), -(3n+2), -(3n+3); picking class c of row n loses 3n + c + 1.
const In kX{ir::DType::F32, {3, 3}, {-1, -2, -3, -4, -5, -6, -7, -8, -9}};
const In kTarget{ir::DType::I64, {3}, {2, 0, 1}};    // losses 3, 4, 8
const In kWeight{ir::DType::F32, {3}, {0.5, 1, 2}};  // per-position weights 2, 0.5, 1

TEST(LowerNll, ReductionNone) {
  ExpectOutput(RunNode("NegativeLogLikelihoodLoss", 13, {kX, kTarget}, {StrAttr("reduction", "none")}), 0,
               {3}, {3, 4, 8});
}

TEST(LowerNll, ReductionSum) {
  ExpectOutput(RunNode("NegativeLogLikelihoodLoss", 13, {kX, kTarget}, {StrAttr("reduction", "sum")}), 0, {},
               {15});
}

TEST(LowerNll, ReductionMeanIsDefault) {
  ExpectOutput(RunNode("NegativeLogLikelihoodLoss", 12, {kX, kTarget}, {}), 0, {}, {5});
}

TEST(LowerNll, WeightNone) {
  ExpectOutput(
      RunNode("NegativeLogLikelihoodLoss", 13, {kX, kTarget, kWeight}, {StrAttr("reduction", "none")}), 0,
      {3}, {6, 2, 8});
}

TEST(LowerNll, WeightSum) {
  ExpectOutput(
      RunNode("NegativeLogLikelihoodLoss", 22, {kX, kTarget, kWeight}, {StrAttr("reduction", "sum")}), 0, {},
      {16});
}

TEST(LowerNll, WeightMeanDividesByWeightSum) {
  // (6 + 2 + 8) / (2 + 0.5 + 1)
  ExpectOutput(RunNode("NegativeLogLikelihoodLoss", 13, {kX, kTarget, kWeight}, {}), 0, {}, {16.0 / 3.5});
}

TEST(LowerNll, IgnoreIndexNone) {
  ExpectOutput(RunNode("NegativeLogLikelihoodLoss", 13, {kX, kTarget},
                       {StrAttr("reduction", "none"), IntAttr("ignore_index", 0)}),
               0, {3}, {3, 0, 8});
}

TEST(LowerNll, IgnoreIndexMeanCountsOnlyKeptPositions) {
  ExpectOutput(RunNode("NegativeLogLikelihoodLoss", 13, {kX, kTarget}, {IntAttr("ignore_index", 0)}), 0, {},
               {11.0 / 2});
}

TEST(LowerNll, IgnoreIndexWeightMean) {
  // Kept positions 0 and 2: (6 + 8) / (2 + 1).
  ExpectOutput(RunNode("NegativeLogLikelihoodLoss", 13, {kX, kTarget, kWeight}, {IntAttr("ignore_index", 0)}),
               0, {}, {14.0 / 3});
}

TEST(LowerNll, NegativeIgnoreIndexOutsideClassRange) {
  // The ignored target -1 is never used as an index; the run succeeds.
  In t{ir::DType::I64, {3}, {2, -1, 1}};
  ExpectOutput(RunNode("NegativeLogLikelihoodLoss", 13, {kX, t, kWeight},
                       {StrAttr("reduction", "none"), IntAttr("ignore_index", -1)}),
               0, {3}, {6, 0, 8});
}

TEST(LowerNll, AllIgnoredMeanIsNaN) {
  In t{ir::DType::I64, {3}, {1, 1, 1}};
  Result r = RunNode("NegativeLogLikelihoodLoss", 13, {kX, t}, {IntAttr("ignore_index", 1)});
  ASSERT_TRUE(r.ran.is_ok()) << r.ran.to_string();
  EXPECT_TRUE(std::isnan(Values(r.outputs[0])[0]));
}

TEST(LowerNll, OutOfRangeTargetIsRuntimeError) {
  In t{ir::DType::I64, {3}, {2, 3, 1}};
  Result r = RunNode("NegativeLogLikelihoodLoss", 13, {kX, t}, {StrAttr("reduction", "none")});
  ASSERT_TRUE(r.lowered.is_ok()) << r.lowered.to_string();
  EXPECT_EQ(r.ran.code(), ErrorCode::kRuntimeError) << r.ran.to_string();
  EXPECT_EQ(r.ran.label(), "gather.R1");
}

TEST(LowerNll, NegativeTargetNotIgnoredIsRuntimeError) {
  In t{ir::DType::I32, {3}, {2, -1, 1}};
  Result r = RunNode("NegativeLogLikelihoodLoss", 13, {kX, t}, {IntAttr("ignore_index", 5)});
  EXPECT_EQ(r.ran.code(), ErrorCode::kRuntimeError) << r.ran.to_string();
  EXPECT_EQ(r.ran.label(), "gather.R1");
}

TEST(LowerNll, SpatialDimsInt32Target) {
  // x[1, 2, 2]: x[0][c][d] flattened as c*2 + d = {-1, -3, -2, -4}. target [[1, 0]]:
  // loss[0][0] = -x[0][1][0] = 2, loss[0][1] = -x[0][0][1] = 3.
  In x{ir::DType::F32, {1, 2, 2}, {-1, -3, -2, -4}};
  In t{ir::DType::I32, {1, 2}, {1, 0}};
  ExpectOutput(RunNode("NegativeLogLikelihoodLoss", 13, {x, t}, {StrAttr("reduction", "none")}), 0, {1, 2},
               {2, 3});
}

TEST(LowerNll, IgnoredInfInputGivesPlusZero) {
  In x{ir::DType::F64, {2, 2}, {-INFINITY, -1, -2, -3}};
  In t{ir::DType::I64, {2}, {0, 1}};
  Result r = RunNode("NegativeLogLikelihoodLoss", 13, {x, t},
                     {StrAttr("reduction", "none"), IntAttr("ignore_index", 0)});
  ExpectOutput(r, 0, {2}, {0, 3});
  if (!r.outputs.empty()) {
    EXPECT_FALSE(std::signbit(Values(r.outputs[0])[0]));
  }
}

TEST(LowerNll, TargetShapeMismatchIsInvalidModel) {
  In t{ir::DType::I64, {2}, {0, 1}};
  Result r = RunNode("NegativeLogLikelihoodLoss", 13, {kX, t}, {});
  EXPECT_EQ(r.lowered.code(), ErrorCode::kInvalidModel) << r.lowered.to_string();
}

TEST(LowerNll, BadReductionIsInvalidModel) {
  Result r = RunNode("NegativeLogLikelihoodLoss", 13, {kX, kTarget}, {StrAttr("reduction", "max")});
  EXPECT_EQ(r.lowered.code(), ErrorCode::kInvalidModel) << r.lowered.to_string();
}

TEST(LowerNll, SymbolicShapes) {
  // LowerNll.SpatialDimsInt32Target with every dim symbolic: the target's reshape to [N, 1, d1]
  // is computed from shape_of.
  In x{ir::DType::F32, {1, 2, 2}, {-1, -3, -2, -4}, true};
  In t{ir::DType::I64, {1, 2}, {1, 0}, true};
  In w{ir::DType::F32, {2}, {10, 100}, true};
  ExpectOutput(RunNode("NegativeLogLikelihoodLoss", 13, {x, t, w}, {StrAttr("reduction", "none")}), 0, {1, 2},
               {200, 30});
  // mean: (200 + 30) / (100 + 10)
  ExpectOutput(RunNode("NegativeLogLikelihoodLoss", 13, {x, t, w}, {}), 0, {}, {230.0 / 110});
}

TEST(LowerNll, Float16RoundsOnceAtTheEnd) {
  // f16 bits: -1 = 0xBC00, -2 = 0xC000, -3 = 0xC200, -4 = 0xC400; x[2, 2] = {{-1, -2}, {-3, -4}}.
  // target {1, 0}: losses 2 and 3, sum 5 = 0x4500.
  In x{ir::DType::F16, {2, 2}, {0xBC00, 0xC000, 0xC200, 0xC400}};
  In t{ir::DType::I64, {2}, {1, 0}};
  Result r = RunNode("NegativeLogLikelihoodLoss", 22, {x, t}, {StrAttr("reduction", "sum")});
  ASSERT_TRUE(r.lowered.is_ok()) << r.lowered.to_string();
  ASSERT_TRUE(r.ran.is_ok()) << r.ran.to_string();
  const rt::Tensor& y = r.outputs[0].tensor();
  ASSERT_EQ(y.dtype, ir::DType::F16);
  EXPECT_EQ(y.as<uint16_t>()[0], 0x4500);
}

TEST(LowerSce, UniformScoresGiveLog2) {
  // scores [0, 0]: log_softmax = [-ln 2, -ln 2]; target 1 loses ln 2.
  In x{ir::DType::F32, {1, 2}, {0, 0}};
  In t{ir::DType::I64, {1}, {1}};
  Result r = RunNode("SoftmaxCrossEntropyLoss", 13, {x, t}, {StrAttr("reduction", "none")}, 2);
  ExpectOutput(r, 0, {1}, {std::log(2.0)});
  ExpectOutput(r, 1, {1, 2}, {-std::log(2.0), -std::log(2.0)});
}

TEST(LowerSce, WeightedMeanWithIgnore) {
  // Row 0 scores [0, ln 3]: softmax [1/4, 3/4], target 0 loses ln 4 (weight 2).
  // Row 1 scores [5, 5]: softmax [1/2, 1/2], target 1 loses ln 2 (weight 3).
  // Row 2 is ignored. mean = (2 ln 4 + 3 ln 2) / (2 + 3) = 7 ln 2 / 5.
  In x{ir::DType::F64, {3, 2}, {0, std::log(3.0), 5, 5, 1, 2}};
  In t{ir::DType::I64, {3}, {0, 1, -100}};
  In w{ir::DType::F64, {2}, {2, 3}};
  Result r = RunNode("SoftmaxCrossEntropyLoss", 12, {x, t, w}, {IntAttr("ignore_index", -100)});
  ExpectOutput(r, 0, {}, {7 * std::log(2.0) / 5});
}

TEST(LowerSce, SumOverSpatialDims) {
  // x[1, 2, 2] with x[0][:, 0] = [0, 0] and x[0][:, 1] = [0, ln 3]; targets [1, 1]:
  // ln 2 + ln(4/3).
  In x{ir::DType::F32, {1, 2, 2}, {0, 0, 0, static_cast<double>(std::log(3.0f))}};
  In t{ir::DType::I64, {1, 2}, {1, 1}};
  ExpectOutput(RunNode("SoftmaxCrossEntropyLoss", 13, {x, t}, {StrAttr("reduction", "sum")}), 0, {},
               {std::log(2.0) + std::log(4.0 / 3.0)});
}

}  // namespace
}  // namespace plumb
