// The helpers plumb gen's op recipes share (declared in hunt/gen_recipe.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include <onnx/onnx_pb.h>

#include <iterator>
#include <string>

#include "hunt/gen_recipe.h"

namespace plumb::hunt::gen::recipe {

// An upper bound on ln(n) computed without libm (whose log may differ in the last bit between
// platforms, and the bytes of a run must not): ln(2) times the bits n needs.
double ln_bound(double n) {
  int bits = 0;
  while (std::ldexp(1.0, bits) < n) ++bits;
  return 0.6931471805599453 * bits;
}

// A value of the pool that `pred` accepts: the latest one most of the time, else any.
std::optional<Value> pick(Builder& b, const Pred& pred) {
  if (!b.pool.empty() && pred(b.pool.back()) && b.rng.chance(70)) return b.pool.back();
  std::vector<size_t> ok;
  for (size_t k = 0; k < b.pool.size(); ++k)
    if (pred(b.pool[k])) ok.push_back(k);
  if (ok.empty()) return std::nullopt;
  return b.pool[ok[static_cast<size_t>(b.rng.below(static_cast<int>(ok.size())))]];
}

// `v` scaled by a power of two (exact) so that its bound is at most `max_bound`.
Value ready(Builder& b, const Value& v, double max_bound) {
  if (v.bound <= max_bound) return v;
  int k = 0;
  while (std::ldexp(v.bound, -k) > max_bound) ++k;
  const std::string c = b.const_f32({}, {static_cast<float>(std::ldexp(1.0, -k))});
  const Value out{b.fresh("v"), v.dims, std::ldexp(v.bound, -k), v.exact};
  b.node("Mul", {v.name, c}, {out.name});
  b.pool.push_back(out);
  return out;
}

Value reshape(Builder& b, const Value& v, const Dims& dims) {
  const std::string shape = b.const_i64(dims);
  const Value out = b.push(dims, v.bound, v.exact);
  b.node("Reshape", {v.name, shape}, {out.name});
  return out;
}

// A value of rank lo..hi with at most kMaxElements/4 elements: from the pool, else the latest
// value reshaped (when Reshape is enabled), else a new graph input of `fresh` dims.
Value of_rank(Builder& b, int lo, int hi, const Dims& fresh) {
  auto v = pick(b, [&](const Value& x) {
    return rank(x) >= lo && rank(x) <= hi && num_elements(x.dims) <= kMaxElements / 4;
  });
  if (v) return ready(b, *v);
  const Value& last = b.pool.back();
  if (b.enabled("Reshape") && num_elements(last.dims) <= kMaxElements / 4 && b.rng.chance(70)) {
    const Value src = ready(b, b.pool.back());
    return reshape(b, src, random_dims(b.rng, num_elements(src.dims), b.rng.in(lo, hi)));
  }
  return b.input(fresh);
}

Value any_value(Builder& b, int min_rank) {
  auto v =
      pick(b, [&](const Value& x) { return rank(x) >= min_rank && num_elements(x.dims) <= kMaxElements; });
  if (v) return ready(b, *v);
  Dims dims(static_cast<size_t>(std::max(min_rank, 1)));
  for (auto& d : dims) d = b.rng.in(1, 4);
  return b.input(dims);
}

std::optional<Dims> broadcast(const Dims& a, const Dims& c) {
  Dims out(std::max(a.size(), c.size()), 1);
  for (size_t k = 0; k < out.size(); ++k) {
    const int64_t x = k < out.size() - a.size() ? 1 : a[k - (out.size() - a.size())];
    const int64_t y = k < out.size() - c.size() ? 1 : c[k - (out.size() - c.size())];
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[k] = std::max(x, y);
  }
  return out;
}

// Dims of a constant that broadcasts with `dims`: a suffix of them, some set to 1, and a 1 of
// `dims` sometimes widened (the result grows).
Dims broadcast_partner(Rng& rng, const Dims& dims) {
  const size_t len = static_cast<size_t>(rng.in(0, static_cast<int>(dims.size())));
  Dims out(dims.end() - static_cast<std::ptrdiff_t>(len), dims.end());
  for (auto& d : out) {
    if (d == 1 && rng.chance(15))
      d = rng.in(2, 3);
    else if (rng.chance(25))
      d = 1;
  }
  return out;
}

// The value written for axis `a` of a rank-r tensor: negative (a - r) some of the time.
int64_t axis_text(Rng& rng, int a, int r) { return rng.chance(30) ? a - r : a; }

// The axes of `op`: an input or an attribute, as its schema has them at the opset.
void set_axes(Builder& b, const std::string& op, std::vector<std::string>& ins, ::onnx::NodeProto** node,
              const std::vector<int64_t>& axes, const std::string& out) {
  const bool as_input = b.has_input(op, "axes");
  if (as_input) ins.push_back(b.const_i64(axes));
  *node = b.node(op, ins, {out});
  if (!as_input) set_ints(*node, "axes", axes);
}

// The other operand of a broadcasting op on `v`: a pool value that broadcasts with it, or a
// constant in [-1, 1) of broadcast_partner dims.
Value partner(Builder& b, const Value& v) {
  auto w = b.rng.chance(40) ? pick(b,
                                   [&](const Value& x) {
                                     auto d = broadcast(v.dims, x.dims);
                                     return d && num_elements(*d) <= kMaxElements;
                                   })
                            : std::nullopt;
  if (w) return ready(b, *w);
  Dims dims = broadcast_partner(b.rng, v.dims);
  return Value{b.const_f32_random(dims, -1, 1), dims, 1.0, true};
}

Value exact_value(Builder& b, int lo, int hi, const Dims& fresh) {
  auto v = pick(b, [&](const Value& x) {
    return x.exact && rank(x) >= lo && rank(x) <= hi && num_elements(x.dims) <= kMaxElements / 4;
  });
  if (v) return ready(b, *v);
  const Value& last = b.pool.back();
  if (rank(last) >= lo && rank(last) <= hi && num_elements(last.dims) <= kMaxElements / 4)
    return b.input(last.dims);
  return b.input(fresh);
}

Value to_float(Builder& b, const std::string& name, const Dims& dims, double bound, bool exact) {
  const Value out = b.push(dims, bound, exact);
  set_int(b.node("Cast", {name}, {out.name}), "to", ::onnx::TensorProto::FLOAT);
  return out;
}

Value settle(Builder& b, const std::string& name, const Dims& dims, double bound, bool exact) {
  const Value out = b.push(dims, bound, exact);
  b.node("Reshape", {name, b.const_i64(dims)}, {out.name});
  return out;
}

Value positive(Builder& b, const Value& x, float c) {
  const std::string a = b.fresh("v");
  b.node("Abs", {x.name}, {a});
  const Value out = b.push(x.dims, x.bound + c, false);
  b.node("Add", {a, b.const_f32({}, {c})}, {out.name});
  return out;
}

std::string condition(Builder& b, const Value& c) {
  static const char* const kCompare[] = {"Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual"};
  std::vector<std::string> ok;
  for (const char* op : kCompare)
    if (b.enabled(op)) ok.push_back(op);
  if (ok.empty()) ok.assign(std::begin(kCompare), std::end(kCompare));
  const std::string cmp = ok[static_cast<size_t>(b.rng.below(static_cast<int>(ok.size())))];
  const std::string threshold = b.const_f32(
      {}, {cmp == "Equal" || b.rng.chance(40) ? 0.0f : static_cast<float>(b.rng.unit() * c.bound / 2)});
  const std::string out = b.fresh("v");
  if (b.rng.chance(70))
    b.node(cmp, {c.name, threshold}, {out});
  else
    b.node(cmp, {threshold, c.name}, {out});
  return out;
}

}  // namespace plumb::hunt::gen::recipe
