// Lowering rules for Resize (10, 11, 13, 18, 19) and Upsample (7, 9); GridSample and AffineGrid
// live in grid_sample.cpp and are registered from here.
//
// Resize is separable: the output is resized one axis at a time, last axis first (the order of
// the ONNX reference's nested 1-D interpolation). Input shape and scales/sizes are known when the
// rule runs, so every axis gets a table, computed here in double: for each output position the
// input indices of its taps (clamped, which is ONNX's edge padding) and their weights, plus
// whether the position is extrapolated (tf_crop_and_resize). An axis then lowers to one gather per
// tap slot, a multiply by the constant weights and a sum (each output is a weighted sum of its
// own taps only, so a NaN or inf elsewhere in the row does not leak in, as it would through a
// matmul with a constant interpolation matrix).
//
// Numerics: nearest copies elements (a gather, any dtype, bit for bit). Linear and cubic compute
// in f64 and round once to the output dtype: the weights are exact to double precision and the
// f32/f16 sums then differ from the exact weighted sum by one final rounding. Integer outputs are
// rounded half to even and saturated (the ONNX reference's saturate_cast).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"
#include "lowering/onnx/resize_runtime.h"

namespace plumb::lower {

void register_grid_sample(Registry& r);  // grid_sample.cpp

using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using UK = ir::UnaryKind;

namespace {

using Ints = std::vector<int64_t>;
constexpr ir::DType kF64 = ir::DType::F64;
constexpr int64_t kMaxExtent = int64_t{1} << 31;        // an output extent larger than this is refused
constexpr int64_t kMaxTableEntries = int64_t{1} << 24;  // taps * output positions per axis

using resize::Coord;
using resize::Mode;
using resize::Nearest;
using resize::Params;

// One axis: out positions, `taps` slots each; idx/w are [taps][out] (slot-major).
struct AxisPlan {
  int64_t in = 0, out = 0, taps = 0;
  Ints idx;
  std::vector<double> w;
  std::vector<int64_t> extrapolated;  // 0/1 per output position
  bool any_extrapolated = false;
};

// The source coordinate of output position o (ONNX Resize coordinate_transformation_mode).
// `scale` is the scale the axis uses, `out` the integer output length; `roi` = {start, end}.
double source_coord(Coord c, double o, double scale, int64_t in, int64_t out, double roi_start,
                    double roi_end) {
  const double length_in = static_cast<double>(in);
  switch (c) {
    case Coord::HalfPixel: return (o + 0.5) / scale - 0.5;
    case Coord::HalfPixelSymmetric: {
      const double adjustment = static_cast<double>(out) / (scale * length_in);
      const double center = length_in / 2;
      const double offset = center * (1 - adjustment);
      return offset + (o + 0.5) / scale - 0.5;
    }
    case Coord::PytorchHalfPixel: return out > 1 ? (o + 0.5) / scale - 0.5 : 0.0;
    case Coord::AlignCorners: return out > 1 ? o * (length_in - 1) / static_cast<double>(out - 1) : 0.0;
    case Coord::Asymmetric: return o / scale;
    case Coord::TfHalfPixelForNn: return (o + 0.5) / scale;
    case Coord::TfCropAndResize:
      return out > 1 ? roi_start * (length_in - 1) +
                           o * (roi_end - roi_start) * (length_in - 1) / static_cast<double>(out - 1)
                     : 0.5 * (roi_start + roi_end) * (length_in - 1);
  }
  return 0.0;
}

double nearest_index(Nearest m, double x, double scale) {
  switch (m) {
    case Nearest::RoundPreferFloor: return std::ceil(x - 0.5);  // halves go down
    case Nearest::RoundPreferCeil: return std::floor(x + 0.5);  // halves go up
    case Nearest::Floor: return std::floor(x);
    case Nearest::Ceil: return std::ceil(x);
    case Nearest::Simple: return scale < 1 ? std::ceil(x) : std::floor(x);
  }
  return 0.0;
}

// Keys' cubic convolution kernel with parameter a, at distance t.
double cubic_kernel(double t, double a) {
  t = std::fabs(t);
  if (t <= 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0.0;
}

int64_t clamp_index(double i, int64_t in) {
  return static_cast<int64_t>(std::min(std::max(i, 0.0), static_cast<double>(in - 1)));
}

// The taps of one axis (ONNX reference semantics: the ratio r of x to its left neighbour i0 is
// taken in (0, 1], so an integral x has i0 = x - 1 and weight 1 on the next tap).
Expected<AxisPlan> plan_axis(const Params& p, int64_t in, int64_t out, double scale, double roi_start,
                             double roi_end) {
  AxisPlan a;
  a.in = in;
  a.out = out;
  int64_t first = 0;  // offset of the first tap from i0
  if (p.mode == Mode::Nearest) {
    a.taps = 1;
  } else if (!p.antialias || scale >= 1) {
    a.taps = p.mode == Mode::Linear ? 2 : 4;
    first = p.mode == Mode::Linear ? 0 : -1;
  } else {
    // Antialias stretches the filter by 1/scale (support 1 for linear, 2 for cubic).
    const double support = p.mode == Mode::Linear ? 1.0 : 2.0;
    const double start = std::floor(-support / scale) + 1;
    if (!(start > -static_cast<double>(kMaxTableEntries)))
      return unsupported("Resize antialias filter too wide");
    first = static_cast<int64_t>(start);
    a.taps = 2 - 2 * first;
  }
  if (a.taps * out > kMaxTableEntries) return unsupported("Resize interpolation table too large");
  a.idx.assign(static_cast<size_t>(a.taps * out), 0);
  a.w.assign(static_cast<size_t>(a.taps * out), 0.0);
  a.extrapolated.assign(static_cast<size_t>(out), 0);
  const double aa_scale = p.antialias ? std::min(scale, 1.0) : 1.0;
  std::vector<double> w(static_cast<size_t>(a.taps));
  for (int64_t o = 0; o < out; ++o) {
    const double x = source_coord(p.coord, static_cast<double>(o), scale, in, out, roi_start, roi_end);
    if (p.coord == Coord::TfCropAndResize && (x < 0 || x > static_cast<double>(in - 1))) {
      a.extrapolated[o] = 1;
      a.any_extrapolated = true;
    }
    if (p.mode == Mode::Nearest) {
      a.idx[o] = clamp_index(nearest_index(p.nearest, x, scale), in);
      a.w[o] = 1.0;
      continue;
    }
    const double fl = std::floor(x);
    const double i0 = fl == x ? x - 1 : fl;
    const double ratio = x - i0;
    double sum = 0;
    for (int64_t t = 0; t < a.taps; ++t) {
      const double k = static_cast<double>(first + t);
      if (p.mode == Mode::Linear)
        w[t] = std::max(0.0, 1 - std::fabs((k - ratio) * aa_scale));
      else
        w[t] = cubic_kernel((k - ratio) * aa_scale, p.cubic_a);
      const double i = i0 + k;
      if (p.exclude_outside && (i < 0 || i >= static_cast<double>(in))) w[t] = 0;
      sum += w[t];
    }
    // Antialiased filters are normalised to sum 1; exclude_outside renormalises after dropping taps.
    const bool normalise = (p.antialias && scale < 1) || p.exclude_outside;
    for (int64_t t = 0; t < a.taps; ++t) {
      a.idx[t * out + o] = clamp_index(i0 + static_cast<double>(first + t), in);
      a.w[t * out + o] = normalise && sum != 0 ? w[t] / sum : w[t];
    }
  }
  return a;
}

// True when the axis maps every output position to the same input position with weight 1.
bool is_identity(const AxisPlan& a) {
  if (a.in != a.out || a.any_extrapolated) return false;
  for (int64_t o = 0; o < a.out; ++o)
    for (int64_t t = 0; t < a.taps; ++t) {
      const double w = a.w[t * a.out + o];
      if (w != 0 && (w != 1 || a.idx[t * a.out + o] != o)) return false;
      if (w == 0 && a.taps == 1) return false;
    }
  return true;
}

ValueId gather_axis(LowerCtx& cx, ValueId x, const Ints& idx, int64_t axis) {
  ValueId indices = cx.b.const_ints(ir::DType::I64, {static_cast<int64_t>(idx.size())}, idx);
  return cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Axis, axis, 0}, {x, indices});
}

// A [out] constant broadcast along `axis` of `like`.
ValueId along_axis(LowerCtx& cx, ValueId c, ValueId like, int64_t axis) {
  return cx.b.broadcast(c, shape_value(cx, like), {axis});
}

// Resizes axis `axis` of x (f64 for linear/cubic, any dtype for nearest) by plan `a`.
ValueId apply_axis(LowerCtx& cx, const Params& p, ValueId x, const AxisPlan& a, int64_t axis) {
  ValueId y = ir::kNoValue;
  for (int64_t t = 0; t < a.taps; ++t) {
    Ints idx(a.idx.begin() + t * a.out, a.idx.begin() + (t + 1) * a.out);
    ValueId g = gather_axis(cx, x, idx, axis);
    if (p.mode != Mode::Nearest) {
      std::vector<double> w(a.w.begin() + t * a.out, a.w.begin() + (t + 1) * a.out);
      g = cx.b.binary(BK::Mul, g, along_axis(cx, cx.b.const_floats(kF64, {a.out}, w), g, axis));
    }
    y = t == 0 ? g : cx.b.binary(BK::Add, y, g);
  }
  if (a.any_extrapolated) {
    ValueId mask = along_axis(cx, cx.b.const_ints(ir::DType::Bool, {a.out}, a.extrapolated), y, axis);
    y = cx.b.select(mask, splat(cx, p.extrapolation, y), y);
  }
  return y;
}

using resize::f64_to_int;

struct Spec {
  Params p;
  Ints axes;                   // the resized axes (normalised), empty = all
  std::vector<double> scales;  // per listed axis, or empty
  Ints sizes;                  // per listed axis, or empty
  std::vector<double> roi;     // 2 * listed axes, or empty
  std::string keep_aspect = "stretch";
  // Computed by the graph instead (issue 13): the run-time path (resize_runtime.h).
  ValueId sizes_value = ir::kNoValue;
  ValueId scales_value = ir::kNoValue;
};

// The run-time path: x has symbolic dims, or sizes/scales are graph values.
Status emit_runtime(LowerCtx& cx, const OnnxNode& n, ValueId x, Spec s, const std::string& what) {
  const int64_t r = rank_of(cx, x);
  if (s.axes.empty())
    for (int64_t i = 0; i < r; ++i) s.axes.push_back(i);
  if (s.keep_aspect != "stretch")
    return cx.unsupported(what + " with keep_aspect_ratio_policy '" + s.keep_aspect +
                          "' needs its output extents at build time, and input '" + n.inputs[0] +
                          "' or its sizes are only known at run time; `plumb run` or `plumb check` "
                          "with input data will work");
  resize::RuntimeSpec rs;
  rs.p = s.p;
  if (s.sizes_value != ir::kNoValue || !s.sizes.empty()) {
    rs.axes = s.axes;
    rs.sizes = s.sizes_value != ir::kNoValue
                   ? s.sizes_value
                   : cx.b.const_ints(ir::DType::I64, {static_cast<int64_t>(s.sizes.size())}, s.sizes);
  } else if (s.scales_value != ir::kNoValue) {
    rs.axes = s.axes;
    rs.scales = s.scales_value;
  } else {
    if (s.scales.size() != s.axes.size())
      return cx.invalid(what + ": scales has " + std::to_string(s.scales.size()) + " elements, expected " +
                        std::to_string(s.axes.size()));
    // A constant scale of 1 keeps its axis as it is (every coordinate mode but
    // tf_half_pixel_for_nn maps each position to itself there).
    std::vector<double> kept;
    for (size_t i = 0; i < s.axes.size(); ++i) {
      if (!(s.scales[i] > 0) || !std::isfinite(s.scales[i]))
        return cx.invalid(what + ": scales must be positive and finite");
      if (s.scales[i] == 1.0 && s.p.coord != Coord::TfHalfPixelForNn) continue;
      rs.axes.push_back(s.axes[i]);
      kept.push_back(s.scales[i]);
    }
    rs.scales = cx.b.const_floats(ir::DType::F64, {static_cast<int64_t>(kept.size())}, kept);
  }
  return resize::emit_runtime_resize(cx, n, x, rs, what);
}

// Emits the resize of x by `s`.
Status emit_resize(LowerCtx& cx, const OnnxNode& n, ValueId x, Spec s, const char* op) {
  const std::string what = std::string(op) + "-" + std::to_string(cx.opset());
  const ir::Type xt = cx.type(x);
  if (!xt.ranked) return cx.unsupported(what + " of an unranked input");
  if (!ir::shape_is_static(xt.shape) || s.sizes_value != ir::kNoValue || s.scales_value != ir::kNoValue)
    return emit_runtime(cx, n, x, std::move(s), what);
  const int64_t r = static_cast<int64_t>(xt.shape.size());
  if (s.axes.empty())
    for (int64_t i = 0; i < r; ++i) s.axes.push_back(i);
  const size_t na = s.axes.size();
  if (!s.scales.empty() && s.scales.size() != na)
    return cx.invalid(what + ": scales has " + std::to_string(s.scales.size()) + " elements, expected " +
                      std::to_string(na));
  if (!s.sizes.empty() && s.sizes.size() != na)
    return cx.invalid(what + ": sizes has " + std::to_string(s.sizes.size()) + " elements, expected " +
                      std::to_string(na));
  if (s.scales.empty() == s.sizes.empty())
    return cx.invalid(what + ": exactly one of scales and sizes must be given");
  if (s.p.coord == Coord::TfCropAndResize && s.roi.size() != 2 * na)
    return cx.invalid(what + ": tf_crop_and_resize needs roi with " + std::to_string(2 * na) + " elements");
  if (s.p.mode != Mode::Nearest && !ir::is_float(xt.dtype) && !ir::is_int(xt.dtype))
    return cx.unsupported(what + " linear/cubic of " + std::string(ir::dtype_name(xt.dtype)));

  // Per full-rank axis: scale, output extent, roi.
  std::vector<double> scale(static_cast<size_t>(r), 1.0), roi_lo(static_cast<size_t>(r), 0.0),
      roi_hi(static_cast<size_t>(r), 1.0);
  Ints out(static_cast<size_t>(r));
  for (int64_t d = 0; d < r; ++d) out[d] = xt.shape[d].size;
  std::vector<bool> listed(static_cast<size_t>(r), false);
  for (size_t i = 0; i < na; ++i) {
    if (listed[s.axes[i]]) return cx.invalid(what + ": axis " + std::to_string(s.axes[i]) + " repeated");
    listed[s.axes[i]] = true;
    if (!s.roi.empty()) {
      roi_lo[s.axes[i]] = s.roi[i];
      roi_hi[s.axes[i]] = s.roi[na + i];
    }
  }
  if (!s.scales.empty()) {
    for (size_t i = 0; i < na; ++i) {
      const int64_t d = s.axes[i];
      const double sc = s.scales[i];
      if (!(sc > 0) || !std::isfinite(sc)) return cx.invalid(what + ": scales must be positive and finite");
      scale[d] = sc;
      // output_dimension = floor(input_dimension * (roi_end - roi_start) * scale); the roi only
      // counts for tf_crop_and_resize (it "only takes effect" there).
      double extent = static_cast<double>(xt.shape[d].size) * sc;
      if (s.p.coord == Coord::TfCropAndResize)
        extent = static_cast<double>(xt.shape[d].size) * (roi_hi[d] - roi_lo[d]) * sc;
      if (!(extent < static_cast<double>(kMaxExtent))) return cx.invalid(what + ": output extent too large");
      out[d] = std::max<int64_t>(0, static_cast<int64_t>(std::floor(extent)));
    }
  } else {
    for (size_t i = 0; i < na; ++i)
      if (s.sizes[i] < 0 || s.sizes[i] > kMaxExtent) return cx.invalid(what + ": sizes out of range");
    if (s.keep_aspect == "stretch") {
      for (size_t i = 0; i < na; ++i) {
        const int64_t d = s.axes[i];
        out[d] = s.sizes[i];
        scale[d] = static_cast<double>(out[d]) / static_cast<double>(xt.shape[d].size);
      }
    } else {
      // scale = Min (not_larger) or Max (not_smaller) of sizes[i] / in_size[d];
      // out_size[d] = round_int(scale * in_size[d]), halves rounded up.
      const bool not_larger = s.keep_aspect == "not_larger";
      double common = not_larger ? std::numeric_limits<double>::infinity() : 0.0;
      for (size_t i = 0; i < na; ++i) {
        const double q = static_cast<double>(s.sizes[i]) / static_cast<double>(xt.shape[s.axes[i]].size);
        common = not_larger ? std::min(common, q) : std::max(common, q);
      }
      for (size_t i = 0; i < na; ++i) {
        const int64_t d = s.axes[i];
        const double extent = std::floor(common * static_cast<double>(xt.shape[d].size) + 0.5);
        if (!(extent <= static_cast<double>(kMaxExtent)))
          return cx.invalid(what + ": output extent too large");
        scale[d] = common;
        out[d] = static_cast<int64_t>(extent);
      }
    }
  }
  for (int64_t d = 0; d < r; ++d)
    if (out[d] > 0 && xt.shape[d].size == 0)
      return cx.invalid(what + ": cannot resize an empty axis " + std::to_string(d) + " to extent " +
                        std::to_string(out[d]));

  // Plans, then the axes last to first.
  const ir::DType dt = xt.dtype;
  ValueId y = x;
  if (s.p.mode != Mode::Nearest && dt != kF64) y = cx.b.cast(y, kF64);
  for (int64_t d = r - 1; d >= 0; --d) {
    if (!listed[d] && out[d] == xt.shape[d].size) continue;
    const bool empty = out[d] == 0 || xt.shape[d].size == 0;
    if (empty) {
      y = gather_axis(cx, y, {}, d);
      continue;
    }
    Expected<AxisPlan> plan = plan_axis(s.p, xt.shape[d].size, out[d], scale[d], roi_lo[d], roi_hi[d]);
    if (!plan.has_value()) return cx.fail(plan.status());
    if (is_identity(*plan)) continue;
    y = apply_axis(cx, s.p, y, *plan, d);
  }
  if (s.p.mode != Mode::Nearest && dt != kF64)
    y = ir::is_int(dt) ? f64_to_int(cx, y, dt) : cx.b.cast(y, dt, /*saturate=*/true);
  cx.set_output(n, 0, y);
  return Status::ok();
}

Expected<Mode> read_mode(LowerCtx& cx, const OnnxNode& n, bool cubic_allowed) {
  PLUMB_ASSIGN_OR_RETURN(std::string m, n.attr_string("mode", "nearest"));
  if (m == "nearest") return Mode::Nearest;
  if (m == "linear" || m == "bilinear" || m == "trilinear") {
    if (m != "linear") return cx.unsupported("mode '" + m + "' (ONNX names it 'linear')");
    return Mode::Linear;
  }
  if (m == "cubic" && cubic_allowed) return Mode::Cubic;
  return cx.invalid("unknown mode '" + m + "' at opset " + std::to_string(cx.opset()));
}

// Resize-11+ attributes (each only where its opset defines it).
Status read_attrs(LowerCtx& cx, const OnnxNode& n, Spec& s) {
  const int64_t v = cx.opset();
  PLUMB_ASSIGN_OR_RETURN(s.p.mode, read_mode(cx, n, true));
  PLUMB_ASSIGN_OR_RETURN(std::string c, n.attr_string("coordinate_transformation_mode", "half_pixel"));
  if (c == "half_pixel")
    s.p.coord = Coord::HalfPixel;
  else if (c == "half_pixel_symmetric" && v >= 19)
    s.p.coord = Coord::HalfPixelSymmetric;
  else if (c == "pytorch_half_pixel")
    s.p.coord = Coord::PytorchHalfPixel;
  else if (c == "align_corners")
    s.p.coord = Coord::AlignCorners;
  else if (c == "asymmetric")
    s.p.coord = Coord::Asymmetric;
  else if (c == "tf_half_pixel_for_nn" && v < 13)
    s.p.coord = Coord::TfHalfPixelForNn;
  else if (c == "tf_crop_and_resize")
    s.p.coord = Coord::TfCropAndResize;
  else
    return cx.invalid("coordinate_transformation_mode '" + c + "' is not defined at opset " +
                      std::to_string(v));
  PLUMB_ASSIGN_OR_RETURN(std::string nm, n.attr_string("nearest_mode", "round_prefer_floor"));
  if (nm == "round_prefer_floor")
    s.p.nearest = Nearest::RoundPreferFloor;
  else if (nm == "round_prefer_ceil")
    s.p.nearest = Nearest::RoundPreferCeil;
  else if (nm == "floor")
    s.p.nearest = Nearest::Floor;
  else if (nm == "ceil")
    s.p.nearest = Nearest::Ceil;
  else
    return cx.invalid("unknown nearest_mode '" + nm + "'");
  PLUMB_ASSIGN_OR_RETURN(float a, n.attr_float("cubic_coeff_a", -0.75f));
  PLUMB_ASSIGN_OR_RETURN(int64_t ex, n.attr_int("exclude_outside", 0));
  PLUMB_ASSIGN_OR_RETURN(float ev, n.attr_float("extrapolation_value", 0.0f));
  s.p.cubic_a = a;
  s.p.exclude_outside = ex != 0;
  s.p.extrapolation = ev;
  if (v >= 18) {
    PLUMB_ASSIGN_OR_RETURN(int64_t aa, n.attr_int("antialias", 0));
    // antialias only changes "linear" and "cubic" (the nearest filter has no support to stretch).
    s.p.antialias = aa != 0 && s.p.mode != Mode::Nearest;
    PLUMB_ASSIGN_OR_RETURN(s.keep_aspect, n.attr_string("keep_aspect_ratio_policy", "stretch"));
    if (s.keep_aspect != "stretch" && s.keep_aspect != "not_larger" && s.keep_aspect != "not_smaller")
      return cx.invalid("unknown keep_aspect_ratio_policy '" + s.keep_aspect + "'");
    PLUMB_ASSIGN_OR_RETURN(Ints axes, n.attr_ints("axes", {}));
    s.axes = axes;
  }
  return Status::ok();
}

// Input i (scales or sizes) when the graph computes it (not a constant, not empty): the run-time
// path takes it as a value; kNoValue otherwise.
Expected<ValueId> computed_param(LowerCtx& cx, const OnnxNode& n, size_t i) {
  if (!cx.has_input(n, i)) return ir::kNoValue;
  PLUMB_ASSIGN_OR_RETURN(ValueId v, cx.input(n, i));
  const ir::Type t = cx.type(v);
  if (t.ranked && t.shape.size() == 1 && t.shape[0].size == 0) return ir::kNoValue;
  if (cx.const_input(n, i)) return ir::kNoValue;
  return v;
}

// Reads the optional float input i: absent or empty gives {}; not constant is unsupported.
Expected<std::vector<double>> read_floats(LowerCtx& cx, const OnnxNode& n, size_t i, const char* name) {
  if (!cx.has_input(n, i)) return std::vector<double>{};
  PLUMB_ASSIGN_OR_RETURN(ValueId v, cx.input(n, i));
  const ir::Type t = cx.type(v);
  if (t.ranked && t.shape.size() == 1 && t.shape[0].size == 0) return std::vector<double>{};
  auto vals = cx.const_floats(n, i);
  if (!vals)
    return cx.unsupported(std::string("Resize ") + name + " given as a computed (non-constant) tensor");
  return *vals;
}

Status lower_resize(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  Spec s;
  PLUMB_RETURN_IF_ERROR(read_attrs(cx, n, s));
  const int64_t r = rank_of(cx, x);
  for (int64_t& a : s.axes) {
    PLUMB_ASSIGN_OR_RETURN(a, normalize_axis(cx, a, r, "axes"));
  }
  PLUMB_RETURN_IF_ERROR(cx.error());
  if (s.p.coord == Coord::TfCropAndResize) {
    PLUMB_ASSIGN_OR_RETURN(s.roi, read_floats(cx, n, 1, "roi"));
  }
  PLUMB_ASSIGN_OR_RETURN(s.scales_value, computed_param(cx, n, 2));
  if (s.scales_value == ir::kNoValue) {
    PLUMB_ASSIGN_OR_RETURN(s.scales, read_floats(cx, n, 2, "scales"));
  }
  PLUMB_ASSIGN_OR_RETURN(s.sizes_value, computed_param(cx, n, 3));
  if (s.sizes_value == ir::kNoValue && cx.has_input(n, 3)) {
    PLUMB_ASSIGN_OR_RETURN(ValueId sz, cx.input(n, 3));
    const ir::Type t = cx.type(sz);
    if (!(t.ranked && t.shape.size() == 1 && t.shape[0].size == 0)) {
      auto vals = cx.const_ints(n, 3);
      if (!vals) return cx.fail(internal_error("Resize sizes neither constant nor computed"));
      s.sizes = *vals;
    }
  }
  if (s.scales_value != ir::kNoValue && (s.sizes_value != ir::kNoValue || !s.sizes.empty()))
    return cx.invalid("Resize: exactly one of scales and sizes must be given");
  if (s.sizes.empty() && s.scales.empty() && cx.has_input(n, 3) && !cx.has_input(n, 2)) {
    // sizes given but empty: fall through to the "exactly one" error below.
  }
  return emit_resize(cx, n, x, s, "Resize");
}

// Resize-10 and Upsample-7/9: scales only, asymmetric coordinates, nearest without nearest_mode.
// `scales_value`: the scales as a graph value when the graph computes them (else kNoValue).
Status lower_resize_10(LowerCtx& cx, const OnnxNode& n, const char* op, std::vector<double> scales,
                       ValueId scales_value = ir::kNoValue) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  Spec s;
  PLUMB_ASSIGN_OR_RETURN(s.p.mode, read_mode(cx, n, false));
  s.p.coord = Coord::Asymmetric;
  s.p.nearest = Nearest::Simple;
  s.scales = std::move(scales);
  s.scales_value = scales_value;
  if (s.scales.empty() && scales_value == ir::kNoValue)
    return cx.invalid(std::string(op) + ": scales must not be empty");
  return emit_resize(cx, n, x, s, op);
}

Status lower_resize_v10(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId computed, computed_param(cx, n, 1));
  if (computed != ir::kNoValue) return lower_resize_10(cx, n, "Resize", {}, computed);
  PLUMB_ASSIGN_OR_RETURN(std::vector<double> scales, read_floats(cx, n, 1, "scales"));
  return lower_resize_10(cx, n, "Resize", std::move(scales));
}

Status lower_upsample_7(LowerCtx& cx, const OnnxNode& n) {
  if (!n.has_attr("scales")) return cx.invalid("Upsample-7 needs the scales attribute");
  PLUMB_ASSIGN_OR_RETURN(std::vector<float> f, n.attr_floats("scales", {}));
  return lower_resize_10(cx, n, "Upsample", std::vector<double>(f.begin(), f.end()));
}

Status lower_upsample_9(LowerCtx& cx, const OnnxNode& n) {
  if (!cx.has_input(n, 1)) return cx.invalid("Upsample-9 needs the scales input");
  PLUMB_ASSIGN_OR_RETURN(ValueId computed, computed_param(cx, n, 1));
  if (computed != ir::kNoValue) return lower_resize_10(cx, n, "Upsample", {}, computed);
  auto vals = cx.const_floats(n, 1);
  if (!vals) return cx.invalid("Upsample scales must be a float tensor");
  return lower_resize_10(cx, n, "Upsample", *vals);
}

}  // namespace

void register_resize(Registry& r) {
  r.add("Resize", {10, 10}, lower_resize_v10);
  r.add("Resize", {11, kLatestOpset}, lower_resize);
  r.add("Upsample", {7, 8}, lower_upsample_7);
  r.add("Upsample", {9, 9}, lower_upsample_9);
  register_grid_sample(r);
}

}  // namespace plumb::lower
