// Lowering tests for RotaryEmbedding, LinearAttention, SwiGLU (lowering/onnx/transformer.cpp).
// The expected values (the k* arrays) were computed by independent float64 NumPy statements of
// the ONNX definitions, tests/lowering/transformer_test_ref.py (RoPE as a complex rotation,
// LinearAttention as per-head loops; the latter reproduces the ONNX suite's expected outputs).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/ref_evaluator.h"
#include "tests/lowering/one_node.h"

namespace plumb {
namespace {

using testing::ExpectNear;
using testing::FloatAttr;
using testing::IntAttr;
using testing::Ints;
using testing::NodeInput;
using testing::RunOneNode;
using testing::StrAttr;
using testing::Values;

NodeInput F(Ints shape, std::vector<double> data) { return {std::move(shape), std::move(data)}; }

std::string LowerError(const onnx::OnnxModel& m) {
  auto g = lower::lower_model(m, rt::RefEvaluator());
  return g.has_value() ? std::string() : g.status().to_string();
}

// Rope4.X [2, 2, 3, 6]
const std::vector<double> kRope4X = {
    -0.125, 0.75,   1.0,   -0.5,  -0.875, 0.25, 0.375,  0.625,  0.25,   0.5,    0.875,  0.875,
    0.875,  0.75,   0.5,   0.875, -1.0,   -1.0, 0.625,  -0.125, 0.5,    0.0,    0.875,  -0.875,
    0.375,  -1.0,   -0.75, 0.75,  -0.5,   1.0,  -0.375, 0.625,  1.0,    -0.375, 1.0,    0.375,
    1.0,    -0.375, 0.0,   0.5,   1.0,    -0.5, 0.0,    0.625,  0.75,   1.0,    -0.625, 1.0,
    -0.875, 0.875,  0.75,  0.875, 0.75,   0.5,  0.125,  0.125,  -0.875, 0.875,  0.875,  -0.875,
    0.25,   -0.25,  0.5,   0.25,  0.125,  0.0,  -0.875, 0.625,  0.875,  -0.625, -0.125, -0.875};
// Rope4.Cos [5, 2]
const std::vector<double> kRope4Cos = {-0.125, -0.75, -0.25, 1.0, -0.75, -0.75, 0.375, -0.625, -1.0, -0.25};
// Rope4.Sin [5, 2]
const std::vector<double> kRope4Sin = {-0.625, 0.25, 0.125, 0.625, 0.25, -0.875, -0.875, 0.875, 0.5, 0.5};
// Rope4.Pos [2, 3]
const std::vector<double> kRope4Pos = {4.0, 1.0, 2.0, 0.0, 0.0, 2.0};
// Rope4I0.Y [2, 2, 3, 6]
const std::vector<double> kRope4I0Y = {
    -0.375,   0.0625,  -1.0625, 0.5,      -0.875,    0.25,     -0.125,    0.3125,   -0.015625,
    0.890625, 0.875,   0.875,   -0.78125, 0.203125,  -0.15625, -1.3125,   -1.0,     -1.0,
    -0.875,   0.03125, -0.1875, -0.0625,  0.875,     -0.875,   0.0,       -1.46875, 0.234375,
    0.125,    -0.5,    1.0,     0.03125,  -0.796875, -0.84375, -0.265625, 1.0,      0.375,
    -0.125,   0.15625, -0.625,  -0.46875, 1.0,       -0.5,     0.46875,   -0.71875, -0.09375,
    -0.59375, -0.625,  1.0,     0.46875,  0.109375,  -0.78125, -1.421875, 0.75,     0.5,
    -0.5625,  -0.3125, 0.03125, -0.625,   0.875,     -0.875,   0.28125,   0.125,    -0.21875,
    -0.25,    0.125,   0.0,     0.4375,   -1.015625, -0.875,   -0.078125, -0.125,   -0.875};
// Rope4I1.Y [2, 2, 3, 6]
const std::vector<double> kRope4I1Y = {
    -0.25,     -0.8125,   0.0,    0.625,    -0.875,   0.25,      -0.171875, -0.109375, -0.0625,
    0.65625,   0.875,     0.875,  -0.84375, -0.34375, 0.390625,  -1.09375,  -1.0,      -1.0,
    -0.5625,   0.4375,    -0.125, 0.25,     0.875,    -0.875,    0.03125,   0.296875,  -1.21875,
    0.28125,   -0.5,      1.0,    0.125,    -0.5625,  -1.078125, -0.59375,  1.0,       0.375,
    -0.359375, -0.578125, -0.125, -0.375,   1.0,      -0.5,      0.390625,  -0.078125, -0.8125,
    -0.5625,   -0.625,    1.0,    0.4375,   -0.875,   0.203125,  -1.3125,   0.75,      0.5,
    0.0625,    -0.09375,  0.4375, -0.875,   0.875,    -0.875,    -0.1875,   -0.125,    -0.4375,
    -0.0625,   0.125,     0.0,    0.5,      -0.6875,  -1.203125, -0.296875, -0.125,    -0.875};
// Rope3.X [1, 2, 8]
const std::vector<double> kRope3X = {-0.625, 0.25,  0.875, -0.5,  -0.5, -0.75,  -0.375, 0.625,
                                     0.375,  0.375, -1.0,  0.625, 0.5,  -0.625, 0.25,   0.5};
// Rope3.Cos [1, 2, 2]
const std::vector<double> kRope3Cos = {-1.0, -0.875, -0.625, -1.0};
// Rope3.Sin [1, 2, 2]
const std::vector<double> kRope3Sin = {0.25, -0.625, 0.125, 0.625};
// Rope3.Y [1, 2, 8]
const std::vector<double> kRope3Y = {0.40625,  -0.53125,  -1.03125,  0.28125,   0.59375,  1.046875,
                                     0.25,     -0.078125, -0.109375, -0.765625, 0.671875, -0.390625,
                                     -0.34375, 0.3125,    -0.09375,  -0.890625};
// La.Q [2, 3, 8]
const std::vector<double> kLaQ = {-0.5,   0.125,  0.25,   0.25,  -0.5,   0.25,  -0.625, 0.25,  -0.5,   -0.375,
                                  1.0,    0.5,    -0.75,  -1.0,  -0.875, -0.25, 0.875,  -1.0,  -0.875, -0.75,
                                  -0.5,   0.875,  -0.375, 0.25,  -1.0,   0.625, 0.125,  0.25,  1.0,    0.125,
                                  -0.875, 0.625,  0.125,  0.25,  -1.0,   0.0,   0.875,  0.125, -0.125, 0.125,
                                  -1.0,   -0.375, 0.75,   0.375, -0.5,   -0.25, -0.875, 0.375};
// La.K [2, 3, 4]
const std::vector<double> kLaK = {0.625,  0.0,   0.25,   0.5,   0.625,  0.375,  0.375, -1.0,
                                  -0.375, 0.625, 0.625,  0.875, -0.375, -0.375, 1.0,   0.5,
                                  -1.0,   0.75,  -0.375, 0.0,   0.5,    -0.75,  0.375, 0.5};
// La.V [2, 3, 6]
const std::vector<double> kLaV = {0.375, 0.75,   1.0,   -0.375, -0.75,  -0.625, 0.0,    0.625, 0.125,
                                  0.0,   0.875,  -1.0,  0.75,   -0.625, 0.75,   -0.625, 0.625, 0.125,
                                  0.0,   0.125,  0.625, 0.0,    -1.0,   -0.375, 0.25,   -0.25, -0.875,
                                  0.0,   -0.875, 0.125, 0.125,  0.125,  0.5,    0.5,    0.125, 1.0};
// La.Decay [2, 3, 4]
const std::vector<double> kLaDecay = {-0.5,   -0.5,  -0.0,   -0.0,   -0.5,  -1.0,  -0.375, -0.75,
                                      -0.625, -1.0,  -0.375, -0.0,   -0.75, -0.0,  -0.625, -0.75,
                                      -1.0,   -0.25, -0.125, -0.625, -0.75, -0.25, -0.25,  -0.125};
// La.Beta [2, 3, 2]
const std::vector<double> kLaBeta = {0.875, 0.375, 0.125, 0.5, 0.5, 0.5, 0.25, 0.75, 0.125, 0.75, 0.75, 0.5};
// La.Past [2, 2, 2, 3]
const std::vector<double> kLaPast = {-0.125, 0.625, -0.75, 0.0,    0.5,   -1.0,   0.875, -0.625,
                                     0.125,  0.125, 0.25,  -0.875, 0.875, -0.375, 0.0,   -0.625,
                                     1.0,    0.375, -0.75, -0.75,  0.5,   -0.25,  -0.5,  -0.125};
// La.O [2, 3, 12]
const std::vector<double> kLaO = {
    -0.054862851755471294, -0.20642308482944996,  -0.14110046524200118,  0.027431425877735647,
    0.1702243459272802,    -0.06347537440410984,  -0.2872621298570349,   0.2651650429449553,
    -0.1988737822087165,   -0.35916397906704395,  0.3263636156819258,    -0.20810967400399974,
    -0.030920034753923575, -0.1843839820710031,   0.001500306678207215,  0.06232751093854483,
    0.3462856996937105,    0.035491769426019296,  -0.35020024737130695,  0.4954082641042873,
    -0.10303982699189812,  -0.34031906834319353,  0.2542041622146977,    0.07237317248852272,
    -0.22863920352635547,  0.299685046138289,     -0.17104455075504596,  -0.06732371778394179,
    -0.13766196308483122,  -0.051562551993959795, -0.2118685714975951,   -0.055299005088669945,
    0.2251514131084554,    -0.07095079832903115,  -0.04593789436203937,  0.08957881931136331,
    -0.5704487982335117,   0.5779751345557957,    0.18476099427854062,   -0.07197937959968359,
    0.15034150907034846,   0.04725841829829525,   -0.0348271663100242,   -0.5754699221330719,
    -0.1614468288825991,   0.058822814683782906,  0.2873298660956259,    -0.00878626618155592,
    -0.0671111081904223,   0.12007694172441395,   0.03345386739434248,   -0.041791181768481914,
    -0.022055373306978165, -0.07665697484821621,  -0.02480689418856156,  -0.23951742099417314,
    -0.12929901982343983,  0.006495652337079415,  0.011704550440517101,  0.0028472784087119904,
    0.07960639392648118,   -0.20608884155329008,  -0.12828210030947634,  -0.07605854788754683,
    0.16998872315747124,   0.08255246218327458,   -0.047616014737344815, 0.09645372387541594,
    -0.04846897099990967,  0.003308222195925141,  0.10278186190280325,   -0.0019679002315721715};
// La.S [2, 2, 2, 3]
const std::vector<double> kLaS = {
    -0.09619486179816263,  0.3347248377040679,   -0.0708569353439501,  0.23917415844376202,
    -0.13093442369811567,  0.17989370502184288,  0.06345984880109146,  0.18360169025928536,
    -0.15382197180898594,  -0.30616855183081954, 0.015538562454293525, 0.27600136697251676,
    -0.020069647941890513, 0.20421310815456584,  0.2586858977619532,   -0.24669545066814497,
    0.23264140433028502,   -0.20604696451889581, 0.05928017725830418,  -0.2153629229156352,
    0.06498538179101371,   0.1507965007942325,   -0.114898811952741,   0.1442111409873346};
// LaGated.DecayH [2, 3, 2]
const std::vector<double> kLaGatedDecayH = {-0.5,   -0.875, -0.0,   -0.25, -0.5,   -0.75,
                                            -0.875, -0.125, -0.375, -0.25, -0.625, -0.125};
// LaGated.O [2, 3, 12]
const std::vector<double> kLaGatedO = {-0.05859375,
                                       -0.1171875,
                                       -0.15625,
                                       0.029296875,
                                       0.05859375,
                                       0.078125,
                                       0.0,
                                       0.0,
                                       0.0,
                                       0.005859375,
                                       0.01171875,
                                       0.009765625,
                                       -0.05859375,
                                       -0.2587890625,
                                       -0.1845703125,
                                       0.1171875,
                                       0.48828125,
                                       0.36328125,
                                       0.10039228844279828,
                                       0.5152377018855966,
                                       -0.19205451926200282,
                                       0.05019614422139914,
                                       0.06621260094279828,
                                       0.1227227403689986,
                                       -0.29522878977556005,
                                       0.45481506330453897,
                                       -0.185058181663695,
                                       -0.11492746022443995,
                                       -0.23740435875341886,
                                       -0.249975302426081,
                                       -0.16315699850613918,
                                       -0.12108594926298441,
                                       0.24333931696676536,
                                       0.0027272688993860844,
                                       -0.08992060549192858,
                                       0.08768995716453956,
                                       0.0,
                                       0.0087890625,
                                       0.0439453125,
                                       0.0,
                                       -0.0087890625,
                                       -0.0439453125,
                                       0.0,
                                       -0.53125,
                                       -0.19921875,
                                       0.0,
                                       0.28125,
                                       0.10546875,
                                       0.0078125,
                                       -0.013853128426873775,
                                       -0.057546892134368886,
                                       0.125,
                                       -0.1088916575283366,
                                       -0.35695828764168297,
                                       0.0,
                                       -0.22150817956472102,
                                       -0.1574063876492704,
                                       0.0,
                                       0.0038297119709814025,
                                       0.012056259176618025,
                                       0.03441801896850302,
                                       -0.049906279165126466,
                                       -0.1637246798728778,
                                       -0.025503599327284583,
                                       0.02752240312452195,
                                       0.08470817913168285,
                                       -0.078125,
                                       0.12285432558203621,
                                       -0.06536652706451972,
                                       -0.03515625,
                                       0.10078006001414716,
                                       0.036381464604184406};
// LaGated.S [2, 2, 2, 3]
const std::vector<double> kLaGatedS = {-0.13909437662985155,
                                       0.7556122856905444,
                                       0.14521687011044537,
                                       0.46875,
                                       -0.24846937662985155,
                                       0.4971811246740297,
                                       -0.4251136976098227,
                                       0.4766428798985,
                                       -0.15649361996091837,
                                       -0.6158523952196454,
                                       -0.004400524087678659,
                                       0.46677922737493893,
                                       -0.07131535712974754,
                                       0.1790710083248362,
                                       0.6321320059295596,
                                       0.0066115178473106495,
                                       -0.211355866652222,
                                       -0.8124870564901441,
                                       0.1875,
                                       -0.3508449826304018,
                                       0.07589947814473252,
                                       0.25,
                                       -0.28114463939548606,
                                       0.3711332602266927};
// LaDelta.Beta1 [2, 3, 1]
const std::vector<double> kLaDeltaBeta1 = {0.75, 0.75, 0.5, 0.125, 0.5, 0.375};
// LaDelta.O [2, 3, 6]
const std::vector<double> kLaDeltaO = {
    -0.030901394978611326, -0.23633524986435142, -0.06663652771924007,  0.11152123550940177,
    -0.1377615262174963,   -0.15433434140155602, -0.017774337541408274, -0.3990755273203142,
    0.15752367772207237,   0.515618475536092,    -0.6197380500974046,   -0.14715386711445202,
    -0.21468205356078857,  0.34770087920905096,  0.26254755506503474,   0.011865923630991891,
    0.02739982953597019,   0.03004049818257174,  -0.8937667438715949,   0.7115736727791261,
    0.17524457305956884,   -0.09115048351232838, -0.15467960838455724,  0.0041432037960149265,
    0.0008820492456359903, 0.10868761859031735,  0.031026823999779747,  0.4211394025157672,
    0.37703154543735834,   -0.24535534979525894, -0.04769627137076281,  -0.3529871424151738,
    -0.36953497505477867,  -0.26559759605122263, -0.3438919842154245,   0.2564527203752986};
// LaDelta.S [2, 2, 2, 3]
const std::vector<double> kLaDeltaS = {
    -0.08497428894042969, 0.8860683441162109,    -0.06261062622070312, 0.22925376892089844,
    0.2835865020751953,   -0.4260826110839844,   0.26900070905685425,  0.08123546838760376,
    -0.4895109534263611,  -0.3362087607383728,   -0.146440327167511,   0.5144512057304382,
    0.08623242378234863,  0.3588067293167114,    0.5754574537277222,   -0.05007922649383545,
    0.3743799328804016,   -0.140949547290802,    -0.48012804985046387, -0.4523506164550781,
    0.48167145252227783,  -0.041375160217285156, -0.3921966552734375,  0.0038008689880371094};
// Swiglu.A [2, 3]
const std::vector<double> kSwigluA = {1.0, -1.0, -2.5, 4.0, 2.0, -1.0};
// Swiglu.B [2, 3]
const std::vector<double> kSwigluB = {0.0, 1.5, 0.5, -0.75, -1.25, -0.5};
// Swiglu.Y [2, 3]
const std::vector<double> kSwigluY = {0.0,
                                      -0.27363828570953447,
                                      -0.028721712387532017,
                                      -2.992582130530096,
                                      -2.3814353170560834,
                                      0.09121276190317816};

constexpr double kTol = 2e-6;

// 4-D input with position_ids and partial rotation (rotary_embedding_dim 4 of head size 6): the
// last two entries of each head pass through; both pairings.
TEST(LowerRotaryEmbedding, FourDPositionIdsPartialRotation) {
  for (int inter = 0; inter <= 1; ++inter) {
    SCOPED_TRACE(inter);
    auto out = RunOneNode("RotaryEmbedding", 23,
                          {F({2, 2, 3, 6}, kRope4X),
                           F({5, 2}, kRope4Cos),
                           F({5, 2}, kRope4Sin),
                           {{2, 3}, kRope4Pos, ir::DType::I64}},
                          {IntAttr("interleaved", inter), IntAttr("rotary_embedding_dim", 4)}, 1);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].tensor().shape, (Ints{2, 2, 3, 6}));
    ExpectNear(Values(out[0]), inter ? kRope4I1Y : kRope4I0Y, kTol);
  }
}

// 3-D input split by num_heads, 3-D caches given per (batch, position): no position_ids.
TEST(LowerRotaryEmbedding, ThreeDInputWithoutPositionIds) {
  auto out = RunOneNode("RotaryEmbedding", 23,
                        {F({1, 2, 8}, kRope3X), F({1, 2, 2}, kRope3Cos), F({1, 2, 2}, kRope3Sin)},
                        {IntAttr("num_heads", 2)}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().shape, (Ints{1, 2, 8}));
  ExpectNear(Values(out[0]), kRope3Y, kTol);
}

// A position id past the cache is a run-time gather.R1 error, not a wrapped read.
TEST(LowerRotaryEmbedding, PositionIdOutOfRangeIsRuntimeError) {
  onnx::OnnxModel m = testing::OneNodeModel(
      "RotaryEmbedding", 23,
      {F({1, 1, 1, 2}, {1, 2}), F({2, 1}, {1, 1}), F({2, 1}, {0, 0}), {{1, 1}, {2}, ir::DType::I64}}, {}, 1);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  auto s = rt::Session::create(std::move(*g));
  ASSERT_TRUE(s.has_value());
  ASSERT_TRUE((*s)->set_input(0, testing::MakeTensor(ir::DType::F32, {1, 1, 1, 2}, {1, 2})).is_ok());
  ASSERT_TRUE((*s)->set_input(1, testing::MakeTensor(ir::DType::F32, {2, 1}, {1, 1})).is_ok());
  ASSERT_TRUE((*s)->set_input(2, testing::MakeTensor(ir::DType::F32, {2, 1}, {0, 0})).is_ok());
  ASSERT_TRUE((*s)->set_input(3, testing::MakeTensor(ir::DType::I64, {1, 1}, {2})).is_ok());
  Status st = (*s)->run();
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.to_string().find("gather.R1"), std::string::npos) << st.to_string();
}

TEST(LowerRotaryEmbedding, OddRotaryDimIsInvalid) {
  onnx::OnnxModel m = testing::OneNodeModel(
      "RotaryEmbedding", 23, {F({1, 1, 1, 4}, {1, 2, 3, 4}), F({1, 1, 1}, {1}), F({1, 1, 1}, {0})},
      {IntAttr("rotary_embedding_dim", 3)}, 1);
  EXPECT_NE(LowerError(m).find("rotary_embedding_dim"), std::string::npos);
}

TEST(LowerRotaryEmbedding, ThreeDWithoutNumHeadsIsInvalid) {
  onnx::OnnxModel m = testing::OneNodeModel(
      "RotaryEmbedding", 23, {F({1, 1, 4}, {1, 2, 3, 4}), F({1, 1, 2}, {1, 1}), F({1, 1, 2}, {0, 0})}, {}, 1);
  EXPECT_NE(LowerError(m).find("num_heads"), std::string::npos);
}

// gated_delta with GQA (4 query heads share 2 kv heads), per-key-dim decay, per-head beta and a
// past state: output and present_state.
TEST(LowerLinearAttention, GatedDeltaGqaWithPastState) {
  auto out = RunOneNode("LinearAttention", 27,
                        {F({2, 3, 8}, kLaQ), F({2, 3, 4}, kLaK), F({2, 3, 6}, kLaV), F({2, 2, 2, 3}, kLaPast),
                         F({2, 3, 4}, kLaDecay), F({2, 3, 2}, kLaBeta)},
                        {IntAttr("q_num_heads", 4), IntAttr("kv_num_heads", 2)}, 2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].tensor().shape, (Ints{2, 3, 12}));
  EXPECT_EQ(out[1].tensor().shape, (Ints{2, 2, 2, 3}));
  ExpectNear(Values(out[0]), kLaO, 1e-5);
  ExpectNear(Values(out[1]), kLaS, 1e-5);
}

// gated with a per-head decay, no past state (zeros), explicit scale.
TEST(LowerLinearAttention, GatedPerHeadDecayExplicitScale) {
  onnx::OnnxModel m = testing::OneNodeModel(
      "LinearAttention", 27,
      {F({2, 3, 8}, kLaQ), F({2, 3, 4}, kLaK), F({2, 3, 6}, kLaV), F({1}, {0}), F({2, 3, 2}, kLaGatedDecayH)},
      {IntAttr("q_num_heads", 4), IntAttr("kv_num_heads", 2), StrAttr("update_rule", "gated"),
       FloatAttr("scale", 0.5f)},
      2);
  m.graph.nodes[0].inputs[3] = "";
  m.graph.inputs.erase(m.graph.inputs.begin() + 3);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  auto s = rt::Session::create(std::move(*g));
  ASSERT_TRUE(s.has_value());
  ASSERT_TRUE((*s)->set_input(0, testing::MakeTensor(ir::DType::F32, {2, 3, 8}, kLaQ)).is_ok());
  ASSERT_TRUE((*s)->set_input(1, testing::MakeTensor(ir::DType::F32, {2, 3, 4}, kLaK)).is_ok());
  ASSERT_TRUE((*s)->set_input(2, testing::MakeTensor(ir::DType::F32, {2, 3, 6}, kLaV)).is_ok());
  ASSERT_TRUE((*s)->set_input(3, testing::MakeTensor(ir::DType::F32, {2, 3, 2}, kLaGatedDecayH)).is_ok());
  ASSERT_TRUE((*s)->run().is_ok());
  auto out = (*s)->outputs();
  ASSERT_EQ(out.size(), 2u);
  ExpectNear(Values(out[0]), kLaGatedO, 1e-5);
  ExpectNear(Values(out[1]), kLaGatedS, 1e-5);
}

// delta with a beta of last dim 1 (shared by the heads).
TEST(LowerLinearAttention, DeltaWithSharedBeta) {
  std::vector<double> q2;  // the first 2 heads of kLaQ
  for (size_t r = 0; r < 6; ++r)
    for (size_t c = 0; c < 4; ++c) q2.push_back(kLaQ[r * 8 + c]);
  onnx::OnnxModel m = testing::OneNodeModel(
      "LinearAttention", 27,
      {F({2, 3, 4}, q2), F({2, 3, 4}, kLaK), F({2, 3, 6}, kLaV), F({2, 2, 2, 3}, kLaPast), F({1}, {0}),
       F({2, 3, 1}, kLaDeltaBeta1)},
      {IntAttr("q_num_heads", 2), IntAttr("kv_num_heads", 2), StrAttr("update_rule", "delta")}, 2);
  m.graph.nodes[0].inputs[4] = "";
  m.graph.inputs.erase(m.graph.inputs.begin() + 4);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  auto s = rt::Session::create(std::move(*g));
  ASSERT_TRUE(s.has_value());
  ASSERT_TRUE((*s)->set_input(0, testing::MakeTensor(ir::DType::F32, {2, 3, 4}, q2)).is_ok());
  ASSERT_TRUE((*s)->set_input(1, testing::MakeTensor(ir::DType::F32, {2, 3, 4}, kLaK)).is_ok());
  ASSERT_TRUE((*s)->set_input(2, testing::MakeTensor(ir::DType::F32, {2, 3, 6}, kLaV)).is_ok());
  ASSERT_TRUE((*s)->set_input(3, testing::MakeTensor(ir::DType::F32, {2, 2, 2, 3}, kLaPast)).is_ok());
  ASSERT_TRUE((*s)->set_input(4, testing::MakeTensor(ir::DType::F32, {2, 3, 1}, kLaDeltaBeta1)).is_ok());
  ASSERT_TRUE((*s)->run().is_ok());
  auto out = (*s)->outputs();
  ASSERT_EQ(out.size(), 2u);
  ExpectNear(Values(out[0]), kLaDeltaO, 1e-5);
  ExpectNear(Values(out[1]), kLaDeltaS, 1e-5);
}

TEST(LowerLinearAttention, DecayWithLinearRuleIsInvalid) {
  onnx::OnnxModel m = testing::OneNodeModel(
      "LinearAttention", 27,
      {F({1, 1, 2}, {1, 1}), F({1, 1, 2}, {1, 1}), F({1, 1, 2}, {1, 1}), F({1, 1, 2, 2}, {0, 0, 0, 0}),
       F({1, 1, 1}, {0})},
      {IntAttr("q_num_heads", 1), IntAttr("kv_num_heads", 1), StrAttr("update_rule", "linear")}, 2);
  EXPECT_NE(LowerError(m).find("forbids the decay"), std::string::npos) << LowerError(m);
}

TEST(LowerLinearAttention, HeadsNotMultipleIsInvalid) {
  onnx::OnnxModel m = testing::OneNodeModel(
      "LinearAttention", 27,
      {F({1, 1, 6}, {1, 1, 1, 1, 1, 1}), F({1, 1, 4}, {1, 1, 1, 1}), F({1, 1, 4}, {1, 1, 1, 1})},
      {IntAttr("q_num_heads", 3), IntAttr("kv_num_heads", 2), StrAttr("update_rule", "linear")}, 2);
  EXPECT_NE(LowerError(m).find("multiple"), std::string::npos);
}

TEST(LowerSwiGLU, AlphaScalesTheSigmoid) {
  auto out =
      RunOneNode("SwiGLU", 28, {F({2, 3}, kSwigluA), F({2, 3}, kSwigluB)}, {FloatAttr("alpha", 1.5f)}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), kSwigluY, 1e-6);
}

TEST(LowerSwiGLU, ShapeMismatchIsInvalid) {
  onnx::OnnxModel m = testing::OneNodeModel("SwiGLU", 28, {F({2}, {1, 2}), F({1}, {1})}, {}, 1);
  EXPECT_NE(LowerError(m).find("identical shapes"), std::string::npos);
}

}  // namespace
}  // namespace plumb
