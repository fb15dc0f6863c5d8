// Resize whose extents are only known at run time (issue 13): an input with symbolic dims, or
// sizes/scales computed by the graph. resize.cpp builds each axis' interpolation table at build
// time; here the same table is computed by the graph, in f64, from iota over the output positions,
// so one .plumb serves every input size. resize.cpp calls this when its static path cannot run.
#pragma once

#include <cstdint>
#include <vector>

#include "lowering/onnx/context.h"

namespace plumb::lower::resize {

enum class Mode { Nearest, Linear, Cubic };
enum class Coord {
  HalfPixel,
  HalfPixelSymmetric,
  PytorchHalfPixel,
  AlignCorners,
  Asymmetric,
  TfHalfPixelForNn,
  TfCropAndResize
};
// Simple: Resize-10 and Upsample, which have no nearest_mode: floor when upsampling, ceil when
// downsampling (what onnxruntime does for them; Upsample's reference is np.repeat, i.e. floor).
enum class Nearest { RoundPreferFloor, RoundPreferCeil, Floor, Ceil, Simple };

struct Params {
  Mode mode = Mode::Nearest;
  Coord coord = Coord::Asymmetric;
  Nearest nearest = Nearest::Simple;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  bool antialias = false;
  double extrapolation = 0.0;
};

// What the run-time path takes: the resized axes (normalised, in the order of sizes/scales), and
// exactly one of `sizes` (i64[axes]) or `scales` (a float [axes]) as graph values.
struct RuntimeSpec {
  Params p;
  std::vector<int64_t> axes;
  ir::ValueId sizes = ir::kNoValue;
  ir::ValueId scales = ir::kNoValue;
};

// Emits the resize of x and binds output 0; an unsupported combination (antialias,
// exclude_outside, tf_crop_and_resize, half_pixel_symmetric, a keep_aspect_ratio_policy other than
// stretch: the caller checks that one) is refused naming what, and saying that `plumb run` or
// `plumb check` with input data will work (they specialize on the input shapes first).
// f64 -> an integer dtype: round half to even, then saturate (the ONNX reference's saturate_cast).
ir::ValueId f64_to_int(LowerCtx& cx, ir::ValueId v, ir::DType dt);

Status emit_runtime_resize(LowerCtx& cx, const onnx::OnnxNode& n, ir::ValueId x, const RuntimeSpec& s,
                           const std::string& what);

}  // namespace plumb::lower::resize
