// Lowering tests for the ai.onnx.ml operators (lowering/onnx/ml*.cpp): encoders, element-wise
// ops, linear models, ZipMap, CastMap and DictVectorizer. Expected values are worked out by hand from
// the operator definitions (and the ONNX reference where the text is silent).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/ref_evaluator.h"
#include "tests/lowering/ml_helpers.h"

namespace plumb::testing {
namespace {

// ---- LabelEncoder ----------------------------------------------------------------------------------

TEST(LowerLabelEncoder, StringToIntWithDefault) {
  auto o = RunStr("LabelEncoder", 2, {4}, {"a", "d", "c", "b"},
                  {StrsAttr("keys_strings", {"a", "b", "c"}), IntsAttr("values_int64s", {0, 1, 2}),
                   IntAttr("default_int64", 42)});
  ExpectNear(Out(o), {0, 42, 2, 1});
}

TEST(LowerLabelEncoder, DefaultInt64IsMinusOne) {
  auto o = RunStr("LabelEncoder", 4, {2, 1}, {"z", "b"},
                  {StrsAttr("keys_strings", {"a", "b"}), IntsAttr("values_int64s", {5, 6})});
  ExpectNear(Out(o), {-1, 6});
}

TEST(LowerLabelEncoder, IntToStringDefaultUnused) {
  auto o =
      RunOneNode("LabelEncoder", 2, {{{3}, {7, 8, 9}, DType::I64}},
                 {IntsAttr("keys_int64s", {7, 9}), StrsAttr("values_strings", {"seven", "nine"})}, 1, kMl);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(StrValues(o[0]), (Strings{"seven", "_Unused", "nine"}));
}

TEST(LowerLabelEncoder, TensorKeysLastRepeatWins) {
  auto o = RunOneNode("LabelEncoder", 4, {{{4}, {1, 2, 3, 1}, DType::I64}},
                      {TensorAttr("keys_tensor", NumTensor(DType::I64, {1, 2, 1})),
                       TensorAttr("values_tensor", NumTensor(DType::F32, {10, 20, 30})),
                       TensorAttr("default_tensor", NumTensor(DType::F32, {7}))},
                      1, kMl);
  ExpectNear(Out(o), {30, 20, 7, 30});
}

TEST(LowerLabelEncoder, NanKeyMatchesNanInput) {
  auto o = RunOneNode("LabelEncoder", 4, {{{3}, {kNaN, 1.5, 2}}},
                      {FloatsAttr("keys_floats", {std::nanf(""), 1.5f}), IntsAttr("values_int64s", {5, 6})},
                      1, kMl);
  ExpectNear(Out(o), {5, 6, -1});
}

TEST(LowerLabelEncoder, FloatDefaultIsNegativeZero) {
  auto o = RunOneNode("LabelEncoder", 2, {{{2}, {3, 4}, DType::I64}},
                      {IntsAttr("keys_int64s", {3}), FloatsAttr("values_floats", {2.5f})}, 1, kMl);
  auto v = Out(o);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0], 2.5);
  EXPECT_EQ(v[1], 0.0);
  EXPECT_TRUE(std::signbit(v[1]));
}

TEST(LowerLabelEncoder, Opset1BothDirections) {
  auto o = RunStr("LabelEncoder", 1, {3}, {"y", "z", "x"}, {StrsAttr("classes_strings", {"x", "y", "x"})});
  ExpectNear(Out(o), {1, -1, 0});  // the first equal entry's index
  auto o2 = RunOneNode("LabelEncoder", 1, {{{3}, {0, 5, -1}, DType::I64}},
                       {StrsAttr("classes_strings", {"x", "y"}), StrAttr("default_string", "?")}, 1, kMl);
  ASSERT_EQ(o2.size(), 1u);
  EXPECT_EQ(StrValues(o2[0]), (Strings{"x", "?", "?"}));
}

TEST(LowerLabelEncoder, KeyInputDtypeMismatchIsInvalid) {
  onnx::OnnxModel m = OneNodeModel("LabelEncoder", 2, {{{2}, {1, 2}, DType::I64}},
                                   {StrsAttr("keys_strings", {"a"}), IntsAttr("values_int64s", {1})}, 1, kMl);
  EXPECT_FALSE(lower::lower_model(m, rt::RefEvaluator()).has_value());
}

TEST(LowerCategoryMapper, StringToIntAndBack) {
  std::vector<onnx::OnnxAttribute> attrs = {StrsAttr("cats_strings", {"cat", "dog"}),
                                            IntsAttr("cats_int64s", {3, 8})};
  ExpectNear(Out(RunStr("CategoryMapper", 1, {3}, {"dog", "cow", "cat"}, attrs)), {8, -1, 3});
  auto o = RunOneNode("CategoryMapper", 1, {{{2}, {3, 4}, DType::I64}}, attrs, 1, kMl);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(StrValues(o[0]), (Strings{"cat", "_Unused"}));
}

// ---- element-wise ----------------------------------------------------------------------------------

TEST(LowerBinarizer, GreaterThanThresholdNanIsZero) {
  ExpectNear(
      Out(RunOneNode("Binarizer", 1, {{{4}, {0.5, 1, 2, kNaN}}}, {FloatAttr("threshold", 1.0f)}, 1, kMl)),
      {0, 0, 1, 0});
  ExpectNear(Out(RunOneNode("Binarizer", 1, {{{3}, {-1, 0, 5}, DType::I64}}, {}, 1, kMl)), {0, 0, 1});
}

TEST(LowerScaler, OffsetThenScalePerFeature) {
  ExpectNear(Out(RunOneNode("Scaler", 1, {{{2, 2}, {3, 4, 1, 2}}},
                            {FloatsAttr("offset", {1, 2}), FloatsAttr("scale", {2, 0.5f})}, 1, kMl)),
             {4, 1, 0, 0});
  ExpectNear(Out(RunOneNode("Scaler", 1, {{{3}, {1, 2, 3}, DType::I64}},
                            {FloatsAttr("offset", {1}), FloatsAttr("scale", {3})}, 1, kMl)),
             {0, 3, 6});
}

TEST(LowerNormalizer, MaxL1L2AndZeroRow) {
  ExpectNear(Out(RunOneNode("Normalizer", 1, {{{2, 2}, {2, -4, 0, 0}}}, {StrAttr("norm", "MAX")}, 1, kMl)),
             {0.5, -1, 0, 0});
  ExpectNear(Out(RunOneNode("Normalizer", 1, {{{1, 2}, {1, -3}}}, {StrAttr("norm", "L1")}, 1, kMl)),
             {0.25, -0.75});
  ExpectNear(Out(RunOneNode("Normalizer", 1, {{{2}, {3, 4}}}, {StrAttr("norm", "L2")}, 1, kMl)), {0.6, 0.8});
}

TEST(LowerImputer, NanAndIntegerReplacement) {
  ExpectNear(
      Out(RunOneNode("Imputer", 1, {{{2, 2}, {kNaN, 1, 2, kNaN}}},
                     {FloatsAttr("imputed_value_floats", {10, 20}), FloatAttr("replaced_value_float", NAN)},
                     1, kMl)),
      {10, 1, 2, 20});
  ExpectNear(
      Out(RunOneNode("Imputer", 1, {{{1, 3}, {-1, 5, -1}, DType::I64}},
                     {IntsAttr("imputed_value_int64s", {0}), IntAttr("replaced_value_int64", -1)}, 1, kMl)),
      {0, 5, 0});
}

TEST(LowerOneHotEncoder, IntegerCategoriesFloatTruncated) {
  ExpectNear(Out(RunOneNode("OneHotEncoder", 1, {{{3}, {3.7, -0.5, 5}}}, {IntsAttr("cats_int64s", {1, 3, 5})},
                            1, kMl)),
             {0, 1, 0, 0, 0, 0, 0, 0, 1});
  auto o = RunStr("OneHotEncoder", 1, {2}, {"b", "q"}, {StrsAttr("cats_strings", {"a", "b"})});
  ExpectNear(Out(o), {0, 1, 0, 0});
}

TEST(LowerOneHotEncoder, ZerosFalseUnknownCategoryStopsTheRun) {
  onnx::OnnxModel m = OneNodeModel("OneHotEncoder", 1, {{{2}, {1, 2}, DType::I64}},
                                   {IntsAttr("cats_int64s", {1}), IntAttr("zeros", 0)}, 1, kMl);
  Status st;
  RunModel(m, {MakeTensor(DType::I64, {2}, {1, 2})}, &st);
  EXPECT_FALSE(st.is_ok());
  Status ok;
  auto o = RunModel(m, {MakeTensor(DType::I64, {2}, {1, 1})}, &ok);
  EXPECT_TRUE(ok.is_ok()) << ok.to_string();
  ExpectNear(Out(o), {1, 1});
}

TEST(LowerArrayFeatureExtractor, LastAxisAndVectorInput) {
  ExpectNear(Out(RunOneNode("ArrayFeatureExtractor", 1,
                            {{{2, 3}, {1, 2, 3, 4, 5, 6}}, {{2}, {2, 0}, DType::I64}}, {}, 1, kMl)),
             {3, 1, 6, 4});
  auto o = RunOneNode("ArrayFeatureExtractor", 1, {{{3}, {7, 8, 9}}, {{1}, {1}, DType::I64}}, {}, 1, kMl);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].tensor().shape, (Ints{1, 1}));
  ExpectNear(Out(o), {8});
}

TEST(LowerFeatureVectorizer, ConcatWithPadAndCut) {
  auto o = RunOneNode("FeatureVectorizer", 1, {{{1, 2}, {1, 2}}, {{1, 3}, {3, 4, 5}, DType::I64}},
                      {IntsAttr("inputdimensions", {3, 2})}, 1, kMl);
  ExpectNear(Out(o), {1, 2, 0, 3, 4});
}

// ---- linear models -------------------------------------------------------------------------------

TEST(LowerLinearRegressor, TwoTargetsWithIntercepts) {
  ExpectNear(Out(RunOneNode("LinearRegressor", 1, {{{2, 2}, {1, 1, 2, 0}}},
                            {FloatsAttr("coefficients", {1, 2, 3, 4}), FloatsAttr("intercepts", {0.5f, -1}),
                             IntAttr("targets", 2)},
                            1, kMl)),
             {3.5, 6, 2.5, 5});
}

TEST(LowerLinearClassifier, ArgmaxLabelsAndSoftmax) {
  std::vector<onnx::OnnxAttribute> attrs = {FloatsAttr("coefficients", {1, -1, -1, 1}),
                                            FloatsAttr("intercepts", {0, 0}),
                                            IntsAttr("classlabels_ints", {7, 9})};
  auto o = RunOneNode("LinearClassifier", 1, {{{2, 2}, {2, 1, 0, 3}}}, attrs, 2, kMl);
  ExpectNear(Out(o, 0), {7, 9});
  ExpectNear(Out(o, 1), {1, -1, -3, 3});
  attrs.push_back(StrAttr("post_transform", "SOFTMAX"));
  auto p = RunOneNode("LinearClassifier", 1, {{{2}, {2, 1}}}, attrs, 2, kMl);
  const double a = std::exp(1.0) / (std::exp(1.0) + std::exp(-1.0));
  ExpectNear(Out(p, 1), {a, 1 - a}, 1e-6);
}

TEST(LowerLinearClassifier, OneScoreTwoLabelsBecomesMinusSPlusS) {
  std::vector<onnx::OnnxAttribute> attrs = {FloatsAttr("coefficients", {1, 1}),
                                            FloatsAttr("intercepts", {-1}),
                                            IntsAttr("classlabels_ints", {0, 1})};
  auto o = RunOneNode("LinearClassifier", 1, {{{2, 2}, {1, 1, 0, 0}}}, attrs, 2, kMl);
  ExpectNear(Out(o, 0), {1, 0});
  ExpectNear(Out(o, 1), {-1, 1, 1, -1});
}

TEST(LowerLinearClassifier, LogisticAndProbitTransforms) {
  std::vector<onnx::OnnxAttribute> attrs = {FloatsAttr("coefficients", {1, 2}),
                                            IntsAttr("classlabels_ints", {4, 5}),
                                            StrAttr("post_transform", "LOGISTIC")};
  auto o = RunOneNode("LinearClassifier", 1, {{{2, 1}, {0, 1}}}, attrs, 2, kMl);
  ExpectNear(Out(o, 1), {0.5, 0.5, 1 / (1 + std::exp(-1.0)), 1 / (1 + std::exp(-2.0))});
  ExpectNear(Out(o, 0), {4, 5});
  attrs[2] = StrAttr("post_transform", "PROBIT");
  // probit(0.5) = sqrt(2) * erfinv(0) = 0.
  auto p = RunOneNode("LinearClassifier", 1, {{{1, 1}, {0.5}}},
                      {FloatsAttr("coefficients", {1, 1}), IntsAttr("classlabels_ints", {4, 5}),
                       StrAttr("post_transform", "PROBIT")},
                      2, kMl);
  ExpectNear(Out(p, 1), {0, 0}, 1e-6);
}

TEST(LowerMl, ZipMapRowsBecomeMaps) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (bool strings : {false, true}) {
    onnx::OnnxModel m = OneNodeModel("ZipMap", 1, {{{2, 3}, {}}},
                                     {strings ? StrsAttr("classlabels_strings", {"a", "b", "c"})
                                              : IntsAttr("classlabels_int64s", {10, 20, 30})},
                                     1, kMl);
    m.graph.inputs[0].type = ir::Type::tensor(
        DType::F32, ir::Shape{ir::Dim::symbolic("N"), ir::Dim{3}});  // rows known at run time
    auto out = RunModel(m, {MakeTensor(DType::F32, {2, 3}, {1, 2, 3, 4.5, -0.0, nan})});
    ASSERT_EQ(out.size(), 1u);
    const auto* seq = std::get_if<rt::SequenceValue>(&out[0]);
    ASSERT_NE(seq, nullptr);
    ASSERT_EQ(seq->maps.size(), 2u);
    EXPECT_TRUE(seq->items.empty());
    for (const rt::MapValue& map : seq->maps) {
      if (strings)
        EXPECT_EQ(StrValues(map.keys), (std::vector<std::string>{"a", "b", "c"}));
      else
        EXPECT_EQ(Values(map.keys), (std::vector<double>{10, 20, 30}));
    }
    EXPECT_EQ(Values(seq->maps[0].values), (std::vector<double>{1, 2, 3}));
    const std::vector<double> second = Values(seq->maps[1].values);
    ASSERT_EQ(second.size(), 3u);
    EXPECT_EQ(second[0], 4.5);
    EXPECT_TRUE(second[1] == 0 && std::signbit(second[1]));
    EXPECT_TRUE(std::isnan(second[2]));
  }
}

TEST(LowerMl, ZipMapOneRowAndEmptyBatch) {
  auto one = RunOneNode("ZipMap", 1, {{{2}, {7, 8}}}, {IntsAttr("classlabels_int64s", {0, 1})}, 1, kMl);
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(std::get<rt::SequenceValue>(one[0]).maps.size(), 1u);
  EXPECT_EQ(Values(std::get<rt::SequenceValue>(one[0]).maps[0].values), (std::vector<double>{7, 8}));
  auto none = RunOneNode("ZipMap", 1, {{{0, 2}, {}}}, {IntsAttr("classlabels_int64s", {0, 1})}, 1, kMl);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_TRUE(std::get<rt::SequenceValue>(none[0]).maps.empty());
}

TEST(LowerMl, ZipMapLabelCountMustMatchColumns) {
  onnx::OnnxModel m =
      OneNodeModel("ZipMap", 1, {{{1, 2}, {0, 1}}}, {IntsAttr("classlabels_int64s", {0, 1, 2})}, 1, kMl);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_FALSE(g.has_value());
  EXPECT_EQ(g.status().code(), ErrorCode::kInvalidModel) << g.status().to_string();
  EXPECT_NE(g.status().to_string().find("'n0'"), std::string::npos) << g.status().to_string();
}

}  // namespace
}  // namespace plumb::testing

namespace plumb::testing {
namespace {

// A one-node model whose input i0 is a map<key, value> graph input.
onnx::OnnxModel MapModel(const std::string& op, DType key, DType value,
                         std::vector<onnx::OnnxAttribute> attrs) {
  onnx::OnnxModel m = OneNodeModel(op, 1, {}, std::move(attrs), 1, kMl);
  m.graph.nodes[0].inputs = {"i0"};
  m.graph.inputs.push_back({"i0", ir::Type::map(key, ir::Type::tensor(value, {}))});
  return m;
}
rt::RtValue MapOf(rt::Tensor keys, rt::Tensor values) {
  return rt::MapValue{std::move(keys), std::move(values)};
}

TEST(LowerCastMap, DenseSortsByKeySparsePlacesByKey) {
  auto in = [] {
    return MapOf(MakeTensor(DType::I64, {3}, {5, 1, 3}), MakeTensor(DType::F32, {3}, {0.5, 1.5, 3.5}));
  };
  ExpectNear(Out(RunModel(MapModel("CastMap", DType::I64, DType::F32, {}), {in()})), {1.5, 3.5, 0.5});
  auto o = RunModel(
      MapModel("CastMap", DType::I64, DType::F32,
               {StrAttr("map_form", "SPARSE"), IntAttr("max_map", 6), StrAttr("cast_to", "TO_INT64")}),
      {in()});
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].tensor().dtype, DType::I64);
  ExpectNear(Out(o), {0, 1, 0, 3, 0, 0});
}

TEST(LowerDictVectorizer, VocabularyOrderZerosForMissing) {
  rt::Tensor keys = StrTensor({2}, {"c", "a"});
  auto o = RunModel(MapModel("DictVectorizer", DType::String, DType::I64,
                             {StrsAttr("string_vocabulary", {"a", "b", "c", "z"})}),
                    {MapOf(std::move(keys), MakeTensor(DType::I64, {2}, {8, 4}))});
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0].tensor().shape, (Ints{1, 4}));
  ExpectNear(Out(o), {4, 0, 8, 0});
}

}  // namespace
}  // namespace plumb::testing
