// plumb gen's recipes for reductions, softmax, shape and data movement, Where and comparisons,
// and Cast between float types (hunt/gen_recipe.h; the rules common to all recipes are at the top
// of gen_ops.cpp).
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>

#include "hunt/gen_recipe.h"

namespace plumb::hunt::gen::recipe {

// ---- reductions, softmax ----

bool reduce(Builder& b, const std::string& op) {
  const double max_bound = op == "ReduceProd" ? 1.0 : (op == "ReduceSumSquare" ? 4.0 : kMaxBound);
  Value x = any_value(b, 1);
  x = ready(b, x, max_bound);
  if (op == "ReduceLogSum") x = positive(b, x, 0.5f);  // a sum of positive terms, at least 1/2
  const int r = rank(x);
  std::vector<bool> reduced(static_cast<size_t>(r), false);
  const bool all = b.rng.chance(10);
  std::vector<int64_t> axes;
  for (int i = 0; i < r; ++i) {
    if (all || b.rng.chance(40)) reduced[static_cast<size_t>(i)] = true;
  }
  if (!all && std::none_of(reduced.begin(), reduced.end(), [](bool v) { return v; }))
    reduced[static_cast<size_t>(b.rng.below(r))] = true;
  for (int i = 0; i < r; ++i)
    if (!all && reduced[static_cast<size_t>(i)]) axes.push_back(axis_text(b.rng, i, r));
  const bool keep = !b.rng.chance(50);
  Dims out_dims;
  double n = 1;
  for (int i = 0; i < r; ++i) {
    if (reduced[static_cast<size_t>(i)]) {
      n *= static_cast<double>(x.dims[static_cast<size_t>(i)]);
      if (keep) out_dims.push_back(1);
    } else {
      out_dims.push_back(x.dims[static_cast<size_t>(i)]);
    }
  }
  // A product of many factors in [-1, 1] underflows towards 0: no significant digit left.
  if (op == "ReduceProd" && n > 8) return false;
  double bound = x.bound;
  if (op == "ReduceSum" || op == "ReduceL1") bound = x.bound * n;
  if (op == "ReduceL2") bound = x.bound * std::sqrt(n);
  if (op == "ReduceSumSquare") bound = x.bound * x.bound * n;
  if (op == "ReduceLogSumExp") bound = x.bound + ln_bound(n) + 1;
  if (op == "ReduceLogSum") bound = ln_bound(n * x.bound) + 1;
  const bool exact = (op == "ReduceMax" || op == "ReduceMin") && x.exact;
  const Value out = b.push(out_dims, bound, exact);
  std::vector<std::string> ins = {x.name};
  const bool axes_input = b.has_input(op, "axes");
  if (axes_input && !all) ins.push_back(b.const_i64(axes));
  auto* node = b.node(op, ins, {out.name});
  if (!axes_input && !all) set_ints(node, "axes", axes);
  if (!keep || b.rng.chance(30)) set_int(node, "keepdims", keep ? 1 : 0);
  return true;
}

bool softmax(Builder& b, const std::string& op) {
  const Value x = any_value(b, 1);
  const int r = rank(x);
  const int axis = b.rng.in(-r, r - 1);
  const int a = axis < 0 ? axis + r : axis;
  const double n = static_cast<double>(x.dims[static_cast<size_t>(a)]);
  const Value out = b.push(x.dims, op == "Softmax" ? 1.0 : 2 * x.bound + ln_bound(n) + 1, false);
  auto* node = b.node(op, {x.name}, {out.name});
  if (axis != -1 || b.rng.chance(30)) set_int(node, "axis", axis);
  return true;
}

// ---- shape and data movement ----

bool reshape_op(Builder& b, const std::string&) {
  const Value x = any_value(b);
  const int r = b.rng.in(1, 4);
  Dims dims = random_dims(b.rng, num_elements(x.dims), r);
  Dims text = dims;
  if (b.rng.chance(25)) text[static_cast<size_t>(b.rng.below(r))] = -1;
  for (int i = 0; i < r && i < rank(x); ++i)
    if (text[static_cast<size_t>(i)] == x.dims[static_cast<size_t>(i)] && b.rng.chance(30))
      text[static_cast<size_t>(i)] = 0;
  const Value out = b.push(dims, x.bound, x.exact);
  b.node("Reshape", {x.name, b.const_i64(text)}, {out.name});
  return true;
}

bool transpose(Builder& b, const std::string&) {
  auto v = pick(b, [](const Value& x) { return rank(x) >= 2; });
  if (!v) return false;
  const Value x = ready(b, *v);
  const int r = rank(x);
  std::vector<int64_t> perm(static_cast<size_t>(r));
  for (int i = 0; i < r; ++i) perm[static_cast<size_t>(i)] = i;
  const bool given = b.rng.chance(80);
  if (given) {
    for (int i = r - 1; i > 0; --i)
      std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(b.rng.below(i + 1))]);
  } else {
    std::reverse(perm.begin(), perm.end());
  }
  Dims dims;
  for (int64_t p : perm) dims.push_back(x.dims[static_cast<size_t>(p)]);
  const Value out = b.push(dims, x.bound, x.exact);
  auto* node = b.node("Transpose", {x.name}, {out.name});
  if (given) set_ints(node, "perm", perm);
  return true;
}

bool flatten(Builder& b, const std::string&) {
  const Value x = any_value(b, 1);
  const int r = rank(x);
  const bool given = b.rng.chance(80);
  const int axis = given ? b.rng.in(-r, r) : 1;
  const int a = axis < 0 ? axis + r : axis;
  const Dims dims = {num_elements(Dims(x.dims.begin(), x.dims.begin() + a)),
                     num_elements(Dims(x.dims.begin() + a, x.dims.end()))};
  const Value out = b.push(dims, x.bound, x.exact);
  auto* node = b.node("Flatten", {x.name}, {out.name});
  if (given) set_int(node, "axis", axis);
  return true;
}

bool squeeze(Builder& b, const std::string&) {
  auto v = pick(b, [](const Value& x) { return std::count(x.dims.begin(), x.dims.end(), 1) > 0; });
  if (!v) return false;
  const Value x = ready(b, *v);
  const int r = rank(x);
  std::vector<int> ones;
  for (int i = 0; i < r; ++i)
    if (x.dims[static_cast<size_t>(i)] == 1) ones.push_back(i);
  // No axes: every 1 goes (a rank-0 result only when every dim is 1).
  const bool all = b.rng.chance(15);
  std::vector<bool> gone(static_cast<size_t>(r), false);
  std::vector<int64_t> axes;
  for (int i : ones) {
    if (all || b.rng.chance(60)) gone[static_cast<size_t>(i)] = true;
  }
  if (!all && std::none_of(gone.begin(), gone.end(), [](bool g) { return g; }))
    gone[static_cast<size_t>(ones[static_cast<size_t>(b.rng.below(static_cast<int>(ones.size())))])] = true;
  for (int i = 0; i < r; ++i)
    if (gone[static_cast<size_t>(i)]) axes.push_back(axis_text(b.rng, i, r));
  Dims dims;
  for (int i = 0; i < r; ++i)
    if (!gone[static_cast<size_t>(i)]) dims.push_back(x.dims[static_cast<size_t>(i)]);
  const Value out = b.push(dims, x.bound, x.exact);
  std::vector<std::string> ins = {x.name};
  if (all) {
    b.node("Squeeze", ins, {out.name});
  } else {
    ::onnx::NodeProto* node = nullptr;
    set_axes(b, "Squeeze", ins, &node, axes, out.name);
  }
  return true;
}

bool unsqueeze(Builder& b, const std::string&) {
  auto v = pick(b, [](const Value& x) { return rank(x) <= 4; });
  if (!v) return false;
  const Value x = ready(b, *v);
  const int k = b.rng.in(1, 2);
  const int out_rank = rank(x) + k;
  std::vector<bool> added(static_cast<size_t>(out_rank), false);
  for (int placed = 0; placed < k;) {
    const int p = b.rng.below(out_rank);
    if (!added[static_cast<size_t>(p)]) added[static_cast<size_t>(p)] = true, ++placed;
  }
  std::vector<int64_t> axes;
  Dims dims;
  size_t next = 0;
  for (int i = 0; i < out_rank; ++i) {
    if (added[static_cast<size_t>(i)]) {
      axes.push_back(axis_text(b.rng, i, out_rank));
      dims.push_back(1);
    } else {
      dims.push_back(x.dims[next++]);
    }
  }
  if (b.rng.chance(30)) std::reverse(axes.begin(), axes.end());  // the order of axes does not matter
  const Value out = b.push(dims, x.bound, x.exact);
  std::vector<std::string> ins = {x.name};
  ::onnx::NodeProto* node = nullptr;
  set_axes(b, "Unsqueeze", ins, &node, axes, out.name);
  return true;
}

// x.view(x.size(0), ..., -1) as torch exports it: Shape, then the kept dims gathered (one scalar
// Gather and Unsqueeze per dim, or one Gather of a 1-D index list), a Concat with [-1], a Reshape.
bool shape_reshape(Builder& b, const std::string&) {
  const Value x = any_value(b, 2);
  const int r = rank(x);
  const int keep = b.rng.in(1, r - 1);
  const std::string shape = b.fresh("v");
  b.node("Shape", {x.name}, {shape});
  std::vector<std::string> parts;
  if (b.rng.chance(50)) {
    for (int i = 0; i < keep; ++i) {
      const std::string dim = b.fresh("v"), part = b.fresh("v");
      b.node("Gather", {shape, b.const_i64({i}, true)}, {dim});
      std::vector<std::string> ins = {dim};
      ::onnx::NodeProto* node = nullptr;
      set_axes(b, "Unsqueeze", ins, &node, {0}, part);
      parts.push_back(part);
    }
  } else {
    std::vector<int64_t> idx;
    for (int i = 0; i < keep; ++i) idx.push_back(i);
    parts.push_back(b.fresh("v"));
    b.node("Gather", {shape, b.const_i64(idx)}, {parts.back()});
  }
  parts.push_back(b.const_i64({-1}));
  const std::string target = b.fresh("v");
  set_int(b.node("Concat", parts, {target}), "axis", 0);
  Dims dims(x.dims.begin(), x.dims.begin() + keep);
  dims.push_back(num_elements(Dims(x.dims.begin() + keep, x.dims.end())));
  const Value out = b.push(dims, x.bound, x.exact);
  b.node("Reshape", {x.name, target}, {out.name});
  return true;
}

// Expand to a shape that broadcasts with the input's (1s widened, dims prepended, 1s in the shape
// where the input has more).
bool expand(Builder& b, const std::string&) {
  const Value x = any_value(b);
  Dims shape;
  for (int k = b.rng.chance(30) ? b.rng.in(1, 2) : 0; k > 0; --k) shape.push_back(b.rng.in(1, 3));
  for (int64_t d : x.dims)
    shape.push_back(d == 1 && b.rng.chance(50) ? b.rng.in(2, 3) : (b.rng.chance(20) ? 1 : d));
  const auto dims = broadcast(x.dims, shape);
  if (!dims || num_elements(*dims) > kMaxElements) return false;
  const Value out = b.push(*dims, x.bound, x.exact);
  b.node("Expand", {x.name, b.const_i64(shape)}, {out.name});
  return true;
}

bool concat(Builder& b, const std::string&) {
  auto v = pick(b, [](const Value& x) { return rank(x) >= 1 && num_elements(x.dims) <= kMaxElements / 3; });
  if (!v) return false;
  const Value x = ready(b, *v);
  const int r = rank(x);
  const int a = b.rng.below(r);
  std::vector<std::string> ins = {x.name};
  Dims dims = x.dims;
  double bound = x.bound;
  bool exact = x.exact;
  const int others = b.rng.in(1, 2);
  for (int k = 0; k < others; ++k) {
    auto w = b.rng.chance(50)
                 ? pick(b,
                        [&](const Value& y) {
                          if (rank(y) != r) return false;
                          for (int i = 0; i < r; ++i)
                            if (i != a && y.dims[static_cast<size_t>(i)] != x.dims[static_cast<size_t>(i)])
                              return false;
                          return true;
                        })
                 : std::nullopt;
    if (w) {
      const Value ww = ready(b, *w);
      ins.push_back(ww.name);
      dims[static_cast<size_t>(a)] += ww.dims[static_cast<size_t>(a)];
      bound = std::max(bound, ww.bound), exact = exact && ww.exact;
    } else {
      Dims cdims = x.dims;
      cdims[static_cast<size_t>(a)] = b.rng.in(1, 3);
      ins.push_back(b.const_f32_random(cdims, -1, 1));
      dims[static_cast<size_t>(a)] += cdims[static_cast<size_t>(a)];
    }
  }
  std::swap(ins[0], ins[static_cast<size_t>(b.rng.below(static_cast<int>(ins.size())))]);
  const Value out = b.push(dims, bound, exact);
  set_int(b.node("Concat", ins, {out.name}), "axis", axis_text(b.rng, a, r));
  return true;
}

bool split(Builder& b, const std::string&) {
  auto v = pick(b, [](const Value& x) {
    return std::any_of(x.dims.begin(), x.dims.end(), [](int64_t d) { return d >= 2; });
  });
  if (!v) return false;
  const Value x = ready(b, *v);
  const int r = rank(x);
  std::vector<int> axes;
  for (int i = 0; i < r; ++i)
    if (x.dims[static_cast<size_t>(i)] >= 2) axes.push_back(i);
  const int a = axes[static_cast<size_t>(b.rng.below(static_cast<int>(axes.size())))];
  const int64_t d = x.dims[static_cast<size_t>(a)];
  const int parts = b.rng.in(2, static_cast<int>(std::min<int64_t>(3, d)));
  const bool sizes_input = b.has_input("Split", "split");
  const bool equal = d % parts == 0 && (!sizes_input || b.rng.chance(30));
  std::vector<int64_t> sizes(static_cast<size_t>(parts), equal ? d / parts : 1);
  if (!equal) {
    for (int64_t left = d - parts; left > 0; --left) ++sizes[static_cast<size_t>(b.rng.below(parts))];
  }
  std::vector<std::string> outs;
  std::vector<Value> values;
  for (int k = 0; k < parts; ++k) {
    Dims dims = x.dims;
    dims[static_cast<size_t>(a)] = sizes[static_cast<size_t>(k)];
    values.push_back(Value{b.fresh("v"), dims, x.bound, x.exact});
    outs.push_back(values.back().name);
  }
  std::vector<std::string> ins = {x.name};
  if (!equal && sizes_input) ins.push_back(b.const_i64(sizes));
  auto* node = b.node("Split", ins, outs);
  if (!equal && !sizes_input) set_ints(node, "split", sizes);
  if (a != 0 || b.rng.chance(30)) set_int(node, "axis", axis_text(b.rng, a, r));
  // The chain goes on from one of the parts; the others are graph outputs unless a later node reads them.
  const size_t next = static_cast<size_t>(b.rng.below(parts));
  for (size_t k = 0; k < values.size(); ++k)
    if (k != next) b.pool.push_back(values[k]);
  b.pool.push_back(values[next]);
  return true;
}

bool slice(Builder& b, const std::string&) {
  const Value x = any_value(b, 1);
  const int r = rank(x);
  std::vector<int64_t> starts, ends, axes, steps;
  Dims dims = x.dims;
  std::vector<bool> chosen(static_cast<size_t>(r), false);
  for (int i = 0; i < r; ++i) chosen[static_cast<size_t>(i)] = b.rng.chance(50);
  if (std::none_of(chosen.begin(), chosen.end(), [](bool c) { return c; }))
    chosen[static_cast<size_t>(b.rng.below(r))] = true;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  for (int i = 0; i < r; ++i) {
    if (!chosen[static_cast<size_t>(i)]) continue;
    const int64_t d = x.dims[static_cast<size_t>(i)];
    const int steps_choice[] = {1, 1, 1, 1, 2, -1, -2};
    const int64_t step = steps_choice[b.rng.below(7)];
    int64_t start, end, len;
    if (step > 0) {
      start = b.rng.in(0, static_cast<int>(d - 1));
      end = b.rng.in(static_cast<int>(start + 1), static_cast<int>(d));
      len = (end - start + step - 1) / step;
      if (end == d && b.rng.chance(40))
        end = kMax;
      else if (end < d && b.rng.chance(30))
        end -= d;  // negative: counted from the end
    } else {
      start = b.rng.in(0, static_cast<int>(d - 1));
      end = b.rng.in(-1, static_cast<int>(start - 1));
      len = (start - end + (-step) - 1) / (-step);
      if (end == -1)
        end = b.rng.chance(50) ? kMin : -d - 1 - b.rng.in(0, 3);
      else if (b.rng.chance(30))
        end -= d;
    }
    if (b.rng.chance(30)) start -= d;
    starts.push_back(start), ends.push_back(end), axes.push_back(axis_text(b.rng, i, r)),
        steps.push_back(step);
    dims[static_cast<size_t>(i)] = len;
  }
  const bool unit_steps = std::all_of(steps.begin(), steps.end(), [](int64_t s) { return s == 1; });
  bool all_in_order = static_cast<int>(axes.size()) == r;
  for (size_t k = 0; k < axes.size(); ++k) all_in_order = all_in_order && axes[k] == static_cast<int64_t>(k);
  std::vector<std::string> ins = {x.name, b.const_i64(starts), b.const_i64(ends)};
  const bool with_steps = !unit_steps || b.rng.chance(50);
  if (!all_in_order || b.rng.chance(70)) {
    ins.push_back(b.const_i64(axes));
  } else if (with_steps) {
    ins.push_back("");  // an omitted optional input: axes default to 0..r-1
  }
  if (with_steps) ins.push_back(b.const_i64(steps));
  const Value out = b.push(dims, x.bound, x.exact);
  b.node("Slice", ins, {out.name});
  return true;
}

bool gather(Builder& b, const std::string&) {
  const Value x = any_value(b, 1);
  const int r = rank(x);
  const int a = b.rng.below(r);
  const int64_t d = x.dims[static_cast<size_t>(a)];
  Dims idims;
  if (!b.rng.chance(25)) {
    const int irank = b.rng.chance(70) ? 1 : 2;
    for (int i = 0; i < irank; ++i) idims.push_back(b.rng.in(1, 3));
  }
  std::vector<int64_t> idx(static_cast<size_t>(num_elements(idims)));
  for (auto& i : idx) {
    i = b.rng.in(0, static_cast<int>(d - 1));
    if (b.rng.chance(30)) i -= d;
  }
  Dims dims(x.dims.begin(), x.dims.begin() + a);
  dims.insert(dims.end(), idims.begin(), idims.end());
  dims.insert(dims.end(), x.dims.begin() + a + 1, x.dims.end());
  if (num_elements(dims) > kMaxElements) return false;
  const Value out = b.push(dims, x.bound, x.exact);
  auto* node = b.node("Gather", {x.name, b.const_i64_dims(idims, idx)}, {out.name});
  if (a != 0 || b.rng.chance(30)) set_int(node, "axis", axis_text(b.rng, a, r));
  return true;
}

// ---- Where and comparisons ----

bool where(Builder& b, const std::string& op) {
  static const char* const kCompare[] = {"Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual"};
  std::string cmp = op;
  if (op == "Where") {
    std::vector<std::string> ok;
    for (const char* c : kCompare)
      if (b.enabled(c)) ok.push_back(c);
    if (ok.empty()) ok.assign(std::begin(kCompare), std::end(kCompare));
    cmp = ok[static_cast<size_t>(b.rng.below(static_cast<int>(ok.size())))];
  }
  const Value x = any_value(b);
  // The compared value is exact (see Value): a comparison of values that backends round
  // differently could flip.
  Value c;
  if (x.exact) {
    c = x;
  } else if (auto w = pick(b, [&](const Value& y) {
               auto d = broadcast(x.dims, y.dims);
               return y.exact && d && *d == x.dims;
             })) {
    c = *w;
  } else {
    c = b.input(x.dims);
  }
  const std::string threshold = b.const_f32(
      {}, {cmp == "Equal" || b.rng.chance(40) ? 0.0f : static_cast<float>(b.rng.unit() * c.bound / 2)});
  const std::string cond = b.fresh("v");
  if (b.rng.chance(70))
    b.node(cmp, {c.name, threshold}, {cond});
  else
    b.node(cmp, {threshold, c.name}, {cond});
  const Value w = partner(b, x);
  const auto dims = broadcast(x.dims, w.dims);
  if (!dims) return false;  // cannot happen: both choices broadcast
  const Value out = b.push(*dims, std::max(x.bound, w.bound), x.exact && w.exact);
  if (b.rng.chance(50))
    b.node("Where", {cond, x.name, w.name}, {out.name});
  else
    b.node("Where", {cond, w.name, x.name}, {out.name});
  return true;
}

// ---- Cast between float types ----

bool cast(Builder& b, const std::string&) {
  // The float types Cast's schema lets it target (T2), other than float itself.
  struct Target {
    const char* type;
    int code;
  };
  static const Target kFloats[] = {{"tensor(double)", ::onnx::TensorProto::DOUBLE},
                                   {"tensor(float16)", ::onnx::TensorProto::FLOAT16},
                                   {"tensor(bfloat16)", ::onnx::TensorProto::BFLOAT16}};
  const Value x = any_value(b);
  std::vector<Target> targets;
  if (const ::onnx::OpSchema* s = b.schema("Cast")) {
    for (const auto& tc : s->typeConstraintParams()) {
      if (tc.type_param_str != "T2") continue;
      for (const Target& t : kFloats) {
        // Rounding to a narrower float is exact only of values every backend gives bit for bit.
        if (t.code != ::onnx::TensorProto::DOUBLE && !x.exact) continue;
        if (std::find(tc.allowed_type_strs.begin(), tc.allowed_type_strs.end(), t.type) !=
            tc.allowed_type_strs.end())
          targets.push_back(t);
      }
    }
  }
  if (targets.empty()) return false;
  const Target t = targets[static_cast<size_t>(b.rng.below(static_cast<int>(targets.size())))];
  std::string mid = b.fresh("v");
  set_int(b.node("Cast", {x.name}, {mid}), "to", t.code);
  bool exact = x.exact;
  double bound = x.bound;
  if (t.code == ::onnx::TensorProto::DOUBLE && b.rng.chance(50)) {
    static const char* const kUnary[] = {"Relu", "Abs", "Neg", "Tanh", "Sigmoid"};
    const std::string op = kUnary[b.rng.below(5)];
    const std::string next = b.fresh("v");
    b.node(op, {mid}, {next});
    mid = next;
    if (op == "Tanh" || op == "Sigmoid") exact = false, bound = 1;
  }
  const Value out = b.push(x.dims, bound, exact);
  set_int(b.node("Cast", {mid}, {out.name}), "to", ::onnx::TensorProto::FLOAT);
  return true;
}

}  // namespace plumb::hunt::gen::recipe
