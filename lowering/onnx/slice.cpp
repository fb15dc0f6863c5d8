// ONNX Slice and Split onto the core `slice` (start, size, stride per dim; no clamping, no
// negative indices: the lowering does ONNX's normalisation and clamping explicitly).
#include <algorithm>
#include <climits>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using CK = ir::CompareKind;

namespace {

// ONNX Slice-13 normalisation of one axis with extent d (numbers known at lowering time).
void normalize_static(int64_t d, int64_t& start, int64_t& end, int64_t step, int64_t& size) {
  if (start < 0) start += d;
  if (end < 0) end += d;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, d);
    end = std::clamp<int64_t>(end, 0, d);
    size = end > start ? (end - start + step - 1) / step : 0;
  } else {
    start = std::clamp<int64_t>(start, 0, std::max<int64_t>(d - 1, 0));
    end = std::clamp<int64_t>(end, -1, d - 1);
    size = start > end ? (start - end + (-step) - 1) / (-step) : 0;
  }
  if (d == 0) size = 0;
}

struct SliceArgs {
  std::vector<int64_t> axes;
  ValueId starts = ir::kNoValue, ends = ir::kNoValue, steps = ir::kNoValue;  // i64[k]
  std::optional<std::vector<int64_t>> starts_c, ends_c, steps_c;
};

ValueId as_i64(LowerCtx& cx, ValueId v) {
  return cx.type(v).dtype == ir::DType::I64 ? v : cx.b.cast(v, ir::DType::I64);
}

// Slice in the graph for values known only at run time. All vectors are i64[k] over `axes`.
void slice_dynamic(LowerCtx& cx, ValueId x, const SliceArgs& a, ValueId* start_full, ValueId* size_full,
                   ValueId* stride_full) {
  auto& b = cx.b;
  const int64_t r = rank_of(cx, x);
  const int64_t k = static_cast<int64_t>(a.axes.size());
  ValueId dims_all = b.shape_of(x);
  ValueId axes_v = b.const_ints(ir::DType::I64, {k}, a.axes);
  ValueId d = b.emit1(ir::GatherAttrs{ir::GatherKind::Axis, 0, 0}, {dims_all, axes_v});
  auto c = [&](int64_t v) {
    return b.const_ints(ir::DType::I64, {k}, std::vector<int64_t>(static_cast<size_t>(k), v));
  };
  ValueId zero = c(0), one = c(1), minus1 = c(-1);
  ValueId s = a.starts, e = a.ends, st = a.steps;
  s = b.select(b.compare(CK::Lt, s, zero), b.binary(BK::Add, s, d), s);
  e = b.select(b.compare(CK::Lt, e, zero), b.binary(BK::Add, e, d), e);
  ValueId pos = b.compare(CK::Gt, st, zero);
  ValueId dm1 = b.binary(BK::Max, b.binary(BK::Sub, d, one), zero);
  auto clamp = [&](ValueId v, ValueId lo, ValueId hi) {
    return b.binary(BK::Min, b.binary(BK::Max, v, lo), hi);
  };
  s = b.select(pos, clamp(s, zero, d), clamp(s, zero, dm1));
  e = b.select(pos, clamp(e, zero, d), clamp(e, minus1, b.binary(BK::Sub, d, one)));
  // size = ceil((e - s) / step) clamped at 0; computed on |.| so truncation is a floor.
  ValueId diff = b.select(pos, b.binary(BK::Sub, e, s), b.binary(BK::Sub, s, e));
  ValueId astep = b.select(pos, st, b.unary(ir::UnaryKind::Neg, st));
  ValueId size = b.binary(BK::Div, b.binary(BK::Add, diff, b.binary(BK::Sub, astep, one)), astep);
  size = b.select(b.compare(CK::Gt, diff, zero), size, zero);
  size = b.select(b.compare(CK::Eq, d, zero), zero, size);
  // Full-rank vectors: sliced axes take the computed entries, others the whole dim.
  std::vector<ValueId> sp, zp, tp;
  auto pick = [&](ValueId v, int64_t i) {
    return b.emit1(ir::SliceAttrs{}, {v, b.shape_const({i}), b.shape_const({1}), b.shape_const({1})});
  };
  for (int64_t j = 0; j < r; ++j) {
    auto it = std::find(a.axes.begin(), a.axes.end(), j);
    if (it == a.axes.end()) {
      sp.push_back(b.shape_const({0}));
      zp.push_back(pick(dims_all, j));
      tp.push_back(b.shape_const({1}));
    } else {
      const int64_t i = it - a.axes.begin();
      sp.push_back(pick(s, i));
      zp.push_back(pick(size, i));
      tp.push_back(pick(st, i));
    }
  }
  *start_full = r == 0 ? b.shape_const({}) : b.concat(sp, 0);
  *size_full = r == 0 ? b.shape_const({}) : b.concat(zp, 0);
  *stride_full = r == 0 ? b.shape_const({}) : b.concat(tp, 0);
}

Status lower_slice(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type xt = cx.type(x);
  const int64_t r = xt.rank();
  SliceArgs a;
  if (cx.opset() < 10) {
    PLUMB_ASSIGN_OR_RETURN(auto starts, n.attr_ints("starts", {}));
    PLUMB_ASSIGN_OR_RETURN(auto ends, n.attr_ints("ends", {}));
    std::vector<int64_t> all;
    for (size_t i = 0; i < starts.size(); ++i) all.push_back(static_cast<int64_t>(i));
    PLUMB_ASSIGN_OR_RETURN(auto axes, n.attr_ints("axes", all));
    a.starts_c = starts;
    a.ends_c = ends;
    a.steps_c = std::vector<int64_t>(starts.size(), 1);
    a.axes = axes;
  } else {
    a.starts_c = cx.const_ints(n, 1);
    a.ends_c = cx.const_ints(n, 2);
    if (cx.has_input(n, 3)) {
      auto axes = cx.const_ints(n, 3);
      if (!axes) return cx.needs_build_time(n, 3, "Slice axes");
      a.axes = *axes;
    }
    if (cx.has_input(n, 4)) a.steps_c = cx.const_ints(n, 4);
    PLUMB_ASSIGN_OR_RETURN(const ValueId starts_in, cx.input(n, 1));
    const ir::Type st = cx.type(starts_in);
    const int64_t k = st.rank() == 1 && st.shape[0].is_static() ? st.shape[0].size : -1;
    if (k < 0) return cx.unsupported("Slice starts of unknown length");
    if (!cx.has_input(n, 3))
      for (int64_t i = 0; i < k; ++i) a.axes.push_back(i);
    if (!cx.has_input(n, 4)) a.steps_c = std::vector<int64_t>(static_cast<size_t>(k), 1);
    if (!a.starts_c) a.starts = as_i64(cx, starts_in);
    if (!a.ends_c) {
      PLUMB_ASSIGN_OR_RETURN(const ValueId ends_in, cx.input(n, 2));
      a.ends = as_i64(cx, ends_in);
    }
    if (!a.steps_c) {
      PLUMB_ASSIGN_OR_RETURN(const ValueId steps_in, cx.input(n, 4));
      a.steps = as_i64(cx, steps_in);
    }
  }
  for (int64_t& ax : a.axes) {
    PLUMB_ASSIGN_OR_RETURN(ax, normalize_axis(cx, ax, r));
  }
  PLUMB_RETURN_IF_ERROR(cx.error());
  const size_t k = a.axes.size();
  for (size_t i = 0; i < k; ++i)  // ONNX: "Behavior is undefined if an axis is repeated" (R11)
    for (size_t j = i + 1; j < k; ++j)
      if (a.axes[i] == a.axes[j])
        return cx.fail(invalid_model("onnx-rulings.R11", "the result is undefined: Slice with axis " +
                                                             std::to_string(a.axes[i]) +
                                                             " repeated (ONNX leaves it undefined)"));
  if ((a.starts_c && a.starts_c->size() != k) || (a.ends_c && a.ends_c->size() != k) ||
      (a.steps_c && a.steps_c->size() != k))
    return cx.invalid("starts, ends, axes and steps differ in length");
  if (a.steps_c)
    for (int64_t s : *a.steps_c)
      if (s == 0) return cx.invalid("slice step 0");
  bool dims_static = true;
  for (int64_t ax : a.axes) dims_static = dims_static && xt.shape[ax].is_static();
  if (a.starts_c && a.ends_c && a.steps_c && dims_static) {
    std::vector<int64_t> start(r, 0), size(r), stride(r, 1);
    for (int64_t j = 0; j < r; ++j) size[j] = xt.shape[j].size;  // may be symbolic (-1): not sliced
    bool any_symbolic = false;
    for (int64_t j = 0; j < r; ++j) any_symbolic = any_symbolic || !xt.shape[j].is_static();
    for (size_t i = 0; i < k; ++i) {
      int64_t s = (*a.starts_c)[i], e = (*a.ends_c)[i], sz = 0;
      normalize_static(xt.shape[a.axes[i]].size, s, e, (*a.steps_c)[i], sz);
      start[a.axes[i]] = s;
      size[a.axes[i]] = sz;
      stride[a.axes[i]] = (*a.steps_c)[i];
    }
    ValueId size_v;
    if (!any_symbolic) {
      size_v = cx.b.shape_const(size);
    } else {
      // Unsliced symbolic dims keep their run-time extent.
      std::vector<int64_t> mask(r, 0), lit(r, 0);
      for (int64_t j = 0; j < r; ++j) {
        const bool keep =
            !xt.shape[j].is_static() && std::find(a.axes.begin(), a.axes.end(), j) == a.axes.end();
        mask[j] = keep;
        lit[j] = keep ? 0 : size[j];
      }
      ValueId m = cx.b.cast(cx.b.const_ints(ir::DType::I64, {r}, mask), ir::DType::Bool);
      size_v = cx.b.select(m, cx.b.shape_of(x), cx.b.shape_const(lit));
    }
    cx.set_output(
        n, 0, cx.b.emit1(ir::SliceAttrs{}, {x, cx.b.shape_const(start), size_v, cx.b.shape_const(stride)}));
    return cx.error();
  }
  auto vec = [&](const std::optional<std::vector<int64_t>>& c, ValueId v) {
    return c ? cx.b.const_ints(ir::DType::I64, {static_cast<int64_t>(k)}, *c) : v;
  };
  a.starts = vec(a.starts_c, a.starts);
  a.ends = vec(a.ends_c, a.ends);
  a.steps = vec(a.steps_c, a.steps);
  ValueId s, z, t;
  slice_dynamic(cx, x, a, &s, &z, &t);
  cx.set_output(n, 0, cx.b.emit1(ir::SliceAttrs{}, {x, s, z, t}));
  return cx.error();
}

// Split: sizes from the `split` input (13+) / attribute (< 13), else equal parts (num_outputs
// at 18+; the last part smaller when the dim does not divide).
Status lower_split(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type xt = cx.type(x);
  const int64_t r = xt.rank();
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, n.attr_int("axis", 0));
  PLUMB_ASSIGN_OR_RETURN(axis, normalize_axis(cx, axis, r));
  PLUMB_RETURN_IF_ERROR(cx.error());
  if (!xt.shape[axis].is_static()) return cx.unsupported("Split along a symbolic dim");
  const int64_t d = xt.shape[axis].size;
  std::vector<int64_t> sizes;
  if (cx.opset() < 13) {
    PLUMB_ASSIGN_OR_RETURN(sizes, n.attr_ints("split", {}));
  } else if (cx.has_input(n, 1)) {
    auto s = cx.const_ints(n, 1);
    if (!s) return cx.needs_build_time(n, 1, "Split sizes");
    sizes = *s;
  }
  const int64_t parts = static_cast<int64_t>(n.outputs.size());
  if (sizes.empty()) {
    PLUMB_ASSIGN_OR_RETURN(int64_t num, n.attr_int("num_outputs", parts));
    if (num <= 0 || num != parts)
      return cx.invalid(
          strfmt("num_outputs is %lld, the node has %lld outputs", (long long)num, (long long)parts));
    const int64_t chunk = cx.opset() >= 18 ? (d + num - 1) / num : d / num;
    if (cx.opset() < 18 && d % num != 0) return cx.invalid("dim is not divisible by the number of outputs");
    for (int64_t i = 0, left = d; i < num; ++i) {
      sizes.push_back(std::min(chunk, left));
      left -= sizes.back();
    }
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) return cx.invalid("negative split size");
    if (s > d - total)  // total stays <= d: no overflow however large the sizes
      return cx.invalid(strfmt("split sizes sum past the dim %lld", (long long)d));
    total += s;
  }
  if (total != d)
    return cx.invalid(strfmt("split sizes sum to %lld, the dim is %lld", (long long)total, (long long)d));
  if (static_cast<int64_t>(sizes.size()) != parts)
    return cx.invalid("split count differs from the number of outputs");
  int64_t offset = 0;
  for (int64_t i = 0; i < parts; ++i) {
    std::vector<int64_t> start(r, 0), stride(r, 1);
    start[axis] = offset;
    ValueId size_v;
    if (ir::shape_is_static(xt.shape)) {
      std::vector<int64_t> size;
      for (const ir::Dim& dd : xt.shape) size.push_back(dd.size);
      size[axis] = sizes[i];
      size_v = cx.b.shape_const(size);
    } else {
      std::vector<int64_t> mask(r, 1), lit(r, 0);
      mask[axis] = 0;
      lit[axis] = sizes[i];
      ValueId m = cx.b.cast(cx.b.const_ints(ir::DType::I64, {r}, mask), ir::DType::Bool);
      size_v = cx.b.select(m, cx.b.shape_of(x), cx.b.shape_const(lit));
    }
    cx.set_output(
        n, i, cx.b.emit1(ir::SliceAttrs{}, {x, cx.b.shape_const(start), size_v, cx.b.shape_const(stride)}));
    offset += sizes[i];
  }
  return cx.error();
}

}  // namespace

void register_slice(Registry& r) { r.add_since({{"Slice", 1, lower_slice}, {"Split", 1, lower_split}}); }

}  // namespace plumb::lower
