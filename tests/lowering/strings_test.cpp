// Lowering of the string ops and TfIdfVectorizer (lowering/onnx/strings.cpp): one-node models,
// lowered, run on ref; expected values worked out by hand from the ONNX definitions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

using Strs = std::vector<std::string>;

struct StrInput {
  Ints shape;
  Strs data;
};

// One-node model with string graph inputs i0, i1, ...; outputs o0, o1, ...
std::vector<rt::RtValue> RunStrings(const std::string& op, int64_t opset, const std::vector<StrInput>& inputs,
                                    std::vector<onnx::OnnxAttribute> attrs, size_t num_outputs) {
  std::vector<NodeInput> decl;
  std::vector<rt::RtValue> values;
  for (const StrInput& in : inputs) {
    decl.push_back({in.shape, {}, ir::DType::String});
    values.push_back(StrTensor(in.shape, in.data));
  }
  return RunModel(OneNodeModel(op, opset, decl, std::move(attrs), num_outputs), std::move(values));
}

Ints Dims(const rt::RtValue& v) { return v.tensor().shape; }

TEST(LowerStringConcat, BroadcastsAndAppendsBytes) {
  auto out = RunStrings("StringConcat", 20, {{{2}, {"a", "\xc3\xa9"}}, {{1}, {"x"}}}, {}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(StrValues(out[0]), (Strs{"ax", "\xc3\xa9x"}));
  EXPECT_EQ(Dims(out[0]), (Ints{2}));
}

TEST(LowerStringSplit, DelimiterKeepsEmptyPartsAndPads) {
  auto out = RunStrings("StringSplit", 20, {{{2}, {"a,b,,c", "d"}}}, {StrAttr("delimiter", ",")}, 2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Dims(out[0]), (Ints{2, 4}));
  EXPECT_EQ(StrValues(out[0]), (Strs{"a", "b", "", "c", "d", "", "", ""}));
  EXPECT_EQ(Values(out[1]), (std::vector<double>{4, 1}));
}

TEST(LowerStringSplit, MaxsplitLeavesTheRestInTheLastPart) {
  auto out = RunStrings("StringSplit", 20, {{{2}, {"a,b,,c", "d"}}},
                        {StrAttr("delimiter", ","), IntAttr("maxsplit", 1)}, 2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(StrValues(out[0]), (Strs{"a", "b,,c", "d", ""}));
  EXPECT_EQ(Values(out[1]), (std::vector<double>{2, 1}));
}

TEST(LowerStringSplit, NoDelimiterSplitsWhitespaceRuns) {
  auto out = RunStrings("StringSplit", 20, {{{2}, {"  hello \t world ", ""}}}, {}, 2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(Dims(out[0]), (Ints{2, 2}));
  EXPECT_EQ(StrValues(out[0]), (Strs{"hello", "world", "", ""}));
  EXPECT_EQ(Values(out[1]), (std::vector<double>{2, 0}));
}

TEST(LowerRegexFullMatch, WholeStringMustMatch) {
  auto out = RunStrings("RegexFullMatch", 20, {{{3}, {"aab", "aab c", "b"}}}, {StrAttr("pattern", "a+b")}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{1, 0, 0}));
}

TEST(LowerStringNormalizer, CaseInsensitiveStopwordsThenLower) {
  auto out = RunStrings("StringNormalizer", 10, {{{3}, {"monday", "TUESDAY", "MONDAY x"}}},
                        {StrsAttr("stopwords", {"Monday"}), StrAttr("case_change_action", "LOWER")}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(StrValues(out[0]), (Strs{"tuesday", "monday x"}));
}

TEST(LowerStringNormalizer, CaseSensitiveStopwordsKeepOtherCases) {
  auto out = RunStrings("StringNormalizer", 10, {{{1, 3}, {"monday", "Monday", "\xc3\xa9t\xc3\xa9"}}},
                        {StrsAttr("stopwords", {"Monday"}), IntAttr("is_case_sensitive", 1),
                         StrAttr("case_change_action", "UPPER")},
                        1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Dims(out[0]), (Ints{1, 2}));
  // U+00E9 -> U+00C9 by the core's locale-free case map.
  EXPECT_EQ(StrValues(out[0]), (Strs{"MONDAY", "\xc3\x89T\xc3\x89"}));
}

TEST(LowerStringNormalizer, AllRemovedGivesOneEmptyString) {
  auto out = RunStrings("StringNormalizer", 10, {{{1, 2}, {"a", "A"}}}, {StrsAttr("stopwords", {"a"})}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Dims(out[0]), (Ints{1, 1}));
  EXPECT_EQ(StrValues(out[0]), (Strs{""}));
  auto flat = RunStrings("StringNormalizer", 10, {{{2}, {"a", "A"}}}, {StrsAttr("stopwords", {"a"})}, 1);
  ASSERT_EQ(flat.size(), 1u);
  EXPECT_EQ(Dims(flat[0]), (Ints{1}));
}

TEST(LowerStringNormalizer, NoStopwordsOnlyChangesCase) {
  auto out =
      RunStrings("StringNormalizer", 10, {{{2}, {"Ab", ""}}}, {StrAttr("case_change_action", "UPPER")}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(StrValues(out[0]), (Strs{"AB", ""}));
}

// X = [2, 1, 3, 2, 5, 3]; pool: unigrams 2, 3 and the bigram (2, 3), on columns 0, 1, 2.
// Unigrams: 2 twice, 3 twice. Bigram (2, 3) adjacent: never; at distance 2: positions 0-2, 3-5.
std::vector<onnx::OnnxAttribute> TfIdfAttrs(const std::string& mode, int64_t min_gram, int64_t skip,
                                            std::vector<float> weights = {}) {
  std::vector<onnx::OnnxAttribute> a{StrAttr("mode", mode),
                                     IntAttr("min_gram_length", min_gram),
                                     IntAttr("max_gram_length", 2),
                                     IntAttr("max_skip_count", skip),
                                     IntsAttr("ngram_counts", {0, 2}),
                                     IntsAttr("ngram_indexes", {0, 1, 2}),
                                     IntsAttr("pool_int64s", {2, 3, 2, 3})};
  if (!weights.empty()) a.push_back(FloatsAttr("weights", weights));
  return a;
}

const NodeInput kTfIdfX{{6}, {2, 1, 3, 2, 5, 3}, ir::DType::I64};

TEST(LowerTfIdfVectorizer, TfCountsSkipGrams) {
  auto out = RunOneNode("TfIdfVectorizer", 9, {kTfIdfX}, TfIdfAttrs("TF", 1, 0), 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {2, 2, 0});
  out = RunOneNode("TfIdfVectorizer", 9, {kTfIdfX}, TfIdfAttrs("TF", 1, 1), 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {2, 2, 2});
}

TEST(LowerTfIdfVectorizer, MinGramLengthDropsUnigrams) {
  auto out = RunOneNode("TfIdfVectorizer", 9, {kTfIdfX}, TfIdfAttrs("TF", 2, 1), 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {0, 0, 2});
}

TEST(LowerTfIdfVectorizer, IdfAndTfidfWeights) {
  auto out = RunOneNode("TfIdfVectorizer", 9, {kTfIdfX}, TfIdfAttrs("IDF", 1, 0, {0.5f, 1.0f, 2.0f}), 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {0.5, 1, 0});
  out = RunOneNode("TfIdfVectorizer", 9, {kTfIdfX}, TfIdfAttrs("TFIDF", 1, 1, {0.5f, 1.0f, 2.0f}), 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {1, 2, 4});
  out = RunOneNode("TfIdfVectorizer", 9, {kTfIdfX}, TfIdfAttrs("IDF", 1, 1), 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {1, 1, 1});
}

// weights are parallel to the pool, not to the output columns (ONNX's text; onnxruntime-node 1.30
// gives [20, 30, 20] here): X = [1, 2, 1, 3], pool 1, 2, 3 on columns 2, 0, 1 with weights 10, 20,
// 30, so column 2 holds 1's count 2 times 10. Found by plumb gen's campaign (docs/gen.md).
TEST(LowerTfIdfVectorizer, WeightsFollowThePoolThroughNgramIndexes) {
  const NodeInput x{{4}, {1, 2, 1, 3}, ir::DType::I64};
  const std::vector<onnx::OnnxAttribute> a{
      StrAttr("mode", "TFIDF"),           IntAttr("min_gram_length", 1),
      IntAttr("max_gram_length", 1),      IntAttr("max_skip_count", 0),
      IntsAttr("ngram_counts", {0}),      IntsAttr("ngram_indexes", {2, 0, 1}),
      IntsAttr("pool_int64s", {1, 2, 3}), FloatsAttr("weights", {10, 20, 30})};
  auto out = RunOneNode("TfIdfVectorizer", 9, {x}, a, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {20, 30, 20});
}

TEST(LowerTfIdfVectorizer, BatchRowsCountSeparately) {
  NodeInput x{{2, 3}, {2, 3, 3, 5, 5, 2}, ir::DType::I32};
  auto out = RunOneNode("TfIdfVectorizer", 9, {x}, TfIdfAttrs("TF", 1, 0), 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().shape, (Ints{2, 3}));
  ExpectNear(Values(out[0]), {1, 2, 1, 1, 0, 0});
}

TEST(LowerTfIdfVectorizer, StringPool) {
  onnx::OnnxAttribute pool = StrsAttr("pool_strings", {"a", "b", "a", "b"});
  auto out = RunStrings("TfIdfVectorizer", 9, {{{4}, {"a", "b", "a", "c"}}},
                        {StrAttr("mode", "TF"), IntAttr("min_gram_length", 1), IntAttr("max_gram_length", 2),
                         IntAttr("max_skip_count", 0), IntsAttr("ngram_counts", {0, 2}),
                         IntsAttr("ngram_indexes", {2, 1, 0}), pool},
                        1);
  ASSERT_EQ(out.size(), 1u);
  // a: 2 -> column 2; b: 1 -> column 1; (a, b): 1 -> column 0.
  ExpectNear(Values(out[0]), {1, 1, 2});
}

}  // namespace
}  // namespace plumb::testing
