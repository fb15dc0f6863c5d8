// ONNX shape and structure ops: Identity Constant Reshape Transpose Concat Shape Size Squeeze
// Unsqueeze Flatten Expand ConstantOfShape. Shapes are folded to constants when they are static;
// otherwise they are computed in the graph (shape_of + integer arithmetic), never frozen.
#include <algorithm>
#include <climits>
#include <cstring>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;

namespace {

// One dim of a result shape: a literal size, or dim `from` of the operand.
struct DimSrc {
  int64_t size = -1;  // >= 0: literal
  int64_t from = -1;  // >= 0: operand dim
};

// The i64[k] shape value built from `dims` of operand x: a constant when every dim is known.
ValueId shape_from(LowerCtx& cx, ValueId x, const std::vector<DimSrc>& dims) {
  const ir::Shape& xs = cx.type(x).shape;
  std::vector<int64_t> lit;
  bool known = true;
  for (const DimSrc& d : dims) {
    const int64_t s = d.from >= 0 ? xs[d.from].size : d.size;
    known = known && s >= 0;
    lit.push_back(s);
  }
  if (known) return cx.b.shape_const(lit);
  ValueId shape = cx.b.shape_of(x);
  std::vector<ValueId> parts;
  for (const DimSrc& d : dims) {
    if (d.from >= 0)
      parts.push_back(cx.b.emit1(ir::SliceAttrs{}, {shape, cx.b.shape_const({d.from}), cx.b.shape_const({1}),
                                                    cx.b.shape_const({1})}));
    else
      parts.push_back(cx.b.shape_const({d.size}));
  }
  if (parts.empty()) return cx.b.shape_const({});
  return parts.size() == 1 ? parts[0] : cx.b.concat(parts, 0);
}

Status lower_identity(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(const ValueId x, cx.input(n, 0));
  cx.set_output(n, 0, x);
  return cx.error();
}

Status lower_constant(LowerCtx& cx, const OnnxNode& n) {
  onnx::Tensor t;
  if (const auto* a = n.attr("value")) {
    t = a->t;
  } else if (const auto* s = n.attr("sparse_value")) {
    t = s->t;
  } else if (const auto* f = n.attr("value_float")) {
    t = onnx::Tensor::owned("", ir::DType::F32, {}, std::vector<uint8_t>(4));
    std::memcpy(const_cast<uint8_t*>(t.data), &f->f, 4);
  } else if (const auto* fs = n.attr("value_floats")) {
    std::vector<uint8_t> bytes(fs->floats.size() * 4);
    if (!bytes.empty()) std::memcpy(bytes.data(), fs->floats.data(), bytes.size());
    t = onnx::Tensor::owned("", ir::DType::F32, {static_cast<int64_t>(fs->floats.size())}, std::move(bytes));
  } else if (const auto* i = n.attr("value_int")) {
    std::vector<uint8_t> bytes(8);
    std::memcpy(bytes.data(), &i->i, 8);
    t = onnx::Tensor::owned("", ir::DType::I64, {}, std::move(bytes));
  } else if (const auto* is = n.attr("value_ints")) {
    std::vector<uint8_t> bytes(is->ints.size() * 8);
    if (!bytes.empty()) std::memcpy(bytes.data(), is->ints.data(), bytes.size());
    t = onnx::Tensor::owned("", ir::DType::I64, {static_cast<int64_t>(is->ints.size())}, std::move(bytes));
  } else if (const auto* s1 = n.attr("value_string")) {
    t = onnx::Tensor::from_strings("", {}, {s1->s});
  } else if (const auto* ss = n.attr("value_strings")) {
    t = onnx::Tensor::from_strings("", {static_cast<int64_t>(ss->strings.size())}, ss->strings);
  } else {
    return cx.invalid("Constant has no value attribute");
  }
  t.name = n.outputs.empty() ? "" : n.outputs[0];
  ValueId v = cx.constant_value(t);
  if (!n.outputs.empty()) cx.define_constant(n.outputs[0], t);
  cx.set_output(n, 0, v);
  return cx.error();
}

// Reshape: 0 copies the input's dim at that index (unless allowzero), -1 is inferred.
Status lower_reshape(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  std::optional<std::vector<int64_t>> target;
  ValueId shape_in = ir::kNoValue;
  if (cx.opset() < 5) {
    PLUMB_ASSIGN_OR_RETURN(auto s, n.attr_ints("shape", {}));
    target = s;
  } else {
    target = cx.const_ints(n, 1);
    if (!target) {
      PLUMB_ASSIGN_OR_RETURN(shape_in, cx.input(n, 1));
    }
  }
  PLUMB_ASSIGN_OR_RETURN(int64_t allowzero, n.attr_int("allowzero", 0));
  const ir::Type& xt = cx.type(x);
  const int64_t r = xt.rank();
  if (target) {
    // Static target: resolve 0 and -1 here (dims of x may still be symbolic).
    std::vector<DimSrc> dims;
    int infer_at = -1;
    for (size_t i = 0; i < target->size(); ++i) {
      const int64_t d = (*target)[i];
      if (d == 0 && !allowzero) {
        if (static_cast<int64_t>(i) >= r)
          return cx.invalid("shape entry 0 copies a dim the input does not have");
        dims.push_back({-1, static_cast<int64_t>(i)});
      } else if (d == -1) {
        if (infer_at >= 0) return cx.invalid("shape has more than one -1");
        infer_at = static_cast<int>(i);
        dims.push_back({1, -1});
      } else if (d < 0) {
        return cx.invalid(strfmt("shape entry %lld is negative", (long long)d));
      } else {
        dims.push_back({d, -1});
      }
    }
    if (infer_at < 0) {
      cx.set_output(n, 0, cx.b.reshape(x, shape_from(cx, x, dims)));
      return cx.error();
    }
    // -1: numel(x) / prod(other dims), statically when possible.
    int64_t known = 1;
    bool static_known = true;
    for (const DimSrc& d : dims) {
      const int64_t s = d.from >= 0 ? xt.shape[d.from].size : d.size;
      if (s < 0)
        static_known = false;
      else if (__builtin_mul_overflow(known, s, &known))  // fuzz_onnx_model: dims of 2^48 x 2^56
        return cx.invalid("shape's dims multiply past int64");
    }
    const int64_t total = ir::shape_num_elements(xt.shape);
    if (static_known && total >= 0) {
      if (known == 0 || total % known != 0)
        return cx.invalid(
            strfmt("cannot infer -1: %lld elements into blocks of %lld", (long long)total, (long long)known));
      dims[infer_at] = {total / known, -1};
      cx.set_output(n, 0, cx.b.reshape(x, shape_from(cx, x, dims)));
      return cx.error();
    }
    shape_in = cx.b.const_ints(ir::DType::I64, {static_cast<int64_t>(target->size())}, *target);
  }
  // Dynamic: s' = (s == 0 && !allowzero) ? shape(x)[i] : s; then -1 -> numel / prod(others).
  const ir::Type& st = cx.type(shape_in);
  if (st.rank() != 1) return cx.invalid("Reshape shape must be 1-D");
  if (!st.shape[0].is_static()) return cx.needs_build_time(n, 1, "Reshape shape of unknown length");
  const int64_t k = st.shape[0].size;
  ValueId s = shape_in;
  ValueId xs = cx.b.shape_of(x);
  if (!allowzero && r > 0) {
    ValueId xs_k = xs;
    if (k < r)
      xs_k = cx.b.emit1(ir::SliceAttrs{},
                        {xs, cx.b.shape_const({0}), cx.b.shape_const({k}), cx.b.shape_const({1})});
    else if (k > r)
      xs_k = cx.b.concat({xs, cx.b.const_ints(ir::DType::I64, {k - r}, std::vector<int64_t>(k - r, 0))}, 0);
    s = cx.b.select(cx.b.compare(ir::CompareKind::Eq, s,
                                 cx.b.const_ints(ir::DType::I64, {k}, std::vector<int64_t>(k, 0))),
                    xs_k, s);
  }
  ValueId minus1 = cx.b.const_ints(ir::DType::I64, {k}, std::vector<int64_t>(k, -1));
  ValueId is_inf = cx.b.compare(ir::CompareKind::Eq, s, minus1);
  ValueId ones = cx.b.const_ints(ir::DType::I64, {k}, std::vector<int64_t>(k, 1));
  ValueId known = cx.b.reduce(ir::ReduceKind::Prod, cx.b.select(is_inf, ones, s), {0});
  ValueId total = cx.b.reduce(ir::ReduceKind::Prod, xs, {0});
  // known == 0 would divide by zero (binary.R-label): guard with max(known, 1); reshape then
  // reports the element count mismatch.
  ValueId safe = cx.b.binary(ir::BinaryKind::Max, known, cx.b.scalar_int(ir::DType::I64, 1));
  ValueId fill = cx.b.broadcast(cx.b.binary(ir::BinaryKind::Div, total, safe), cx.b.shape_const({k}), {});
  s = cx.b.select(is_inf, fill, s);
  cx.set_output(n, 0, cx.b.reshape(x, s));
  return cx.error();
}

Status lower_transpose(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const int64_t r = rank_of(cx, x);
  std::vector<int64_t> rev;
  for (int64_t i = r - 1; i >= 0; --i) rev.push_back(i);
  PLUMB_ASSIGN_OR_RETURN(auto perm, n.attr_ints("perm", rev));
  for (int64_t& p : perm) {
    PLUMB_ASSIGN_OR_RETURN(p, normalize_axis(cx, p, r, "perm entry"));
  }
  PLUMB_RETURN_IF_ERROR(cx.error());
  cx.set_output(n, 0, cx.b.transpose(x, perm));
  return cx.error();
}

Status lower_concat(LowerCtx& cx, const OnnxNode& n) {
  std::vector<ValueId> xs;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    PLUMB_ASSIGN_OR_RETURN(const ValueId x, cx.optional_input(n, i));
    if (x != ir::kNoValue) xs.push_back(x);
  }
  if (xs.empty()) return cx.invalid("Concat needs inputs");
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, n.attr_int("axis", cx.opset() < 4 ? 1 : INT64_MIN));
  if (axis == INT64_MIN) return cx.invalid("missing required attribute 'axis'");
  PLUMB_ASSIGN_OR_RETURN(axis, normalize_axis(cx, axis, rank_of(cx, xs[0])));
  PLUMB_RETURN_IF_ERROR(cx.error());
  cx.set_output(n, 0, cx.b.concat(xs, axis));
  return cx.error();
}

// Shape-15+: optional start/end (clamped like Slice).
Status lower_shape(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const int64_t r = rank_of(cx, x);
  PLUMB_ASSIGN_OR_RETURN(int64_t start, n.attr_int("start", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t end, n.attr_int("end", r));
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  std::vector<DimSrc> dims;
  for (int64_t i = start; i < end; ++i) dims.push_back({-1, i});
  cx.set_output(n, 0, shape_from(cx, x, dims));
  return cx.error();
}

Status lower_size(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const int64_t total = ir::shape_num_elements(cx.type(x).shape);
  if (total >= 0) {
    cx.set_output(n, 0, cx.b.scalar_int(ir::DType::I64, total));
    return cx.error();
  }
  cx.set_output(n, 0, cx.b.reduce(ir::ReduceKind::Prod, cx.b.shape_of(x), {0}));
  return cx.error();
}

// Axes of Squeeze/Unsqueeze: an attribute before opset 13, a constant input from 13 on.
Expected<std::optional<std::vector<int64_t>>> axes_of(LowerCtx& cx, const OnnxNode& n) {
  if (cx.opset() < 13) {
    if (!n.has_attr("axes")) return std::optional<std::vector<int64_t>>();
    PLUMB_ASSIGN_OR_RETURN(auto a, n.attr_ints("axes", {}));
    return std::optional<std::vector<int64_t>>(a);
  }
  if (!cx.has_input(n, 1)) return std::optional<std::vector<int64_t>>();
  auto a = cx.const_ints(n, 1);
  if (!a) return cx.needs_build_time(n, 1, "axes");
  return std::optional<std::vector<int64_t>>(*a);
}

Status lower_squeeze(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(auto axes, axes_of(cx, n));
  const ir::Shape& s = cx.type(x).shape;
  const int64_t r = static_cast<int64_t>(s.size());
  std::vector<bool> drop(static_cast<size_t>(r), false);
  if (axes) {
    for (int64_t a : *axes) {
      PLUMB_ASSIGN_OR_RETURN(const int64_t k, normalize_axis(cx, a, r));
      drop[static_cast<size_t>(k)] = true;
    }
  } else {
    for (int64_t i = 0; i < r; ++i) {
      if (!s[i].is_static()) return cx.unsupported("Squeeze without axes on a symbolic dim");
      drop[i] = s[i].size == 1;
    }
  }
  std::vector<DimSrc> dims;
  for (int64_t i = 0; i < r; ++i) {
    if (drop[i] && s[i].is_static() && s[i].size != 1)
      return cx.invalid(strfmt("cannot squeeze dim %lld of size %lld", (long long)i, (long long)s[i].size));
    if (!drop[i]) dims.push_back({-1, i});
  }
  cx.set_output(n, 0, cx.b.reshape(x, shape_from(cx, x, dims)));
  return cx.error();
}

Status lower_unsqueeze(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(auto axes, axes_of(cx, n));
  if (!axes) return cx.invalid("Unsqueeze needs axes");
  const int64_t r = rank_of(cx, x);
  const int64_t out_r = r + static_cast<int64_t>(axes->size());
  std::vector<bool> ins(static_cast<size_t>(out_r), false);
  for (int64_t a : *axes) {
    PLUMB_ASSIGN_OR_RETURN(int64_t k, normalize_axis(cx, a, out_r));
    PLUMB_RETURN_IF_ERROR(cx.error());
    if (ins[k]) return cx.invalid("duplicate axis in Unsqueeze");
    ins[k] = true;
  }
  std::vector<DimSrc> dims;
  int64_t next = 0;
  for (int64_t i = 0; i < out_r; ++i) dims.push_back(ins[i] ? DimSrc{1, -1} : DimSrc{-1, next++});
  cx.set_output(n, 0, cx.b.reshape(x, shape_from(cx, x, dims)));
  return cx.error();
}

Status lower_flatten(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Shape& s = cx.type(x).shape;
  const int64_t r = static_cast<int64_t>(s.size());
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, n.attr_int("axis", 1));
  if (axis < -r || axis > r) return cx.invalid("axis out of range");
  if (axis < 0) axis += r;
  auto prod = [&](int64_t from, int64_t to) -> ValueId {
    int64_t p = 1;
    bool known = true;
    for (int64_t i = from; i < to; ++i) {
      if (!s[i].is_static())
        known = false;
      else
        p *= s[i].size;
    }
    if (known) return cx.b.shape_const({p});
    ValueId part = cx.b.emit1(ir::SliceAttrs{}, {cx.b.shape_of(x), cx.b.shape_const({from}),
                                                 cx.b.shape_const({to - from}), cx.b.shape_const({1})});
    return cx.b.reshape(cx.b.reduce(ir::ReduceKind::Prod, part, {0}), cx.b.shape_const({1}));
  };
  cx.set_output(n, 0, cx.b.reshape(x, cx.b.concat({prod(0, axis), prod(axis, r)}, 0)));
  return cx.error();
}

// Expand: bidirectional broadcast of x with the shape input.
Status lower_expand(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId shape, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type& st = cx.type(shape);
  // A shape known at build time (also one computed from offered inputs) has a known length.
  auto target = cx.const_ints(n, 1);
  if (!target && st.rank() != 1) return cx.invalid("Expand shape must be 1-D");
  if (!target && !st.shape[0].is_static()) return cx.needs_build_time(n, 1, "Expand shape of unknown length");
  const int64_t k = target ? static_cast<int64_t>(target->size()) : st.shape[0].size;
  const int64_t r = std::max(k, rank_of(cx, x));
  const ir::Shape& xs = cx.type(x).shape;
  if (target && ir::shape_is_static(xs)) {
    std::vector<int64_t> dims(static_cast<size_t>(r), 1);
    for (int64_t i = 0; i < r; ++i) {
      const int64_t a = i - (r - static_cast<int64_t>(xs.size())) >= 0 ? xs[i - (r - xs.size())].size : 1;
      const int64_t b = i - (r - k) >= 0 ? (*target)[i - (r - k)] : 1;
      if (a != 1 && b != 1 && a != b) return cx.invalid("input and shape cannot be broadcast together");
      dims[i] = a == 1 ? b : a;
    }
    cx.set_output(n, 0, broadcast_to(cx, x, cx.b.shape_const(dims), r));
    return cx.error();
  }
  auto pad = [&](ValueId s, int64_t len) {
    if (len == r) return s;
    return cx.b.concat({cx.b.const_ints(ir::DType::I64, {r - len}, std::vector<int64_t>(r - len, 1)), s}, 0);
  };
  ValueId a = pad(shape_value(cx, x), rank_of(cx, x));
  ValueId b = pad(shape, k);
  ValueId one = cx.b.const_ints(ir::DType::I64, {r}, std::vector<int64_t>(r, 1));
  ValueId out = cx.b.select(cx.b.compare(ir::CompareKind::Eq, a, one), b, a);
  cx.set_output(n, 0, broadcast_to(cx, x, out, r));
  return cx.error();
}

Status lower_constant_of_shape(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId shape, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  onnx::Tensor value = onnx::Tensor::owned("", ir::DType::F32, {}, std::vector<uint8_t>(4, 0));
  if (const auto* a = n.attr("value")) {
    if (a->t.num_elements() != 1) return cx.invalid("value must have exactly one element");
    value = a->t;
    value.dims = {};
  }
  const ir::Type st = cx.type(shape);
  if (st.rank() == 1 && !st.shape[0].is_static())
    return cx.needs_build_time(n, 0, "ConstantOfShape shape of unknown length");
  ValueId scalar = cx.constant_value(value);
  // A shape known at build time (also one computed from offered inputs, R1) gives a static type.
  if (auto dims = cx.const_ints(n, 0);
      dims && std::all_of(dims->begin(), dims->end(), [](int64_t d) { return d >= 0; }))
    shape = cx.b.shape_const(*dims);
  cx.set_output(n, 0, cx.b.broadcast(scalar, shape, {}));
  return cx.error();
}

}  // namespace

void register_shape(Registry& r) {
  // A table: its rows packed, several to a line.
  // clang-format off
  r.add_since({
      {"Identity", 1, lower_identity}, {"Constant", 1, lower_constant}, {"Reshape", 1, lower_reshape},
      {"Transpose", 1, lower_transpose}, {"Concat", 1, lower_concat}, {"Shape", 1, lower_shape},
      {"Size", 1, lower_size}, {"Squeeze", 1, lower_squeeze}, {"Unsqueeze", 1, lower_unsqueeze},
      {"Flatten", 1, lower_flatten}, {"Expand", 8, lower_expand},
      {"ConstantOfShape", 9, lower_constant_of_shape}});
  // clang-format on
}

}  // namespace plumb::lower
