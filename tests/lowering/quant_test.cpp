// Lowering tests for lowering/onnx/quant.cpp: QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear, MatMulInteger, QLinearMatMul. Expected values are worked out by hand
// (rounding half to even, saturation) or taken from the ONNX operator documentation examples.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "runtime/ref_evaluator.h"
#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

using ir::DType;

// A tensor whose elements are given as raw runtime values: integers for integer dtypes (sub-byte
// ones one per byte), bit patterns for f16/bf16/f8/f4, numbers for f32/f64.
rt::Tensor Raw(DType dt, const Ints& shape, const std::vector<double>& v) {
  rt::Tensor t = rt::Tensor::allocate(dt, shape);
  EXPECT_EQ(static_cast<int64_t>(v.size()), t.numel());
  for (size_t k = 0; k < v.size(); ++k) {
    switch (dt) {
      case DType::F32: t.as<float>()[k] = static_cast<float>(v[k]); break;
      case DType::F64: t.as<double>()[k] = v[k]; break;
      case DType::I32: t.as<int32_t>()[k] = static_cast<int32_t>(v[k]); break;
      case DType::I16: t.as<int16_t>()[k] = static_cast<int16_t>(v[k]); break;
      case DType::U16:
      case DType::F16:
      case DType::BF16: t.as<uint16_t>()[k] = static_cast<uint16_t>(v[k]); break;
      case DType::I8:
      case DType::I4:
      case DType::I2: t.as<int8_t>()[k] = static_cast<int8_t>(v[k]); break;
      default: t.as<uint8_t>()[k] = static_cast<uint8_t>(v[k]); break;  // u8, u4, u2, f8*, f4
    }
  }
  return t;
}

// Reads elements back the way Raw writes them.
std::vector<double> RawValues(const rt::RtValue& val) {
  const rt::Tensor& t = val.tensor();
  std::vector<double> out(static_cast<size_t>(t.numel()));
  for (size_t k = 0; k < out.size(); ++k) {
    switch (t.dtype) {
      case DType::F32: out[k] = t.as<float>()[k]; break;
      case DType::F64: out[k] = t.as<double>()[k]; break;
      case DType::I32: out[k] = t.as<int32_t>()[k]; break;
      case DType::I16: out[k] = t.as<int16_t>()[k]; break;
      case DType::U16:
      case DType::F16:
      case DType::BF16: out[k] = t.as<uint16_t>()[k]; break;
      case DType::I8:
      case DType::I4:
      case DType::I2: out[k] = t.as<int8_t>()[k]; break;
      default: out[k] = t.as<uint8_t>()[k]; break;
    }
  }
  return out;
}

struct In {
  DType dt;
  Ints shape;
  std::vector<double> v;
};

// Lowers the one-node model (every input a graph input) and runs it. `status` receives the
// lowering or run status; on success the outputs are returned.
std::vector<rt::RtValue> RunQ(const std::string& op, int64_t opset, const std::vector<In>& ins,
                              std::vector<onnx::OnnxAttribute> attrs, size_t nout, Status* status = nullptr) {
  std::vector<NodeInput> decl;
  for (const In& in : ins) decl.push_back({in.shape, {}, in.dt, false});
  onnx::OnnxModel m = OneNodeModel(op, opset, decl, std::move(attrs), nout);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  if (!g.has_value()) {
    if (status)
      *status = g.status();
    else
      ADD_FAILURE() << g.status().to_string();
    return {};
  }
  auto s = rt::Session::create(std::move(*g));
  EXPECT_TRUE(s.has_value()) << s.status().to_string();
  if (!s.has_value()) return {};
  for (size_t k = 0; k < ins.size(); ++k)
    EXPECT_TRUE((*s)->set_input(k, Raw(ins[k].dt, ins[k].shape, ins[k].v)).is_ok());
  Status st = (*s)->run();
  if (status)
    *status = st;
  else
    EXPECT_TRUE(st.is_ok()) << st.to_string();
  if (!st.is_ok()) return {};
  return (*s)->outputs();
}

void ExpectExact(const std::vector<rt::RtValue>& out, size_t i, DType dt, const std::vector<double>& want) {
  ASSERT_GT(out.size(), i);
  EXPECT_EQ(out[i].tensor().dtype, dt);
  std::vector<double> got = RawValues(out[i]);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) EXPECT_EQ(got[k], want[k]) << "at " << k;
}

// ---- QuantizeLinear ----------------------------------------------------------------------------------

TEST(LowerQuantizeLinear, Opset10DefaultU8RoundsHalfToEvenAndSaturates) {
  // x / 2 = 0, 0.5, 1.25, 1.5, 2.5, -0.5, 300 -> 0, 0, 1, 2, 2, -0 -> 0, 255 (no zero point: u8, 0).
  auto out = RunQ("QuantizeLinear", 10,
                  {{DType::F32, {7}, {0, 1, 2.5, 3, 5, -1, 600}}, {DType::F32, {}, {2}}}, {}, 1);
  ExpectExact(out, 0, DType::U8, {0, 0, 1, 2, 2, 0, 255});
}

TEST(LowerQuantizeLinear, Opset13PerAxisI8WithZeroPoint) {
  // x [2,2], axis 0: row 0 scale 1 zp -1, row 1 scale 4 zp 3.
  // row 0: -2.5 -> -2 -> -3; 200 -> 199 -> 127. row 1: 10/4 = 2.5 -> 2 -> 5; -600/4 = -150 -> -147 -> -128.
  auto out = RunQ(
      "QuantizeLinear", 13,
      {{DType::F32, {2, 2}, {-2.5, 200, 10, -600}}, {DType::F32, {2}, {1, 4}}, {DType::I8, {2}, {-1, 3}}},
      {IntAttr("axis", 0)}, 1);
  ExpectExact(out, 0, DType::I8, {-3, 127, 5, -128});
}

TEST(LowerQuantizeLinear, Opset13NegativeAxis) {
  // x [1,3], axis -1, scales 1, 2, 4 (u8, zp 10 each): 3 -> 13, 3/2 = 1.5 -> 2 -> 12, 10/4 = 2.5 -> 2 -> 12.
  auto out =
      RunQ("QuantizeLinear", 13,
           {{DType::F32, {1, 3}, {3, 3, 10}}, {DType::F32, {3}, {1, 2, 4}}, {DType::U8, {3}, {10, 10, 10}}},
           {IntAttr("axis", -1)}, 1);
  ExpectExact(out, 0, DType::U8, {13, 12, 12});
}

TEST(LowerQuantizeLinear, Opset21BlockedWithRemainderBlockAndOutputDtype) {
  // x [2,3], axis 1, block 2: columns 0-1 use scale[:,0], column 2 scale[:,1]. i16 (output_dtype 5).
  // row 0 scales 1, 10: 1.5 -> 2, -40000 -> -32768, 25/10 = 2.5 -> 2.
  // row 1 scales 0.5, 100: 3 -> 6, 2.25/0.5 = 4.5 -> 4, 35/100 = 0.35 -> 0.
  auto out =
      RunQ("QuantizeLinear", 21,
           {{DType::F32, {2, 3}, {1.5, -40000, 25, 3, 2.25, 35}}, {DType::F32, {2, 2}, {1, 10, 0.5, 100}}},
           {IntAttr("axis", 1), IntAttr("block_size", 2), IntAttr("output_dtype", 5)}, 1);
  ExpectExact(out, 0, DType::I16, {2, -32768, 2, 6, 4, 0});
}

TEST(LowerQuantizeLinear, BlockedWrongBlockCountIsInvalid) {
  Status st;
  RunQ("QuantizeLinear", 21,
       {{DType::F32, {2, 6}, std::vector<double>(12, 0)}, {DType::F32, {2, 2}, {1, 1, 1, 1}}},
       {IntAttr("axis", 1), IntAttr("block_size", 2)}, 1, &st);
  EXPECT_FALSE(st.is_ok());
}

TEST(LowerQuantizeLinear, Opset25Int2AndUint2Saturate) {
  auto out = RunQ("QuantizeLinear", 25,
                  {{DType::F32, {4}, {-10, -2, 1, 10}}, {DType::F32, {}, {1}}, {DType::I2, {}, {0}}}, {}, 1);
  ExpectExact(out, 0, DType::I2, {-2, -2, 1, 1});
  out = RunQ("QuantizeLinear", 25,
             {{DType::F32, {4}, {-1, 0.5, 2.5, 9}}, {DType::F32, {}, {1}}, {DType::U2, {}, {1}}}, {}, 1);
  // -1 + 1 = 0; 0.5 -> 0 -> 1; 2.5 -> 2 -> 3; 9 -> 10 -> 3.
  ExpectExact(out, 0, DType::U2, {0, 1, 3, 3});
}

TEST(LowerQuantizeLinear, Int2NotBeforeOpset25) {
  Status st;
  RunQ("QuantizeLinear", 24, {{DType::F32, {1}, {0}}, {DType::F32, {}, {1}}, {DType::I2, {}, {0}}}, {}, 1,
       &st);
  EXPECT_FALSE(st.is_ok());
}

TEST(LowerQuantizeLinear, Opset21Uint4WithZeroPoint) {
  // scale 2, zp 3: -20/2 = -10 -> -7 -> 0; 5/2 = 2.5 -> 2 -> 5; 100 -> 53 -> 15.
  auto out = RunQ("QuantizeLinear", 21,
                  {{DType::F32, {3}, {-20, 5, 100}}, {DType::F32, {}, {2}}, {DType::U4, {}, {3}}}, {}, 1);
  ExpectExact(out, 0, DType::U4, {0, 5, 15});
}

TEST(LowerQuantizeLinear, Float8SaturateAttribute) {
  // f8e4m3fn: 1000 -> 448 (0x7E) saturating, NaN (0x7F) otherwise; -1000 -> -448 (0xFE) / 0xFF;
  // 0.5 -> 0x30 (exponent 6, mantissa 0).
  const std::vector<In> ins = {
      {DType::F32, {3}, {1000, -1000, 0.5}}, {DType::F32, {}, {1}}, {DType::F8E4M3FN, {}, {0}}};
  auto out = RunQ("QuantizeLinear", 19, ins, {}, 1);
  ExpectExact(out, 0, DType::F8E4M3FN, {0x7E, 0xFE, 0x30});
  out = RunQ("QuantizeLinear", 19, ins, {IntAttr("saturate", 0)}, 1);
  ExpectExact(out, 0, DType::F8E4M3FN, {0x7F, 0xFF, 0x30});
  // f8e5m2 without saturation: inf (0x7C); with: 57344 (0x7B).
  const std::vector<In> e5 = {{DType::F32, {1}, {1e6}}, {DType::F32, {}, {1}}, {DType::F8E5M2, {}, {0}}};
  ExpectExact(RunQ("QuantizeLinear", 21, e5, {IntAttr("saturate", 0)}, 1), 0, DType::F8E5M2, {0x7C});
  ExpectExact(RunQ("QuantizeLinear", 21, e5, {}, 1), 0, DType::F8E5M2, {0x7B});
}

TEST(LowerQuantizeLinear, Float4E2M1RoundsEvenAndSaturates) {
  // output_dtype 23 (no zero point): 7 -> 6 (0x7); -0.25 ties to -0 (0x8); 0.25 ties to 0 (0x0);
  // 1.25 ties between 1.0 (0x2) and 1.5 (0x3) -> 0x2; -20 -> -6 (0xF).
  auto out =
      RunQ("QuantizeLinear", 23, {{DType::F32, {5}, {7, -0.25, 0.25, 1.25, -20}}, {DType::F32, {}, {1}}},
           {IntAttr("output_dtype", 23)}, 1);
  ExpectExact(out, 0, DType::F4E2M1, {0x7, 0x8, 0x0, 0x2, 0xF});
}

TEST(LowerQuantizeLinear, NanIsRuntimeErrorForIntegerTargets) {
  Status st;
  RunQ("QuantizeLinear", 13, {{DType::F32, {2}, {1, std::nan("")}}, {DType::F32, {}, {1}}}, {}, 1, &st);
  EXPECT_FALSE(st.is_ok());
}

TEST(LowerQuantizeLinear, InfinitySaturates) {
  auto out =
      RunQ("QuantizeLinear", 13,
           {{DType::F32, {2}, {INFINITY, -INFINITY}}, {DType::F32, {}, {1}}, {DType::I8, {}, {5}}}, {}, 1);
  ExpectExact(out, 0, DType::I8, {127, -128});
}

TEST(LowerQuantizeLinear, OutputDtypeMustMatchZeroPoint) {
  Status st;
  RunQ("QuantizeLinear", 21, {{DType::F32, {1}, {0}}, {DType::F32, {}, {1}}, {DType::U8, {}, {0}}},
       {IntAttr("output_dtype", 3)}, 1, &st);
  EXPECT_FALSE(st.is_ok());
}

TEST(LowerQuantizeLinear, Opset10RejectsPerAxisScale) {
  Status st;
  RunQ("QuantizeLinear", 10, {{DType::F32, {2, 2}, {0, 0, 0, 0}}, {DType::F32, {2}, {1, 1}}}, {}, 1, &st);
  EXPECT_FALSE(st.is_ok());
}

TEST(LowerQuantizeLinear, Opset23PrecisionAttributeSetsDivisionDtype) {
  // 2049 / 1 in f16 is 2048 (2049 is a tie between 2048 and 2050, even mantissa); in f32 it stays 2049.
  const std::vector<In> ins = {{DType::F32, {1}, {2049}}, {DType::F32, {}, {1}}, {DType::I16, {}, {0}}};
  ExpectExact(RunQ("QuantizeLinear", 23, ins, {IntAttr("precision", 10)}, 1), 0, DType::I16, {2048});
  ExpectExact(RunQ("QuantizeLinear", 23, ins, {}, 1), 0, DType::I16, {2049});
}

TEST(LowerQuantizeLinear, Opset23ScaleDtypeSetsDivisionDtype) {
  // y_scale f16 1.0 (0x3C00): the division runs in f16.
  auto out = RunQ("QuantizeLinear", 23,
                  {{DType::F32, {1}, {2049}}, {DType::F16, {}, {0x3C00}}, {DType::I16, {}, {0}}}, {}, 1);
  ExpectExact(out, 0, DType::I16, {2048});
}

TEST(LowerQuantizeLinear, Int32InputWithIntegerScaleDividesExactly) {
  // opset 25 allows an i32 y_scale: 7 / 2 = 3.5 -> 4, 5 / 2 = 2.5 -> 2, -2147483647 / 2 -> -32768 (i16).
  auto out =
      RunQ("QuantizeLinear", 25,
           {{DType::I32, {3}, {7, 5, -2147483647}}, {DType::I32, {}, {2}}, {DType::I16, {}, {0}}}, {}, 1);
  ExpectExact(out, 0, DType::I16, {4, 2, -32768});
}

// ---- DequantizeLinear ----------------------------------------------------------------------------------

TEST(LowerDequantizeLinear, Opset10U8) {
  auto out = RunQ("DequantizeLinear", 10,
                  {{DType::U8, {3}, {0, 128, 255}}, {DType::F32, {}, {0.5}}, {DType::U8, {}, {128}}}, {}, 1);
  ExpectExact(out, 0, DType::F32, {-64, 0, 63.5});
}

TEST(LowerDequantizeLinear, Int32ZeroPointSubtractsWithoutWrapping) {
  // 2147483647 - (-1) = 2^31 exactly (an i32 subtraction would wrap to -2^31).
  auto out = RunQ("DequantizeLinear", 13,
                  {{DType::I32, {1}, {2147483647}}, {DType::F32, {}, {1}}, {DType::I32, {}, {-1}}}, {}, 1);
  ExpectExact(out, 0, DType::F32, {2147483648.0});
}

TEST(LowerDequantizeLinear, Opset13PerAxis) {
  // x [2,2] axis 1: column scales 1, 0.25, zero points 1, 2.
  auto out =
      RunQ("DequantizeLinear", 13,
           {{DType::I8, {2, 2}, {-128, 10, 127, -2}}, {DType::F32, {2}, {1, 0.25}}, {DType::I8, {2}, {1, 2}}},
           {}, 1);
  ExpectExact(out, 0, DType::F32, {-129, 2, 126, -1});
}

TEST(LowerDequantizeLinear, Opset21BlockedInt4) {
  // x [1,4] i4, axis 1, block 2: scales 1, 0.25, zero points 1, -1.
  auto out = RunQ(
      "DequantizeLinear", 21,
      {{DType::I4, {1, 4}, {-8, 7, 3, -1}}, {DType::F32, {1, 2}, {1, 0.25}}, {DType::I4, {1, 2}, {1, -1}}},
      {IntAttr("axis", 1), IntAttr("block_size", 2)}, 1);
  ExpectExact(out, 0, DType::F32, {-9, 6, 1, 0});
}

TEST(LowerDequantizeLinear, Opset23OutputDtypeF16RoundsOnce) {
  // i32 2049 -> f16 2048 (0x6800); 3 * 0.5 = 1.5 (0x3E00).
  auto out = RunQ("DequantizeLinear", 23, {{DType::I32, {1}, {2049}}, {DType::F32, {}, {1}}},
                  {IntAttr("output_dtype", 10)}, 1);
  ExpectExact(out, 0, DType::F16, {0x6800});
  out = RunQ("DequantizeLinear", 23, {{DType::U8, {1}, {3}}, {DType::F32, {}, {0.5}}},
             {IntAttr("output_dtype", 10)}, 1);
  ExpectExact(out, 0, DType::F16, {0x3E00});
}

TEST(LowerDequantizeLinear, Float8AndFloat4Inputs) {
  // f8e5m2 0x3C = 1.0, 0xC2 = -3.0, 0x7B = 57344; scale 2.
  auto out =
      RunQ("DequantizeLinear", 19, {{DType::F8E5M2, {3}, {0x3C, 0xC2, 0x7B}}, {DType::F32, {}, {2}}}, {}, 1);
  ExpectExact(out, 0, DType::F32, {2, -6, 114688});
  // f4e2m1 0x7 = 6, 0x9 = -0.5, 0x8 = -0 (kept: x - zp with zp absent is x).
  out = RunQ("DequantizeLinear", 23, {{DType::F4E2M1, {3}, {0x7, 0x9, 0x8}}, {DType::F32, {}, {4}}}, {}, 1);
  ExpectExact(out, 0, DType::F32, {24, -2, 0});
  EXPECT_TRUE(std::signbit(RawValues(out[0])[2]));
}

TEST(LowerDequantizeLinear, Opset25Uint2) {
  auto out = RunQ("DequantizeLinear", 25,
                  {{DType::U2, {4}, {0, 1, 2, 3}}, {DType::F32, {}, {2}}, {DType::U2, {}, {1}}}, {}, 1);
  ExpectExact(out, 0, DType::F32, {-2, 0, 2, 4});
}

TEST(LowerDequantizeLinear, Opset24E8M0ScaleWithOutputDtype) {
  // e8m0 0x7E = 2^-1: 3 * 0.5 = 1.5.
  auto out = RunQ("DequantizeLinear", 24, {{DType::U8, {1}, {3}}, {DType::F8E8M0, {}, {0x7E}}},
                  {IntAttr("output_dtype", 1)}, 1);
  ExpectExact(out, 0, DType::F32, {1.5});
}

TEST(LowerDequantizeLinear, ZeroPointDtypeMustMatch) {
  Status st;
  RunQ("DequantizeLinear", 13, {{DType::U8, {1}, {3}}, {DType::F32, {}, {1}}, {DType::I8, {}, {0}}}, {}, 1,
       &st);
  EXPECT_FALSE(st.is_ok());
}

// ---- DynamicQuantizeLinear -----------------------------------------------------------------------------

TEST(LowerDynamicQuantizeLinear, OnnxDocExample) {
  // ONNX Operators.md example: scale = (2 - -3) / 255, zero point 153.
  auto out = RunQ("DynamicQuantizeLinear", 11, {{DType::F32, {6}, {0, 2, -3, -2.5, 1.34, 0.5}}}, {}, 3);
  ExpectExact(out, 0, DType::U8, {153, 255, 0, 26, 221, 179});
  ExpectExact(out, 1, DType::F32, {static_cast<float>(5.0f / 255.0f)});
  ExpectExact(out, 2, DType::U8, {153});
}

TEST(LowerDynamicQuantizeLinear, AllPositiveRangeIncludesZero) {
  // max 255, min adjusted to 0: scale 1, zero point 0; 2.5 -> 2, 3.5 -> 4.
  auto out = RunQ("DynamicQuantizeLinear", 11, {{DType::F32, {2, 2}, {2.5, 3.5, 255, 10}}}, {}, 3);
  ExpectExact(out, 0, DType::U8, {2, 4, 255, 10});
  ExpectExact(out, 1, DType::F32, {1});
  ExpectExact(out, 2, DType::U8, {0});
}

TEST(LowerDynamicQuantizeLinear, AllZerosGiveScaleOneOver255) {
  auto out = RunQ("DynamicQuantizeLinear", 11, {{DType::F32, {3}, {0, 0, 0}}}, {}, 3);
  ExpectExact(out, 0, DType::U8, {0, 0, 0});
  ExpectExact(out, 1, DType::F32, {static_cast<float>(1.0f / 255.0f)});
  ExpectExact(out, 2, DType::U8, {0});
}

// ---- MatMulInteger / QLinearMatMul ---------------------------------------------------------------------

TEST(LowerMatMulInteger, ZeroPointsPerTensorAndPerColumn) {
  // A u8 [2,3] - 10 = [[-10, 0, 245], [1, 2, 3]]; B i8 [3,2] - [1, -1] per column =
  // [[0, 1], [2, 128], [-128, 1]] (127 - (-1) = 128 would wrap in i8; here it is exact).
  auto out = RunQ("MatMulInteger", 10,
                  {{DType::U8, {2, 3}, {0, 10, 255, 11, 12, 13}},
                   {DType::I8, {3, 2}, {1, 0, 3, 127, -127, 0}},
                   {DType::U8, {}, {10}},
                   {DType::I8, {2}, {1, -1}}},
                  {}, 1);
  // B - zp: [[0, 1], [2, 128], [-128, 1]].
  // row 0: [-10*0 + 0*2 + 245*-128, -10*1 + 0*128 + 245*1] = [-31360, 235]
  // row 1: [1*0 + 2*2 + 3*-128, 1*1 + 2*128 + 3*1] = [-380, 260]
  ExpectExact(out, 0, DType::I32, {-31360, 235, -380, 260});
}

TEST(LowerMatMulInteger, PerRowZeroPointAndVectorRhs) {
  // A i8 [2,2] - per-row [1, -2] = [[0, 1], [4, 5]]; B 1-D [3, -1]: [-1, 7].
  auto out =
      RunQ("MatMulInteger", 10,
           {{DType::I8, {2, 2}, {1, 2, 2, 3}}, {DType::I8, {2}, {3, -1}}, {DType::I8, {2}, {1, -2}}}, {}, 1);
  ExpectExact(out, 0, DType::I32, {-1, 7});
  EXPECT_EQ(out[0].tensor().shape, (Ints{2}));
}

TEST(LowerMatMulInteger, BatchBroadcast) {
  // A [2,1,2] (batch 2), B [2,1]: each batch row times B.
  auto out =
      RunQ("MatMulInteger", 10, {{DType::U8, {2, 1, 2}, {1, 2, 3, 4}}, {DType::U8, {2, 1}, {10, 1}}}, {}, 1);
  ExpectExact(out, 0, DType::I32, {12, 34});
  EXPECT_EQ(out[0].tensor().shape, (Ints{2, 1, 1}));
}

TEST(LowerQLinearConv, RoundsBeforeAddingAnOddZeroPoint) {
  // plumb gen (issue 22): x [1,1,1,2] = [131, 123] - x_zp 128 = [3, -5]; a 1x1 kernel [1], w_zp 0;
  // scales 0.5 * 1 / 1: [1.5, -2.5] round half to even to [2, -2], plus y_zp 107: [109, 105]
  // (rounding after the zero point gave round(108.5) = 108 and round(104.5) = 104).
  auto out = RunQ("QLinearConv", 10,
                  {{DType::U8, {1, 1, 1, 2}, {131, 123}},
                   {DType::F32, {}, {0.5}},
                   {DType::U8, {}, {128}},
                   {DType::U8, {1, 1, 1, 1}, {1}},
                   {DType::F32, {}, {1}},
                   {DType::U8, {}, {0}},
                   {DType::F32, {}, {1}},
                   {DType::U8, {}, {107}}},
                  {}, 1);
  ExpectExact(out, 0, DType::U8, {109, 105});
}

TEST(LowerQLinearMatMul, OnnxDocExampleUint8) {
  // The ONNX QLinearMatMul example (backend test qlinearmatmul_2D_uint8_float32).
  auto out = RunQ("QLinearMatMul", 10,
                  {{DType::U8, {2, 4}, {208, 236, 0, 238, 3, 214, 255, 29}},
                   {DType::F32, {1}, {0.0066}},
                   {DType::U8, {1}, {113}},
                   {DType::U8, {4, 3}, {152, 51, 244, 60, 26, 255, 0, 127, 246, 127, 254, 247}},
                   {DType::F32, {1}, {0.00705}},
                   {DType::U8, {1}, {114}},
                   {DType::F32, {1}, {0.0107}},
                   {DType::U8, {1}, {118}}},
                  {}, 1);
  ExpectExact(out, 0, DType::U8, {168, 115, 255, 1, 66, 151});
}

TEST(LowerQLinearMatMul, PerRowAndPerColumnScalesRoundHalfEven) {
  // a i8 [2,1] = [[3], [5]], b [1,2] = [[1, 1]], zero points 0; a_scale per row [0.5, 1],
  // b_scale per column [1, 2], y_scale 1, y_zp 0 (i8).
  // y[0] = [3*0.5*1, 3*0.5*2] = [1.5 -> 2, 3]; y[1] = [5, 10].
  auto out = RunQ("QLinearMatMul", 21,
                  {{DType::I8, {2, 1}, {3, 5}},
                   {DType::F32, {2}, {0.5, 1}},
                   {DType::I8, {}, {0}},
                   {DType::I8, {1, 2}, {1, 1}},
                   {DType::F32, {2}, {1, 2}},
                   {DType::I8, {}, {0}},
                   {DType::F32, {}, {1}},
                   {DType::I8, {}, {0}}},
                  {}, 1);
  ExpectExact(out, 0, DType::I8, {2, 3, 5, 10});
}

TEST(LowerQLinearMatMul, SaturatesToOutputRange) {
  // 100 * 100 * 1 / 1 + 0 = 10000 -> 127; -100 * 100 -> -128.
  auto out = RunQ("QLinearMatMul", 10,
                  {{DType::I8, {2, 1}, {100, -100}},
                   {DType::F32, {}, {1}},
                   {DType::I8, {}, {0}},
                   {DType::I8, {1, 1}, {100}},
                   {DType::F32, {}, {1}},
                   {DType::I8, {}, {0}},
                   {DType::F32, {}, {1}},
                   {DType::I8, {}, {0}}},
                  {}, 1);
  ExpectExact(out, 0, DType::I8, {127, -128});
}

}  // namespace
}  // namespace plumb::testing
