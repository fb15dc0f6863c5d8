// Lowering tests for RNN, GRU, LSTM (lowering/onnx/rnn.cpp). The expected values (the k* arrays)
// were computed by an independent float64 NumPy implementation of the ONNX equations with
// plumb's rulings, tests/lowering/rnn_test_ref.py (it also reproduces the ONNX backend suite's
// expected outputs); inputs are multiples of 1/8, exact in f32. The whole-model check of a
// torch-exported LSTM is tests/cli/check_export_models.sh (tests/models/lstm/make.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "runtime/ref_evaluator.h"
#include "tests/lowering/one_node.h"

namespace plumb {
namespace {

using testing::ExpectNear;
using testing::FloatAttr;
using testing::FloatsAttr;
using testing::IntAttr;
using testing::Ints;
using testing::NodeInput;
using testing::RunOneNode;
using testing::StrAttr;
using testing::Values;

onnx::OnnxAttribute StringsAttr(const std::string& name, std::vector<std::string> v) {
  onnx::OnnxAttribute a;
  a.name = name;
  a.type = onnx::AttrType::Strings;
  a.strings = std::move(v);
  return a;
}

NodeInput F(Ints shape, std::vector<double> data) { return {std::move(shape), std::move(data)}; }
NodeInput Absent() { return {{0}, {}}; }

// GruIn.X [2, 3, 2]
const std::vector<double> kGruInX = {0.375, 0.625, -1.0, 0.625, -0.125, 0.0,
                                     0.25,  -0.5,  1.0,  -1.0,  -0.5,   -0.25};
// GruIn.W [2, 6, 2]
const std::vector<double> kGruInW = {0.125,  -0.25, -0.75, -1.0,   -1.0,   -1.0,   -0.75, 1.0,
                                     -0.625, 0.375, 0.5,   -0.625, -0.5,   -0.125, -0.5,  1.0,
                                     -0.625, 0.875, 0.625, 0.75,   -0.875, -0.25,  0.25,  0.0};
// GruIn.R [2, 6, 2]
const std::vector<double> kGruInR = {0.375,  0.375,  0.375,  -0.875, 1.0,   0.125, 0.875,  -0.5,
                                     -0.25,  0.75,   -0.625, -0.875, -0.25, 0.375, -0.75,  0.75,
                                     -0.375, -0.625, 0.125,  0.875,  0.875, 0.75,  -0.375, -1.0};
// GruIn.B [2, 12]
const std::vector<double> kGruInB = {0.625, 0.5,    0.625, -1.0,   -1.0,   0.0,    -0.375, -0.125,
                                     0.875, -0.625, 0.0,   -0.375, -0.375, 0.625,  -0.75,  -0.375,
                                     -0.75, -0.75,  -0.5,  0.375,  0.125,  -0.125, -0.75,  0.625};
// GruIn.H0 [2, 2, 2]
const std::vector<double> kGruInH0 = {0.625, -0.5, -0.875, -0.375, -0.75, 0.625, 0.0, 0.0};
// GruLbr0.Y [2, 3, 2, 2]
const std::vector<double> kGruLbr0Y = {
    -0.04392816007888223, -0.5490046389109148, -0.965861507731595,   -0.1969166950082977,
    -0.20141647190507966, -0.6081249360366089, -0.9077914415242916,  -0.26569608859950516,
    -0.4849523681157376,  -0.5003605162921678, -0.9269389332092195,  -0.28222504301023355,
    -0.7827268313388777,  0.49040453148486896, -0.9170773093363389,  0.04830560842464462,
    -0.8463115989569514,  0.6491028118064183,  -0.8591437417490569,  0.06193677696687326,
    -0.6966944881992508,  0.3064162585443342,  -0.49063807621999944, -0.06586877318689152};
// GruLbr0.Yh [2, 2, 2]
const std::vector<double> kGruLbr0Yh = {-0.4849523681157376, -0.5003605162921678, -0.965861507731595,
                                        -0.1969166950082977, -0.6966944881992508, 0.3064162585443342,
                                        -0.9170773093363389, 0.04830560842464462};
// GruLbr1.Y [2, 3, 2, 2]
const std::vector<double> kGruLbr1Y = {
    -0.0590737559569634,  -0.4148829697180684,  -0.956777336964315,  -0.3489877013892013,
    -0.23321391138660663, -0.5025475912082427,  -0.8925433402818845, -0.3955648239583633,
    -0.5354975063689318,  -0.35620495645307676, -0.9007713753486317, -0.38051907400712065,
    -0.7266503049174782,  0.5034504861045492,   -0.8401645528387827, -0.24859828998035727,
    -0.7989336130865675,  0.6621934235843859,   -0.7744388266497293, -0.1955583073650537,
    -0.5315864814423731,  0.29160683875715765,  -0.3115455099081443, -0.16371446818931112};
// GruLbr1.Yh [2, 2, 2]
const std::vector<double> kGruLbr1Yh = {-0.5354975063689318, -0.35620495645307676, -0.956777336964315,
                                        -0.3489877013892013, -0.5315864814423731,  0.29160683875715765,
                                        -0.8401645528387827, -0.24859828998035727};
// LstmIn.X [3, 2, 2]
const std::vector<double> kLstmInX = {-0.5,   0.0,   1.0,  -0.5,   0.625, -1.0,
                                      -0.375, 0.875, 0.75, -0.875, 0.75,  0.75};
// LstmIn.W [1, 8, 2]
const std::vector<double> kLstmInW = {-0.25, -0.5, 2.0,  2.0,  0.75,  -0.5, -1.25, 1.75,
                                      -1.0,  0.25, 0.75, -1.0, -0.75, 1.0,  -1.25, 0.75};
// LstmIn.R [1, 8, 2]
const std::vector<double> kLstmInR = {1.0,   0.375,  0.25,  -0.125, 1.0,  -0.625, -0.25, 0.25,
                                      0.375, -0.875, -0.75, 0.375,  0.75, 0.25,   0.875, -0.25};
// LstmIn.B [1, 16]
const std::vector<double> kLstmInB = {-0.375, 0.625, -1.0, -0.625, -0.625, -0.25, -0.75, 0.625,
                                      0.75,   -0.25, -1.0, 0.5,    -0.875, 0.25,  -0.75, 0.875};
// LstmIn.P [1, 6]
const std::vector<double> kLstmInP = {0.375, 1.0, 0.25, 0.5, -0.25, 0.625};
// LstmIn.H0 [1, 2, 2]
const std::vector<double> kLstmInH0 = {-0.875, -0.75, -0.25, 0.5};
// LstmIn.C0 [1, 2, 2]
const std::vector<double> kLstmInC0 = {0.0, 3.0, 4.0, -1.0};
// LstmFc.Y [3, 1, 2, 2]
const std::vector<double> kLstmFcY = {-0.06853212580419368, 0.4313796392650114,   0.20376931312227595,
                                      -0.19052142401977618, -0.14805819879436533, 0.09747547789245184,
                                      0.057203947852779394, 0.14190970989084403,  -0.16725553684694983,
                                      -0.00577785497403334, -0.0711506318515998,  0.2896224964455059};
// LstmFc.Yh [1, 2, 2]
const std::vector<double> kLstmFcYh = {-0.16725553684694983, -0.00577785497403334, -0.0711506318515998,
                                       0.2896224964455059};
// LstmFc.Yc [1, 2, 2]
const std::vector<double> kLstmFcYc = {-0.5781719713021254, -0.0180115215326975, -0.22552375579556128,
                                       0.4994149144923022};
// LstmRevSeq.Y [3, 1, 2, 2]
const std::vector<double> kLstmRevSeqY = {-0.03321573544704476,
                                          0.8406906932352647,
                                          -0.09675961916966874,
                                          -0.05439613853477492,
                                          -0.11676565155448371,
                                          0.17479158884976556,
                                          0.0,
                                          0.0,
                                          -0.06461982811518191,
                                          0.1977768573378602,
                                          0.0,
                                          0.0};
// LstmRevSeq.Yh [1, 2, 2]
const std::vector<double> kLstmRevSeqYh = {-0.03321573544704476, 0.8406906932352647, -0.09675961916966874,
                                           -0.05439613853477492};
// LstmRevSeq.Yc [1, 2, 2]
const std::vector<double> kLstmRevSeqYc = {-0.6285411895326742, 2.3980750238831874, -0.7917869624365809,
                                           -0.9768358400874857};
// LstmFwdSeq.Y [3, 1, 2, 2]
const std::vector<double> kLstmFwdSeqY = {-0.017126202593149904,
                                          0.9023043860287921,
                                          0.0,
                                          0.0,
                                          -0.08829287361986456,
                                          0.29393991997695706,
                                          0.0,
                                          0.0,
                                          0.0,
                                          0.0,
                                          0.0,
                                          0.0};
// LstmFwdSeq.Yh [1, 2, 2]
const std::vector<double> kLstmFwdSeqYh = {-0.08829287361986456, 0.29393991997695706, -0.25, 0.5};
// LstmFwdSeq.Yc [1, 2, 2]
const std::vector<double> kLstmFwdSeqYc = {-0.7229562757052101, 3.11138257661633, 4.0, -1.0};
// RnnIn.X [2, 2, 2]
const std::vector<double> kRnnInX = {-0.125, 0.125, 0.25, 0.0, 0.25, 1.0, 0.5, -0.375};
// RnnIn.W [2, 3, 2]
const std::vector<double> kRnnInW = {-0.125, -0.25, -0.75, -1.0,  0.625, -0.125,
                                     -0.375, 0.25,  0.125, 0.875, 0.25,  0.875};
// RnnIn.R [2, 3, 3]
const std::vector<double> kRnnInR = {0.125, -0.375, -0.375, 1.0,    0.125,  -0.625, 0.75, 0.625, -1.0,
                                     -0.75, 0.375,  -0.25,  -0.375, -0.875, -0.625, 0.75, 0.75,  0.75};
// RnnIn.B [2, 6]
const std::vector<double> kRnnInB = {0.125, -0.75, -0.375, 0.0,   1.0,   -0.5,
                                     0.125, 0.0,   0.0,    0.125, 0.375, -0.875};
// RnnActs.Y [2, 2, 2, 3]
const std::vector<double> kRnnActsY = {
    0.109375,       0.21875,       -0.484375,  0.09375,         0.0625,         -0.359375,
    0.408447265625, 0.234375,      0.46875,    0.3763427734375, 0.337646484375, 0.3359375,
    -0.021484375,   -0.2490234375, -0.0703125, 0.279296875,     0.576171875,    -0.0234375,
    0.4765625,      0.6953125,     0.390625,   0.3671875,       0.40234375,     0.10546875};
// RnnActs.Yh [2, 2, 3]
const std::vector<double> kRnnActsYh = {-0.021484375, -0.2490234375,   -0.0703125,     0.279296875,
                                        0.576171875,  -0.0234375,      0.408447265625, 0.234375,
                                        0.46875,      0.3763427734375, 0.337646484375, 0.3359375};
// ActIn.X [2, 1, 1]
const std::vector<double> kActInX = {1.5, -2.0};
// ActIn.W [1, 2, 1]
const std::vector<double> kActInW = {1.0, -0.75};
// ActIn.R [1, 2, 2]
const std::vector<double> kActInR = {0.5, -0.25, 0.25, 0.5};
// ActRelu.Y [2, 1, 1, 2]
const std::vector<double> kActReluY = {1.5, 0.0, 0.0, 1.875};
// ActTanh.Y [2, 1, 1, 2]
const std::vector<double> kActTanhY = {0.9051482536448665, -0.809301070201781, -0.8728919155790281,
                                       0.867190333054586};
// ActSigmoid.Y [2, 1, 1, 2]
const std::vector<double> kActSigmoidY = {0.8175744761936437, 0.24508501313237172, 0.1607735103786802,
                                          0.8613963274917426};
// ActAffine.Y [2, 1, 1, 2]
const std::vector<double> kActAffineY = {3.5, -1.75, 0.875, 3.5};
// ActLeakyRelu.Y [2, 1, 1, 2]
const std::vector<double> kActLeakyReluY = {1.5, -0.011249999748542905, -0.012471874721860513,
                                            1.8693750001257285};
// ActThresholdedRelu.Y [2, 1, 1, 2]
const std::vector<double> kActThresholdedReluY = {1.5, 0.0, 0.0, 1.875};
// ActScaledTanh.Y [2, 1, 1, 2]
const std::vector<double> kActScaledTanhY = {0.952723428580931, -0.7647449606028848, -0.8737378278684125,
                                             0.8852328135785698};
// ActHardSigmoid.Y [2, 1, 1, 2]
const std::vector<double> kActHardSigmoidY = {0.8000000044703484, 0.27499999664723873, 0.16624999564141035,
                                              0.867500005364418};
// ActElu.Y [2, 1, 1, 2]
const std::vector<double> kActEluY = {1.5, -0.33767376632082513, -0.3441293432401472, 1.7061631168395874};
// ActSoftsign.Y [2, 1, 1, 2]
const std::vector<double> kActSoftsignY = {0.6, -0.5294117647058824, -0.6105383734249714, 0.5807644882860665};
// ActSoftplus.Y [2, 1, 1, 2]
const std::vector<double> kActSoftplusY = {1.7014132779827524, 0.28115013624831475, 0.25878395918160463,
                                           2.1852219340337604};
// ActAffineDflt.Y [2, 1, 1, 2]
const std::vector<double> kActAffineDfltY = {1.5, -1.125, -0.96875, 1.3125};

// Lowers and runs a one-node model whose inputs listed in `omit` are left out (empty names).
std::vector<rt::RtValue> RunWithGaps(const std::string& op, int64_t opset,
                                     const std::vector<NodeInput>& inputs, const std::vector<size_t>& omit,
                                     std::vector<onnx::OnnxAttribute> attrs, size_t num_outputs) {
  onnx::OnnxModel m = testing::OneNodeModel(op, opset, inputs, std::move(attrs), num_outputs);
  std::vector<onnx::OnnxValueInfo> kept;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool gone = std::find(omit.begin(), omit.end(), i) != omit.end();
    if (gone)
      m.graph.nodes[0].inputs[i] = "";
    else
      kept.push_back(m.graph.inputs[i]);
  }
  m.graph.inputs = kept;
  auto g = lower::lower_model(m, rt::RefEvaluator());
  EXPECT_TRUE(g.has_value()) << g.status().to_string();
  if (!g.has_value()) return {};
  auto s = rt::Session::create(std::move(*g));
  EXPECT_TRUE(s.has_value()) << s.status().to_string();
  if (!s.has_value()) return {};
  size_t k = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (std::find(omit.begin(), omit.end(), i) != omit.end()) continue;
    EXPECT_TRUE(
        (*s)->set_input(k++, testing::MakeTensor(inputs[i].dtype, inputs[i].shape, inputs[i].data)).is_ok());
  }
  Status st = (*s)->run();
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  if (!st.is_ok()) return {};
  return (*s)->outputs();
}

// The lowering's error for a one-node model (empty when it lowers).
std::string LowerError(const onnx::OnnxModel& m) {
  auto g = lower::lower_model(m, rt::RefEvaluator());
  return g.has_value() ? std::string() : g.status().to_string();
}

constexpr double kTol = 2e-6;

// GRU, bidirectional, layout 1 (batch-major X, initial_h, Y, Y_h), with B and initial_h: both
// linear_before_reset values (they give different numbers for the same inputs).
TEST(LowerGru, BidirectionalLayout1LinearBeforeReset) {
  for (int lbr = 0; lbr <= 1; ++lbr) {
    auto out = RunOneNode("GRU", 22,
                          {F({2, 3, 2}, kGruInX),
                           F({2, 6, 2}, kGruInW),
                           F({2, 6, 2}, kGruInR),
                           F({2, 12}, kGruInB),
                           {{2}, {3, 3}, ir::DType::I32},
                           F({2, 2, 2}, kGruInH0)},
                          {StrAttr("direction", "bidirectional"), IntAttr("hidden_size", 2),
                           IntAttr("layout", 1), IntAttr("linear_before_reset", lbr)},
                          2);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].tensor().shape, (Ints{2, 3, 2, 2}));
    EXPECT_EQ(out[1].tensor().shape, (Ints{2, 2, 2}));
    ExpectNear(Values(out[0]), lbr ? kGruLbr1Y : kGruLbr0Y, kTol);
    ExpectNear(Values(out[1]), lbr ? kGruLbr1Yh : kGruLbr0Yh, kTol);
  }
}

// Permutes row-major `data` of `shape` by `perm` (result dim i = operand dim perm[i]).
std::vector<double> Permute(const std::vector<double>& data, const Ints& shape, const Ints& perm) {
  const size_t r = shape.size();
  Ints out_shape(r), stride(r, 1);
  for (size_t i = r; i-- > 1;) stride[i - 1] = stride[i] * shape[i];
  for (size_t i = 0; i < r; ++i) out_shape[i] = shape[perm[i]];
  std::vector<double> out(data.size());
  Ints idx(r, 0);
  for (size_t k = 0; k < out.size(); ++k) {
    int64_t src = 0;
    for (size_t i = 0; i < r; ++i) src += idx[i] * stride[perm[i]];
    out[k] = data[static_cast<size_t>(src)];
    for (size_t i = r; i-- > 0;) {
      if (++idx[i] < out_shape[i]) break;
      idx[i] = 0;
    }
  }
  return out;
}

// GRU-1 has no linear_before_reset (nor layout): the attribute is not read and the default
// equation applies. Same inputs as above, made time-major.
TEST(LowerGru, Opset1IgnoresLinearBeforeReset) {
  auto out = RunOneNode("GRU", 1,
                        {F({3, 2, 2}, Permute(kGruInX, {2, 3, 2}, {1, 0, 2})),
                         F({2, 6, 2}, kGruInW),
                         F({2, 6, 2}, kGruInR),
                         F({2, 12}, kGruInB),
                         {{2}, {3, 3}, ir::DType::I32},
                         F({2, 2, 2}, Permute(kGruInH0, {2, 2, 2}, {1, 0, 2}))},
                        {StrAttr("direction", "bidirectional"), IntAttr("linear_before_reset", 1)}, 2);
  ASSERT_EQ(out.size(), 2u);
  ExpectNear(Values(out[0]), Permute(kGruLbr0Y, {2, 3, 2, 2}, {1, 2, 0, 3}), kTol);
  ExpectNear(Values(out[1]), Permute(kGruLbr0Yh, {2, 2, 2}, {1, 0, 2}), kTol);
}

// The LSTM inputs of the sequence_lens tests: x [3, 2, 2], one direction, hidden size 2, peepholes,
// sequence_lens `lens` (i32).
std::vector<NodeInput> LstmWithLens(std::vector<double> lens) {
  return {F({3, 2, 2}, kLstmInX),
          F({1, 8, 2}, kLstmInW),
          F({1, 8, 2}, kLstmInR),
          F({1, 16}, kLstmInB),
          {{2}, std::move(lens), ir::DType::I32},
          F({1, 2, 2}, kLstmInH0),
          F({1, 2, 2}, kLstmInC0),
          F({1, 6}, kLstmInP)};
}

// An LSTM's Y, Y_h and Y_c against what they must be.
void ExpectLstmOutputs(const std::vector<rt::RtValue>& out, const std::vector<double>& y,
                       const std::vector<double>& y_h, const std::vector<double>& y_c) {
  ASSERT_EQ(out.size(), 3u);
  ExpectNear(Values(out[0]), y, kTol);
  ExpectNear(Values(out[1]), y_h, kTol);
  ExpectNear(Values(out[2]), y_c, kTol);
}

// LSTM with peepholes, input_forget = 1 (ft = 1 - it) and clip = 0.75 on every activation input.
TEST(LowerLstm, PeepholesInputForgetClip) {
  auto out = RunWithGaps(
      "LSTM", 14,
      {F({3, 2, 2}, kLstmInX), F({1, 8, 2}, kLstmInW), F({1, 8, 2}, kLstmInR), F({1, 16}, kLstmInB), Absent(),
       F({1, 2, 2}, kLstmInH0), F({1, 2, 2}, kLstmInC0), F({1, 6}, kLstmInP)},
      {4}, {IntAttr("hidden_size", 2), IntAttr("input_forget", 1), FloatAttr("clip", 0.75f)}, 3);
  ExpectLstmOutputs(out, kLstmFcY, kLstmFcYh, kLstmFcYc);
}

// sequence_lens, reverse: batch 1 (length 1) only sees x[0]; Y past each length is 0; Y_h/Y_c are
// the state after time 0.
TEST(LowerLstm, ReverseWithSequenceLens) {
  auto out = RunOneNode("LSTM", 22, LstmWithLens({3, 1}),
                        {StrAttr("direction", "reverse"), IntAttr("hidden_size", 2)}, 3);
  ExpectLstmOutputs(out, kLstmRevSeqY, kLstmRevSeqYh, kLstmRevSeqYc);
}

// sequence_lens, forward, with a zero length: that batch's Y is all 0 and Y_h/Y_c are the initial
// state; the other's Y_h is the output at its last valid step (t = 1).
TEST(LowerLstm, ForwardWithSequenceLensIncludingZero) {
  auto out = RunOneNode("LSTM", 7, LstmWithLens({2, 0}), {}, 3);
  ExpectLstmOutputs(out, kLstmFwdSeqY, kLstmFwdSeqYh, kLstmFwdSeqYc);
  // Batch 1's Y_h is initial_h[0, 1, :] exactly.
  EXPECT_EQ(Values(out[1])[2], kLstmInH0[2]);
  EXPECT_EQ(Values(out[1])[3], kLstmInH0[3]);
}

// Bidirectional RNN with [LeakyRelu, HardSigmoid]: alpha 0.5 goes to LeakyRelu, alpha 0.25 and
// beta 0.375 to HardSigmoid (consumed in order by the activations that take them).
TEST(LowerRnn, BidirectionalActivationAlphaBetaConsumedInOrder) {
  auto out = RunOneNode(
      "RNN", 14, {F({2, 2, 2}, kRnnInX), F({2, 3, 2}, kRnnInW), F({2, 3, 3}, kRnnInR), F({2, 6}, kRnnInB)},
      {StrAttr("direction", "bidirectional"), IntAttr("hidden_size", 3),
       StringsAttr("activations", {"LeakyRelu", "HardSigmoid"}),
       FloatsAttr("activation_alpha", {0.5f, 0.25f}), FloatsAttr("activation_beta", {0.375f})},
      2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].tensor().shape, (Ints{2, 2, 2, 3}));
  ExpectNear(Values(out[0]), kRnnActsY, kTol);
  ExpectNear(Values(out[1]), kRnnActsYh, kTol);
}

// Every activation function the recurrent ops name, with its defaults or given alpha/beta.
TEST(LowerRnn, EveryActivationFunction) {
  struct Case {
    const char* name;
    std::vector<float> alpha, beta;
    const std::vector<double>* want;
  };
  const Case cases[] = {
      {"Relu", {}, {}, &kActReluY},
      {"Tanh", {}, {}, &kActTanhY},
      {"Sigmoid", {}, {}, &kActSigmoidY},
      {"Affine", {2.0f}, {0.5f}, &kActAffineY},
      {"Affine", {}, {}, &kActAffineDfltY},
      {"LeakyRelu", {}, {}, &kActLeakyReluY},
      {"ThresholdedRelu", {0.5f}, {}, &kActThresholdedReluY},
      {"ScaledTanh", {1.5f}, {0.5f}, &kActScaledTanhY},
      {"HardSigmoid", {}, {}, &kActHardSigmoidY},
      {"Elu", {0.5f}, {}, &kActEluY},
      {"Softsign", {}, {}, &kActSoftsignY},
      {"softplus", {}, {}, &kActSoftplusY},  // names match case-insensitively
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<onnx::OnnxAttribute> attrs = {IntAttr("hidden_size", 2),
                                              StringsAttr("activations", {c.name})};
    if (!c.alpha.empty()) attrs.push_back(FloatsAttr("activation_alpha", c.alpha));
    if (!c.beta.empty()) attrs.push_back(FloatsAttr("activation_beta", c.beta));
    auto out = RunOneNode("RNN", 22, {F({2, 1, 1}, kActInX), F({1, 2, 1}, kActInW), F({1, 2, 2}, kActInR)},
                          attrs, 1);
    ASSERT_EQ(out.size(), 1u);
    ExpectNear(Values(out[0]), *c.want, kTol);
  }
}

// ThresholdedRelu inside a recurrent op keeps x when x == alpha (the RNN operators' "x >= alpha").
TEST(LowerRnn, ThresholdedReluKeepsValueAtAlpha) {
  auto out = RunOneNode(
      "RNN", 22, {F({1, 1, 1}, {0.5}), F({1, 1, 1}, {1.0}), F({1, 1, 1}, {0.0})},
      {StringsAttr("activations", {"ThresholdedRelu"}), FloatsAttr("activation_alpha", {0.5f})}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {0.5}, 0.0);
}

// Tanh with clip: the pre-activation 2 + 1 = 3 is clipped to 0.5 before tanh.
TEST(LowerRnn, ClipBoundsActivationInput) {
  auto out = RunOneNode(
      "RNN", 22, {F({1, 1, 1}, {2.0}), F({1, 1, 1}, {1.0}), F({1, 1, 1}, {0.0}), F({1, 2}, {0.5, 0.5})},
      {FloatAttr("clip", 0.5f)}, 2);
  ASSERT_EQ(out.size(), 2u);
  ExpectNear(Values(out[0]), {std::tanh(0.5)}, 1e-7);
}

// Omitted outputs: only Y_h requested (Y is the empty name).
TEST(LowerRnn, OnlyYhRequested) {
  onnx::OnnxModel m = testing::OneNodeModel(
      "RNN", 22, {F({2, 1, 1}, kActInX), F({1, 2, 1}, kActInW), F({1, 2, 2}, kActInR)}, {}, 2);
  m.graph.nodes[0].outputs[0] = "";
  m.graph.outputs.erase(m.graph.outputs.begin());
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  auto s = rt::Session::create(std::move(*g));
  ASSERT_TRUE(s.has_value());
  ASSERT_TRUE((*s)->set_input(0, testing::MakeTensor(ir::DType::F32, {2, 1, 1}, kActInX)).is_ok());
  ASSERT_TRUE((*s)->set_input(1, testing::MakeTensor(ir::DType::F32, {1, 2, 1}, kActInW)).is_ok());
  ASSERT_TRUE((*s)->set_input(2, testing::MakeTensor(ir::DType::F32, {1, 2, 2}, kActInR)).is_ok());
  ASSERT_TRUE((*s)->run().is_ok());
  auto outs = (*s)->outputs();
  ASSERT_EQ(outs.size(), 1u);
  // Y_h = Y[1] of the Tanh case.
  ExpectNear(Values(outs[0]), {kActTanhY[2], kActTanhY[3]}, kTol);
}

TEST(LowerRnn, BadDirectionIsInvalid) {
  onnx::OnnxModel m =
      testing::OneNodeModel("RNN", 22, {F({1, 1, 1}, {0}), F({1, 1, 1}, {0}), F({1, 1, 1}, {0})},
                            {StrAttr("direction", "sideways")}, 1);
  EXPECT_NE(LowerError(m).find("direction"), std::string::npos);
}

TEST(LowerRnn, WrongActivationCountIsInvalid) {
  onnx::OnnxModel m =
      testing::OneNodeModel("GRU", 22, {F({1, 1, 1}, {0}), F({1, 3, 1}, {0, 0, 0}), F({1, 3, 1}, {0, 0, 0})},
                            {StringsAttr("activations", {"Sigmoid", "Tanh", "Tanh"})}, 1);
  EXPECT_NE(LowerError(m).find("activations"), std::string::npos);
}

TEST(LowerRnn, UnknownActivationIsUnsupported) {
  onnx::OnnxModel m =
      testing::OneNodeModel("RNN", 22, {F({1, 1, 1}, {0}), F({1, 1, 1}, {0}), F({1, 1, 1}, {0})},
                            {StringsAttr("activations", {"Gelu"})}, 1);
  EXPECT_NE(LowerError(m).find("Gelu"), std::string::npos);
}

TEST(LowerRnn, HiddenSizeMismatchIsInvalid) {
  onnx::OnnxModel m = testing::OneNodeModel(
      "RNN", 22, {F({1, 1, 1}, {0}), F({1, 1, 1}, {0}), F({1, 1, 1}, {0})}, {IntAttr("hidden_size", 4)}, 1);
  EXPECT_NE(LowerError(m).find("hidden_size"), std::string::npos);
}

// A symbolic sequence length runs the step in a `while` loop: same numbers as the unrolled
// lowering (bidirectional GRU, layout 1, sequence_lens, B and initial_h).
TEST(LowerGru, SymbolicSequenceLengthRunsAsWhileLoop) {
  for (int lbr = 0; lbr <= 1; ++lbr) {
    const std::vector<NodeInput> in = {F({2, 3, 2}, kGruInX),         F({2, 6, 2}, kGruInW),
                                       F({2, 6, 2}, kGruInR),         F({2, 12}, kGruInB),
                                       {{2}, {3, 3}, ir::DType::I32}, F({2, 2, 2}, kGruInH0)};
    onnx::OnnxModel m = testing::OneNodeModel(
        "GRU", 22, in,
        {StrAttr("direction", "bidirectional"), IntAttr("layout", 1), IntAttr("linear_before_reset", lbr)},
        2);
    m.graph.inputs[0].type =
        ir::Type::tensor(ir::DType::F32, {ir::Dim(2), ir::Dim::symbolic("T"), ir::Dim(2)});
    auto g = lower::lower_model(m, rt::RefEvaluator());
    ASSERT_TRUE(g.has_value()) << g.status().to_string();
    auto s = rt::Session::create(std::move(*g));
    ASSERT_TRUE(s.has_value()) << s.status().to_string();
    for (size_t k = 0; k < in.size(); ++k)
      ASSERT_TRUE((*s)->set_input(k, testing::MakeTensor(in[k].dtype, in[k].shape, in[k].data)).is_ok());
    Status st = (*s)->run();
    ASSERT_TRUE(st.is_ok()) << st.to_string();
    auto out = (*s)->outputs();
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].tensor().shape, (Ints{2, 3, 2, 2}));
    ExpectNear(Values(out[0]), lbr ? kGruLbr1Y : kGruLbr0Y, kTol);
    ExpectNear(Values(out[1]), lbr ? kGruLbr1Yh : kGruLbr0Yh, kTol);
  }
}

// The while loop with sequence_lens and reverse direction (LSTM, Y_c).
TEST(LowerLstm, SymbolicSequenceLengthReverseWithSequenceLens) {
  const std::vector<NodeInput> in = LstmWithLens({3, 1});
  onnx::OnnxModel m = testing::OneNodeModel("LSTM", 22, in, {StrAttr("direction", "reverse")}, 3);
  m.graph.inputs[0].type = ir::Type::tensor(ir::DType::F32, {ir::Dim::symbolic("T"), ir::Dim(2), ir::Dim(2)});
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  auto s = rt::Session::create(std::move(*g));
  ASSERT_TRUE(s.has_value()) << s.status().to_string();
  for (size_t k = 0; k < in.size(); ++k)
    ASSERT_TRUE((*s)->set_input(k, testing::MakeTensor(in[k].dtype, in[k].shape, in[k].data)).is_ok());
  Status st = (*s)->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  ExpectLstmOutputs((*s)->outputs(), kLstmRevSeqY, kLstmRevSeqYh, kLstmRevSeqYc);
}

}  // namespace
}  // namespace plumb
