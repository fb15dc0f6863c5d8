// Lowering of ONNX Resize, Upsample, GridSample and AffineGrid (lowering/onnx/resize.cpp,
// lowering/onnx/grid_sample.cpp): one-node models lowered and run on ref, compared with values
// worked out by hand from the ONNX operator definitions (each test says how).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "lowering/onnx/driver.h"
#include "runtime/ref_evaluator.h"
#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

using Doubles = std::vector<double>;

Doubles Lower1(const std::string& op, int64_t opset, const std::vector<NodeInput>& inputs,
               std::vector<onnx::OnnxAttribute> attrs) {
  std::vector<rt::RtValue> out = RunOneNode(op, opset, inputs, std::move(attrs), 1);
  if (out.empty()) return {};
  return Values(out[0]);
}

Ints OutShape(const std::string& op, int64_t opset, const std::vector<NodeInput>& inputs,
              std::vector<onnx::OnnxAttribute> attrs) {
  std::vector<rt::RtValue> out = RunOneNode(op, opset, inputs, std::move(attrs), 1);
  if (out.empty()) return {};
  return out[0].tensor().shape;
}

NodeInput Const(Ints shape, Doubles data, ir::DType dt = ir::DType::F32) { return {shape, data, dt, true}; }
NodeInput NoRoi() { return Const({0}, {}); }
NodeInput NoScales() { return Const({0}, {}); }
NodeInput Sizes(Ints v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return Const({n}, Doubles(v.begin(), v.end()), ir::DType::I64);
}
NodeInput Scales(Doubles v) { return Const({static_cast<int64_t>(v.size())}, v); }

// ---- Resize: nearest ---------------------------------------------------------------------------

// half_pixel, round_prefer_floor, scales 2 x 3: x = (o + 0.5) / 3 - 0.5 = -1/3, 0, 1/3, 2/3, 1, 4/3
// rounds to 0 0 0 1 1 1 (the ONNX doc example).
TEST(LowerResize, NearestUpsampleScales) {
  Doubles y = Lower1("Resize", 19, {{{1, 1, 2, 2}, {1, 2, 3, 4}}, NoRoi(), Scales({1, 1, 2, 3})}, {});
  ExpectNear(y, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
}

// asymmetric, scale 2: x = o / 2 = 0, .5, 1, 1.5, ... the halves pick the mode's side.
TEST(LowerResize, NearestModesOnHalves) {
  auto run = [](const char* mode) {
    return Lower1("Resize", 13, {{{4}, {10, 20, 30, 40}}, NoRoi(), Scales({2})},
                  {StrAttr("coordinate_transformation_mode", "asymmetric"), StrAttr("nearest_mode", mode)});
  };
  ExpectNear(run("round_prefer_floor"), {10, 10, 20, 20, 30, 30, 40, 40});
  ExpectNear(run("round_prefer_ceil"), {10, 20, 20, 30, 30, 40, 40, 40});  // 3.5 -> 4, clamped to 3
  ExpectNear(run("floor"), {10, 10, 20, 20, 30, 30, 40, 40});
  ExpectNear(run("ceil"), {10, 20, 20, 30, 30, 40, 40, 40});
}

// Nearest copies elements and keeps the dtype: i64 [5, -7] -> [5, 5, -7, -7].
TEST(LowerResize, NearestKeepsIntegerDtype) {
  std::vector<rt::RtValue> out =
      RunOneNode("Resize", 13, {{{2}, {5, -7}, ir::DType::I64}, NoRoi(), Scales({2})}, {}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().dtype, ir::DType::I64);
  ExpectNear(Values(out[0]), {5, 5, -7, -7});
}

// keep_aspect_ratio_policy not_larger: scale = min(1/2, 3/4) = 1/2, out = [1, 2]; half_pixel
// positions 0.5 (rows) and 0.5, 2.5 (cols) round down to 0 and 0, 2: [[1, 3]].
TEST(LowerResize, KeepAspectRatioNotLarger) {
  std::vector<NodeInput> in = {{{1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}}, NoRoi(), NoScales(), Sizes({1, 3})};
  std::vector<onnx::OnnxAttribute> attrs = {IntsAttr("axes", {2, 3}),
                                            StrAttr("keep_aspect_ratio_policy", "not_larger")};
  EXPECT_EQ(OutShape("Resize", 19, in, attrs), Ints({1, 1, 1, 2}));
  ExpectNear(Lower1("Resize", 19, in, attrs), {1, 3});
}

// not_smaller: scale = max(1/2, 3/4) = 3/4, out = round(1.5) = 2 rows, 3 cols.
TEST(LowerResize, KeepAspectRatioNotSmaller) {
  std::vector<NodeInput> in = {{{1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}}, NoRoi(), NoScales(), Sizes({1, 3})};
  std::vector<onnx::OnnxAttribute> attrs = {IntsAttr("axes", {2, 3}),
                                            StrAttr("keep_aspect_ratio_policy", "not_smaller")};
  EXPECT_EQ(OutShape("Resize", 19, in, attrs), Ints({1, 1, 2, 3}));
}

// axes in reverse order take scales in that order: axes [3, 2], scales [3, 2] = the 2 x 3 example.
TEST(LowerResize, AxesListedBackwards) {
  Doubles y = Lower1("Resize", 19, {{{1, 1, 2, 2}, {1, 2, 3, 4}}, NoRoi(), Scales({3, 2})},
                     {IntsAttr("axes", {3, 2})});
  ExpectNear(y, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
}

// ---- Resize: linear ------------------------------------------------------------------------------

// half_pixel 2x2 -> 4x4: positions -0.25, 0.25, 0.75, 1.25 (edges clamp) per axis.
TEST(LowerResize, LinearUpsampleHalfPixel) {
  Doubles y = Lower1("Resize", 19, {{{1, 1, 2, 2}, {1, 2, 3, 4}}, NoRoi(), Scales({1, 1, 2, 2})},
                     {StrAttr("mode", "linear")});
  ExpectNear(y, {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4});
}

// align_corners 2 -> 4: x = o / 3.
TEST(LowerResize, LinearAlignCorners) {
  Doubles y = Lower1("Resize", 13, {{{1, 1, 2, 2}, {1, 2, 3, 4}}, NoRoi(), Scales({1, 1, 2, 2})},
                     {StrAttr("mode", "linear"), StrAttr("coordinate_transformation_mode", "align_corners")});
  Doubles want;  // bilinear of [[1, 2], [3, 4]] is 1 + x + 2y
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) want.push_back(1 + j / 3.0 + 2 * i / 3.0);
  ExpectNear(y, want, 1e-5);
}

// align_corners uses the integer output length (spec text, onnxruntime): 4 -> floor(4 * 0.6) = 2
// gives x = o * 3 / (2 - 1) = 0, 3. (The ONNX reference divides by 4 * 0.6 - 1 = 1.4 instead.)
TEST(LowerResize, AlignCornersUsesIntegerOutputLength) {
  Doubles y = Lower1("Resize", 19, {{{4}, {1, 2, 3, 4}}, NoRoi(), Scales({0.6})},
                     {StrAttr("mode", "linear"), StrAttr("coordinate_transformation_mode", "align_corners")});
  ExpectNear(y, {1, 4});
}

// spec/onnx-rulings.md R7: nearest, asymmetric, scale 0.6 (torch's scale_factor=0.6): the ONNX
// text's x_original = x_resized / scale, with the f32 scale 0.6000000238, gives floor(3 / 0.6f) =
// floor(4.9999998) = 4 for output 3, where torch and onnxruntime compute floor(3 * (1 / 0.6)) = 5.
TEST(LowerResize, NearestAsymmetricDividesByTheScale) {
  Doubles y = Lower1("Resize", 19, {{{8}, {0, 1, 2, 3, 4, 5, 6, 7}}, NoRoi(), Scales({0.6})},
                     {StrAttr("mode", "nearest"), StrAttr("coordinate_transformation_mode", "asymmetric"),
                      StrAttr("nearest_mode", "floor")});
  ExpectNear(y, {0, 1, 3, 4});  // torch: 0, 1, 3, 5
}

// half_pixel_symmetric, 4 -> floor(2.4) = 2: offset = 2 * (1 - 2 / 2.4) = 1/3,
// x = 1/3 + (o + 0.5) / 0.6 - 0.5 = 2/3, 7/3 -> 1 + x.
TEST(LowerResize, LinearHalfPixelSymmetric) {
  Doubles y =
      Lower1("Resize", 19, {{{4}, {1, 2, 3, 4}}, NoRoi(), Scales({0.6})},
             {StrAttr("mode", "linear"), StrAttr("coordinate_transformation_mode", "half_pixel_symmetric")});
  ExpectNear(y, {1 + 2.0 / 3, 1 + 7.0 / 3}, 1e-5);
}

// half_pixel_symmetric is new in opset 19.
TEST(LowerResize, HalfPixelSymmetricUndefinedAtOpset18) {
  onnx::OnnxModel m = OneNodeModel("Resize", 18, {{{4}, {1, 2, 3, 4}}, NoRoi(), Scales({0.6})},
                                   {StrAttr("coordinate_transformation_mode", "half_pixel_symmetric")}, 1);
  EXPECT_FALSE(lower::lower_model(m, rt::RefEvaluator()).has_value());
}

// pytorch_half_pixel with one output position samples x = 0 (spec text), not -0.5.
TEST(LowerResize, PytorchHalfPixelSingleOutput) {
  Doubles y =
      Lower1("Resize", 13, {{{4}, {1, 2, 3, 4}}, NoRoi(), NoScales(), Sizes({1})},
             {StrAttr("mode", "cubic"), StrAttr("coordinate_transformation_mode", "pytorch_half_pixel")});
  ExpectNear(y, {1});  // x = 0 is a sample point: cubic weights (0, 1, 0, 0)
}

// tf_crop_and_resize, roi [0.5, 1.5], 3 outputs: x = 0.5 * 3 + o * 1 * 3 / 2 = 1.5, 3, 4.5;
// 4.5 > 3 is extrapolated.
TEST(LowerResize, TfCropAndResizeExtrapolates) {
  Doubles y =
      Lower1("Resize", 13, {{{4}, {1, 2, 3, 4}}, Const({2}, {0.5, 1.5}), NoScales(), Sizes({3})},
             {StrAttr("mode", "linear"), StrAttr("coordinate_transformation_mode", "tf_crop_and_resize"),
              FloatAttr("extrapolation_value", 10)});
  ExpectNear(y, {2.5, 4, 10});
}

// Nearest with tf_crop_and_resize: x = 1.5 (a half: round_prefer_floor -> 1), 3, 4.5 (extrapolated).
TEST(LowerResize, NearestTfCropAndResizeExtrapolates) {
  Doubles y = Lower1("Resize", 13, {{{4}, {1, 2, 3, 4}}, Const({2}, {0.5, 1.5}), NoScales(), Sizes({3})},
                     {StrAttr("coordinate_transformation_mode", "tf_crop_and_resize"),
                      FloatAttr("extrapolation_value", 10)});
  ExpectNear(y, {2, 4, 10});
}

// tf_half_pixel_for_nn (opsets 11, 12 only): x = (o + 0.5) / 0.5 = 1, 3.
TEST(LowerResize, TfHalfPixelForNnOpset11Only) {
  std::vector<NodeInput> in = {{{4}, {1, 2, 3, 4}}, NoRoi(), NoScales(), Sizes({2})};
  ExpectNear(Lower1("Resize", 11, in, {StrAttr("coordinate_transformation_mode", "tf_half_pixel_for_nn")}),
             {2, 4});
  onnx::OnnxModel m =
      OneNodeModel("Resize", 13, in, {StrAttr("coordinate_transformation_mode", "tf_half_pixel_for_nn")}, 1);
  EXPECT_FALSE(lower::lower_model(m, rt::RefEvaluator()).has_value());
}

// sizes 0 gives an empty result.
TEST(LowerResize, EmptyOutput) {
  EXPECT_EQ(OutShape("Resize", 13, {{{2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}}, NoRoi(), NoScales(), Sizes({2, 0})},
                     {StrAttr("mode", "linear")}),
            Ints({2, 0}));
}

// With scales, tf_crop_and_resize's output extent is floor(in * (end - start) * scale) = floor(4 * 0.5 * 2)
// = 4.
TEST(LowerResize, TfCropAndResizeExtentCountsRoi) {
  Ints shape =
      OutShape("Resize", 13, {{{4}, {1, 2, 3, 4}}, Const({2}, {0.25, 0.75}), Scales({2})},
               {StrAttr("mode", "linear"), StrAttr("coordinate_transformation_mode", "tf_crop_and_resize")});
  EXPECT_EQ(shape, Ints({4}));
}

// antialias, scale 0.5: the tent is stretched to [-2, 2] and normalised. o = 0: x = 0.5, taps
// -1..2 (clamped 0, 0, 1, 2) weigh 1/8, 3/8, 3/8, 1/8 -> 1.625; o = 1: x = 2.5 -> 3.375.
TEST(LowerResize, LinearAntialias) {
  Doubles y = Lower1("Resize", 18, {{{4}, {1, 2, 3, 4}}, NoRoi(), Scales({0.5})},
                     {StrAttr("mode", "linear"), IntAttr("antialias", 1)});
  ExpectNear(y, {1.625, 3.375});
}

// i32 linear: 63.75 and 191.25 would show truncation; halves round to even (2.5 -> 2, 7.5 -> 8).
TEST(LowerResize, LinearIntegerRoundsHalfToEven) {
  Doubles y = Lower1("Resize", 13, {{{2}, {0, 10}, ir::DType::I32}, NoRoi(), Scales({2})},
                     {StrAttr("mode", "linear")});
  ExpectNear(y, {0, 2, 8, 10});
  Doubles u = Lower1("Resize", 13, {{{2}, {0, 255}, ir::DType::U8}, NoRoi(), Scales({2})},
                     {StrAttr("mode", "linear")});
  ExpectNear(u, {0, 64, 191, 255});
}

// ---- Resize: cubic -----------------------------------------------------------------------------

// asymmetric, scale 2 on [0, 0, 1, 0]: at ratio 1/2 the Keys weights (a = -0.75) are
// -3/32, 19/32, 19/32, -3/32; integral positions copy.
TEST(LowerResize, CubicAsymmetric) {
  Doubles y = Lower1("Resize", 13, {{{4}, {0, 0, 1, 0}}, NoRoi(), Scales({2})},
                     {StrAttr("mode", "cubic"), StrAttr("coordinate_transformation_mode", "asymmetric")});
  ExpectNear(y, {0, -0.09375, 0, 0.59375, 1, 0.59375, 0, -0.09375});
}

// exclude_outside drops the taps off the tensor and renormalises: o = 1 (taps -1..2) divides by
// 1 + 3/32; o = 7 (taps 2..5) keeps -3/32 and 19/32, sum 1/2.
TEST(LowerResize, CubicExcludeOutside) {
  Doubles y = Lower1("Resize", 13, {{{4}, {0, 0, 1, 0}}, NoRoi(), Scales({2})},
                     {StrAttr("mode", "cubic"), StrAttr("coordinate_transformation_mode", "asymmetric"),
                      IntAttr("exclude_outside", 1)});
  ASSERT_EQ(y.size(), 8u);
  EXPECT_NEAR(y[1], -0.09375 / 1.09375, 1e-6);
  EXPECT_NEAR(y[7], -0.1875, 1e-6);
  EXPECT_NEAR(y[4], 1, 1e-6);
}

// ---- Resize-10 and Upsample --------------------------------------------------------------------

// Resize-10 nearest (asymmetric; no nearest_mode): downsampling takes ceil(o / 0.6) = 0, 2, 4.
TEST(LowerResize, Opset10NearestDownsampleCeil) {
  Doubles y = Lower1("Resize", 10, {{{5}, {1, 2, 3, 4, 5}}, Scales({0.6})}, {});
  ExpectNear(y, {1, 3, 5});
}

// Upsample nearest with scale 3 repeats (floor(o / 3)), unlike round_prefer_floor (2/3 -> 1).
TEST(LowerUpsample, NearestRepeatsOpset9) {
  Doubles y = Lower1("Upsample", 9, {{{2}, {1, 2}}, Scales({3})}, {});
  ExpectNear(y, {1, 1, 1, 2, 2, 2});
}

TEST(LowerUpsample, ScalesAttributeOpset7) {
  Doubles y =
      Lower1("Upsample", 7, {{{1, 2}, {1, 2}}}, {FloatsAttr("scales", {1, 2}), StrAttr("mode", "linear")});
  ExpectNear(y, {1, 1.5, 2, 2});  // asymmetric: x = o / 2
}

TEST(LowerUpsample, DeprecatedAtOpset10) {
  onnx::OnnxModel m = OneNodeModel("Upsample", 10, {{{2}, {1, 2}}, Scales({2})}, {}, 1);
  EXPECT_FALSE(lower::lower_model(m, rt::RefEvaluator()).has_value());
}

// ---- Resize: errors ------------------------------------------------------------------------------

TEST(LowerResize, ScalesAndSizesTogetherAreInvalid) {
  onnx::OnnxModel m =
      OneNodeModel("Resize", 13, {{{4}, {1, 2, 3, 4}}, NoRoi(), Scales({2}), Sizes({8})}, {}, 1);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_FALSE(g.has_value());
}

TEST(LowerResize, NonPositiveScaleIsInvalid) {
  onnx::OnnxModel m = OneNodeModel("Resize", 13, {{{4}, {1, 2, 3, 4}}, NoRoi(), Scales({0})}, {}, 1);
  EXPECT_FALSE(lower::lower_model(m, rt::RefEvaluator()).has_value());
}

// Sizes given as a graph input (a computed tensor) are a run-time operand (issue 13): nearest,
// half_pixel, round_prefer_floor from 4 to 8 positions: x = (o + 0.5) / 2 - 0.5 = -0.25, 0.25,
// 0.75, ... rounds to 0 0 1 1 2 2 3 3.
TEST(LowerResize, ComputedSizesAreARunTimeOperand) {
  NodeInput sizes{{1}, {8}, ir::DType::I64, false};  // a graph input: its value is unknown
  onnx::OnnxModel m = OneNodeModel("Resize", 13, {{{4}, {1, 2, 3, 4}}, NoRoi(), NoScales(), sizes}, {}, 1);
  std::vector<rt::RtValue> out =
      RunModel(m, {MakeTensor(ir::DType::F32, {4}, {1, 2, 3, 4}), MakeTensor(ir::DType::I64, {1}, {8})});
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {1, 1, 2, 2, 3, 3, 4, 4});
}

// ---- GridSample ----------------------------------------------------------------------------------

// X = [[1, 2], [3, 4]]; grid points (x, y): centre, top-left corner, (1, 0.5), (-0.5, 0.25), (2, 0).
// align_corners = 0 unnormalises to ((n + 1) * 2 - 1) / 2: (0.5, 0.5), (-0.5, -0.5), (1.5, 1),
// (0, 0.75), (2.5, 0.5).
NodeInput Image2x2() { return {{1, 1, 2, 2}, {1, 2, 3, 4}}; }
NodeInput Points() { return {{1, 1, 5, 2}, {0, 0, -1, -1, 1, 0.5, -0.5, 0.25, 2, 0}}; }

TEST(LowerGridSample, BilinearZeros) {
  ExpectNear(Lower1("GridSample", 20, {Image2x2(), Points()}, {}), {2.5, 0.25, 2.0, 2.5, 0});
}

// border: (-0.5, -0.5) lies inside [-0.5, 1.5] so is kept, its taps clamp to pixel 0; (2.5, 0.5)
// is clamped to (1, 0.5).
TEST(LowerGridSample, BilinearBorder) {
  ExpectNear(Lower1("GridSample", 20, {Image2x2(), Points()}, {StrAttr("padding_mode", "border")}),
             {2.5, 1, 4, 2.5, 3});
}

// reflection: 2.5 reflects off 1.5 to 0.5; tap 2 reflects to 1, tap -1 to 0.
TEST(LowerGridSample, BilinearReflection) {
  ExpectNear(Lower1("GridSample", 20, {Image2x2(), Points()}, {StrAttr("padding_mode", "reflection")}),
             {2.5, 1, 4, 2.5, 2.5});
}

// align_corners = 1: (n + 1) / 2 * (d - 1): (0.5, 0.5), (0, 0), (1, 0.75), (0.25, 0.625), (1.5, 0.5).
TEST(LowerGridSample, BilinearAlignCorners) {
  ExpectNear(Lower1("GridSample", 20, {Image2x2(), Points()}, {IntAttr("align_corners", 1)}),
             {2.5, 1, 3.5, 2.5, 1.5});
}

// nearest rounds half to even: 0.5 -> 0, -0.5 -> -0, 1.5 -> 2 (outside: 0), 0.75 -> 1, 2.5 -> 2.
TEST(LowerGridSample, NearestZeros) {
  ExpectNear(Lower1("GridSample", 20, {Image2x2(), Points()}, {StrAttr("mode", "nearest")}), {1, 1, 0, 3, 0});
}

// Opset 16 spells the modes bilinear / bicubic; nearest is the same.
TEST(LowerGridSample, Opset16ModeNames) {
  ExpectNear(Lower1("GridSample", 16, {Image2x2(), Points()}, {StrAttr("mode", "bilinear")}),
             {2.5, 0.25, 2.0, 2.5, 0});
  onnx::OnnxModel m = OneNodeModel("GridSample", 16, {Image2x2(), Points()}, {StrAttr("mode", "linear")}, 1);
  EXPECT_FALSE(lower::lower_model(m, rt::RefEvaluator()).has_value());
}

// cubic, align_corners: (1, -1) is pixel (0, 1) exactly; (0, -1) is x = 0.5 on row 0 with weights
// -3/32, 19/32, 19/32, -3/32 over columns -1..2: zeros -> 19/32 * 3; border -> row [1, 1, 2, 2].
TEST(LowerGridSample, Cubic) {
  NodeInput pts{{1, 1, 2, 2}, {1, -1, 0, -1}};
  ExpectNear(
      Lower1("GridSample", 20, {Image2x2(), pts}, {StrAttr("mode", "cubic"), IntAttr("align_corners", 1)}),
      {2, 1.78125});
  ExpectNear(
      Lower1("GridSample", 20, {Image2x2(), pts},
             {StrAttr("mode", "cubic"), IntAttr("align_corners", 1), StrAttr("padding_mode", "border")}),
      {2, 1.5});
}

// 3-D: X[d, h, w] = 4d + 2h + w is linear, so trilinear sampling reproduces it.
// align_corners: (x, y, z) = (0, 0, 0) -> 3.5; (1, -1, 1) -> 5; (0.5, -0.5, 0) -> w .75, h .25, d .5.
TEST(LowerGridSample, Volumetric) {
  NodeInput x{{1, 1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}};
  NodeInput pts{{1, 1, 1, 3, 3}, {0, 0, 0, 1, -1, 1, 0.5, -0.5, 0}};
  ExpectNear(Lower1("GridSample", 20, {x, pts}, {IntAttr("align_corners", 1)}), {3.5, 5, 3.25});
  onnx::OnnxModel m = OneNodeModel("GridSample", 16, {x, pts}, {}, 1);
  EXPECT_FALSE(lower::lower_model(m, rt::RefEvaluator()).has_value());  // opset 16 is 4-D only
}

// Integer X: computed in floating point and cast (toward zero) at the end: 2.5 -> 2, -2.5 -> -2.
TEST(LowerGridSample, IntegerTruncates) {
  NodeInput pt{{1, 1, 1, 2}, {0, 0}};
  ExpectNear(
      Lower1("GridSample", 20, {{{1, 1, 1, 2}, {0, 5}, ir::DType::I32}, pt}, {IntAttr("align_corners", 1)}),
      {2});
  ExpectNear(
      Lower1("GridSample", 20, {{{1, 1, 1, 2}, {0, -5}, ir::DType::I32}, pt}, {IntAttr("align_corners", 1)}),
      {-2});
}

// A NaN position samples nothing (0), in every padding mode.
TEST(LowerGridSample, NaNPositionGivesZero) {
  const double nan = std::nan("");
  NodeInput pt{{1, 1, 1, 2}, {nan, 0}};
  for (const char* pad : {"zeros", "border", "reflection"})
    ExpectNear(Lower1("GridSample", 20, {Image2x2(), pt}, {StrAttr("padding_mode", pad)}), {0});
}

// ---- AffineGrid ----------------------------------------------------------------------------------

// align_corners = 0: pixel centres -1 + (2i + 1) / L; x' = 2x + 0.5, y' = y - 1.
TEST(LowerAffineGrid, TwoD) {
  NodeInput theta{{1, 2, 3}, {2, 0, 0.5, 0, 1, -1}};
  Doubles g = Lower1("AffineGrid", 20, {theta, Sizes({1, 1, 2, 3})}, {});
  const double a = -2.0 / 3, c = 2.0 / 3;
  ExpectNear(
      g, {2 * a + 0.5, -1.5, 0.5, -1.5, 2 * c + 0.5, -1.5, 2 * a + 0.5, -0.5, 0.5, -0.5, 2 * c + 0.5, -0.5},
      1e-6);
}

// align_corners = 1 spans the corner centres; theta swaps x and y.
TEST(LowerAffineGrid, TwoDAlignCorners) {
  NodeInput theta{{1, 2, 3}, {0, 1, 0, 1, 0, 0}};
  ExpectNear(Lower1("AffineGrid", 20, {theta, Sizes({1, 1, 2, 2})}, {IntAttr("align_corners", 1)}),
             {-1, -1, -1, 1, 1, -1, 1, 1});
}

// 3-D, D = 2, H = 1 (a single position: -1 with align_corners), W = 2; x' = x + 0.5.
TEST(LowerAffineGrid, ThreeD) {
  NodeInput theta{{1, 3, 4}, {1, 0, 0, 0.5, 0, 1, 0, 0, 0, 0, 1, 0}};
  Ints shape = OutShape("AffineGrid", 20, {theta, Sizes({1, 1, 2, 1, 2})}, {IntAttr("align_corners", 1)});
  EXPECT_EQ(shape, Ints({1, 2, 1, 2, 3}));
  ExpectNear(Lower1("AffineGrid", 20, {theta, Sizes({1, 1, 2, 1, 2})}, {IntAttr("align_corners", 1)}),
             {-0.5, -1, -1, 1.5, -1, -1, -0.5, -1, 1, 1.5, -1, 1});
}

TEST(LowerAffineGrid, ThetaShapeMustMatchSize) {
  NodeInput theta{{1, 2, 3}, {1, 0, 0, 0, 1, 0}};
  onnx::OnnxModel m = OneNodeModel("AffineGrid", 20, {theta, Sizes({2, 1, 2, 2})}, {}, 1);
  EXPECT_FALSE(lower::lower_model(m, rt::RefEvaluator()).has_value());
}

}  // namespace
}  // namespace plumb::testing
