// Lowering of NonMaxSuppression, RoiAlign and MaxRoiPool (lowering/onnx/detection.cpp): one-node
// models, lowered, run on ref; expected values worked out by hand from the ONNX definitions (and
// onnxruntime's, for MaxRoiPool, which ONNX gives no formula for).
#include <gtest/gtest.h>

#include <vector>

#include "runtime/ref_evaluator.h"
#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

using Doubles = std::vector<double>;

// Boxes (y1, x1, y2, x2): b0 = unit square, b1 = b0 shifted by 0.1 in x (IoU 0.9 / 1.1 = 0.818),
// b2 far away. Scores 0.9, 0.8, 0.7.
const NodeInput kBoxes{{1, 3, 4}, {0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, 2, 1, 3}};
const NodeInput kScores{{1, 1, 3}, {0.9, 0.8, 0.7}};
NodeInput I64(double v) { return {{1}, {v}, ir::DType::I64}; }
NodeInput F32(double v) { return {{1}, {v}}; }

TEST(LowerNonMaxSuppression, SuppressesOverlapAboveThreshold) {
  auto out = RunOneNode("NonMaxSuppression", 11, {kBoxes, kScores, I64(3), F32(0.5)}, {}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().shape, (Ints{2, 3}));
  EXPECT_EQ(Values(out[0]), (Doubles{0, 0, 0, 0, 0, 2}));
  out = RunOneNode("NonMaxSuppression", 10, {kBoxes, kScores, I64(3), F32(0.9)}, {}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (Doubles{0, 0, 0, 0, 0, 1, 0, 0, 2}));
}

TEST(LowerNonMaxSuppression, ScoreThresholdAndMaxOutput) {
  auto out = RunOneNode("NonMaxSuppression", 11, {kBoxes, kScores, I64(3), F32(0.9), F32(0.75)}, {}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (Doubles{0, 0, 0, 0, 0, 1}));
  out = RunOneNode("NonMaxSuppression", 11, {kBoxes, kScores, I64(1), F32(0.9)}, {}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (Doubles{0, 0, 0}));
}

TEST(LowerNonMaxSuppression, NoMaxOutputInputSelectsNothing) {
  auto out = RunOneNode("NonMaxSuppression", 11, {kBoxes, kScores}, {}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().shape, (Ints{0, 3}));
}

// Equal scores: the lower box index first; the box order follows the scores, not the indices.
TEST(LowerNonMaxSuppression, TiesTakeLowerIndexFirst) {
  NodeInput scores{{1, 1, 3}, {0.5, 0.5, 0.6}};
  NodeInput boxes{{1, 3, 4}, {0, 0, 1, 1, 0, 2, 1, 3, 0, 4, 1, 5}};
  auto out = RunOneNode("NonMaxSuppression", 11, {boxes, scores, I64(5), F32(0.5)}, {}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (Doubles{0, 0, 2, 0, 0, 0, 0, 0, 1}));
}

// Center format: (xc, yc, w, h). b0 = unit square at the origin, b1 = the same shifted by 0.1.
TEST(LowerNonMaxSuppression, CenterPointBoxAndTwoBatchesTwoClasses) {
  NodeInput boxes{{2, 2, 4}, {0.5, 0.5, 1, 1, 0.6, 0.5, 1, 1, 0.5, 0.5, 1, 1, 5, 5, 1, 1}};
  // scores [2 batches, 2 classes, 2 boxes]
  NodeInput scores{{2, 2, 2}, {0.9, 0.8, 0.1, 0.2, 0.3, 0.4, 0.6, 0.5}};
  auto out = RunOneNode("NonMaxSuppression", 11, {boxes, scores, I64(2), F32(0.5)},
                        {IntAttr("center_point_box", 1)}, 1);
  ASSERT_EQ(out.size(), 1u);
  // batch 0: overlapping boxes, one survives per class (the higher score). batch 1: disjoint.
  EXPECT_EQ(Values(out[0]), (Doubles{0, 0, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1}));
}

// Boxes and scores of symbolic sizes: the loop reads N from the scores' shape at run time.
TEST(LowerNonMaxSuppression, SymbolicDims) {
  std::vector<NodeInput> in{kBoxes, kScores, I64(3), F32(0.5)};
  onnx::OnnxModel m = OneNodeModel("NonMaxSuppression", 11, in, {}, 1);
  m.graph.inputs[0].type =
      ir::Type::tensor(ir::DType::F32, ir::Shape{ir::Dim(1), ir::Dim::symbolic("N"), ir::Dim(4)});
  m.graph.inputs[1].type =
      ir::Type::tensor(ir::DType::F32, ir::Shape{ir::Dim::symbolic("B"), ir::Dim(1), ir::Dim::symbolic("N")});
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  auto s = rt::Session::create(std::move(*g));
  ASSERT_TRUE(s.has_value()) << s.status().to_string();
  for (size_t k = 0; k < in.size(); ++k)
    ASSERT_TRUE((*s)->set_input(k, MakeTensor(in[k].dtype, in[k].shape, in[k].data)).is_ok());
  Status st = (*s)->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(Values((*s)->outputs()[0]), (Doubles{0, 0, 0, 0, 0, 2}));
}

// X = [[1, 2], [3, 4]]; one RoI covering it; one output cell.
const NodeInput kMap{{1, 1, 2, 2}, {1, 2, 3, 4}};
NodeInput Roi(double x1, double y1, double x2, double y2) { return {{1, 4}, {x1, y1, x2, y2}}; }
const NodeInput kBatch0{{1}, {0}, ir::DType::I64};

TEST(LowerRoiAlign, OutputHalfPixelSamplesTheBinCenter) {
  // sample at (0.5, 0.5): bilinear = 2.5
  auto out = RunOneNode(
      "RoiAlign", 16, {kMap, Roi(0, 0, 1, 1), kBatch0},
      {StrAttr("coordinate_transformation_mode", "output_half_pixel"), IntAttr("sampling_ratio", 1)}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {2.5});
  // opset 10 has no attribute and behaves as output_half_pixel
  out = RunOneNode("RoiAlign", 10, {kMap, Roi(0, 0, 1, 1), kBatch0}, {IntAttr("sampling_ratio", 1)}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {2.5});
}

TEST(LowerRoiAlign, HalfPixelShiftsByHalf) {
  // RoI [-0.5, 0.5] in both axes: the sample lands on (0, 0) = 1
  auto out = RunOneNode("RoiAlign", 22, {kMap, Roi(0, 0, 1, 1), kBatch0}, {IntAttr("sampling_ratio", 1)}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {1.0});
}

TEST(LowerRoiAlign, AdaptiveGridAveragesFourSamples) {
  // roi 2 x 2, output 1 x 1: ceil(2 / 1) = 2 samples per axis at 0.5 and 1.5 (clamped to row/col 1):
  // (2.5 + 3 + 3.5 + 4) / 4 = 3.25
  auto out = RunOneNode("RoiAlign", 22, {kMap, Roi(0, 0, 2, 2), kBatch0},
                        {StrAttr("coordinate_transformation_mode", "output_half_pixel")}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {3.25});
}

TEST(LowerRoiAlign, AdaptiveGridPerRoiAndBatchIndices) {
  NodeInput x{{2, 1, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40}};
  NodeInput rois{{2, 4}, {0, 0, 2, 2, 0, 0, 1, 1}};
  NodeInput batch{{2}, {0, 1}, ir::DType::I64};
  auto out = RunOneNode("RoiAlign", 16, {x, rois, batch},
                        {StrAttr("coordinate_transformation_mode", "output_half_pixel")}, 1);
  ASSERT_EQ(out.size(), 1u);
  // RoI 0 as above on batch 0; RoI 1: one sample at (0.5, 0.5) on batch 1 = 25
  ExpectNear(Values(out[0]), {3.25, 25.0}, 1e-5);
}

TEST(LowerRoiAlign, MaxModeTakesLargestWeightedCorner) {
  // one sample at (0.5, 0.5), all weights 0.25: max(0.25, 0.5, 0.75, 1.0)
  auto out = RunOneNode("RoiAlign", 16, {kMap, Roi(0, 0, 1, 1), kBatch0},
                        {StrAttr("coordinate_transformation_mode", "output_half_pixel"),
                         StrAttr("mode", "max"), IntAttr("sampling_ratio", 1)},
                        1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {1.0});
}

TEST(LowerRoiAlign, SamplesOutsideTheMapCountAsZero) {
  // RoI far to the right of a 2 x 2 map: every sample has x > W, so the average is 0.
  auto out = RunOneNode(
      "RoiAlign", 16, {kMap, Roi(5, 0, 6, 1), kBatch0},
      {StrAttr("coordinate_transformation_mode", "output_half_pixel"), IntAttr("sampling_ratio", 2)}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {0.0});
}

// X = 0..15 on a 4 x 4 map.
NodeInput Map16() {
  Doubles v;
  for (int i = 0; i < 16; ++i) v.push_back(i);
  return {{1, 1, 4, 4}, v};
}

TEST(LowerMaxRoiPool, BinsOfTheRoundedRoi) {
  NodeInput rois{{1, 5}, {0, 0, 0, 3, 3}};
  auto out = RunOneNode("MaxRoiPool", 1, {Map16(), rois}, {IntsAttr("pooled_shape", {2, 2})}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().shape, (Ints{1, 1, 2, 2}));
  ExpectNear(Values(out[0]), {5, 7, 13, 15});
}

TEST(LowerMaxRoiPool, InnerRoiOneBin) {
  NodeInput rois{{1, 5}, {0, 1, 1, 2, 2}};
  auto out = RunOneNode("MaxRoiPool", 1, {Map16(), rois}, {IntsAttr("pooled_shape", {1, 1})}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {10});
}

TEST(LowerMaxRoiPool, SpatialScaleRoundsHalfAwayFromZero) {
  // 5 * 0.5 = 2.5 rounds to 3 (not 2): the RoI covers the whole map.
  NodeInput rois{{1, 5}, {0, 0, 0, 5, 5}};
  auto out = RunOneNode("MaxRoiPool", 1, {Map16(), rois},
                        {IntsAttr("pooled_shape", {1, 1}), FloatAttr("spatial_scale", 0.5f)}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {15});
}

TEST(LowerMaxRoiPool, RoiOutsideTheMapGivesZero) {
  NodeInput rois{{1, 5}, {0, 7, 7, 9, 9}};
  auto out = RunOneNode("MaxRoiPool", 1, {Map16(), rois}, {IntsAttr("pooled_shape", {1, 1})}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {0});
}

}  // namespace
}  // namespace plumb::testing
