// plumb gen's recipes for index results and index-driven data movement: ArgMax / ArgMin, TopK,
// CumSum, Tile, GatherElements, GatherND, Trilu, Compress, ReverseSequence, OneHot,
// ScatterElements / ScatterND (unique indices: duplicates are undefined, spec/onnx-rulings.md),
// and the ops that make a tensor from a shape or scalars: ConstantOfShape, Range, EyeLike, Size
// (hunt/gen_recipe.h; the rules common to all recipes are at the top of gen_ops.cpp). Integer
// results (indices, sizes) come back to the float pool through a Cast; ops whose result depends
// on comparing elements read exact values only.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>

#include "hunt/gen_recipe.h"

namespace plumb::hunt::gen::recipe {

namespace {

Dims small_dims(Rng& rng) { return {rng.in(1, 4), rng.in(1, 5)}; }

// `m` distinct values of [0, n) in random order (a partial Fisher-Yates shuffle), negative
// (counted from the end) some of the time.
std::vector<int64_t> distinct(Rng& rng, int64_t n, int64_t m, bool negatives) {
  std::vector<int64_t> all(static_cast<size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  for (int64_t i = 0; i < m; ++i)
    std::swap(all[static_cast<size_t>(i)], all[static_cast<size_t>(i + rng.below(static_cast<int>(n - i)))]);
  all.resize(static_cast<size_t>(m));
  if (negatives)
    for (auto& v : all)
      if (rng.chance(30)) v -= n;
  return all;
}

}  // namespace

// ArgMax / ArgMin of an exact value (ties are exact too: the first, or with select_last_index
// the last), cast to float; sometimes OneHot of the result.
bool arg_reduce(Builder& b, const std::string& op) {
  const bool one_hot = op == "OneHot" || (b.enabled("OneHot") && b.rng.chance(30));
  const std::string arg = op != "OneHot" ? op : (b.rng.chance(50) ? "ArgMax" : "ArgMin");
  const Value x = exact_value(b, 1, 6, small_dims(b.rng));
  const int r = rank(x);
  const int a = b.rng.below(r);
  const bool keep = b.rng.chance(50);
  Dims dims;
  for (int i = 0; i < r; ++i) {
    if (i != a)
      dims.push_back(x.dims[static_cast<size_t>(i)]);
    else if (keep)
      dims.push_back(1);
  }
  const std::string idx = b.fresh("v");
  auto* node = b.node(arg, {x.name}, {idx});
  if (a != 0 || b.rng.chance(30)) set_int(node, "axis", axis_text(b.rng, a, r));
  if (!keep || b.rng.chance(30)) set_int(node, "keepdims", keep ? 1 : 0);
  if (b.has_attribute(arg, "select_last_index") && b.rng.chance(30)) set_int(node, "select_last_index", 1);
  const int64_t d = x.dims[static_cast<size_t>(a)];
  // OneHot's indices of rank 0 are refused by libonnx 1.12's shape inference ("rank >= 1").
  if (one_hot && !dims.empty()) {
    // OneHot of the indices (depth d, a float or int64 scalar), values [off, on], any axis.
    const int orank = static_cast<int>(dims.size()) + 1;
    const int oa = b.rng.below(orank);
    Dims odims = dims;
    odims.insert(odims.begin() + oa, d);
    if (num_elements(odims) > kMaxElements) {
      to_float(b, idx, dims, static_cast<double>(d), true);
      return true;
    }
    const std::string depth =
        b.rng.chance(50) ? b.const_i64({d}, b.rng.chance(50)) : b.const_f32({}, {static_cast<float>(d)});
    const float off = b.rng.chance(50) ? 0.0f : -0.5f, on = b.rng.chance(50) ? 1.0f : 2.0f;
    const Value out = b.push(odims, 2, true);
    auto* oh = b.node("OneHot", {idx, depth, b.const_f32({2}, {off, on})}, {out.name});
    if (oa != orank - 1 || b.rng.chance(30)) set_int(oh, "axis", axis_text(b.rng, oa, orank));
    return true;
  }
  to_float(b, idx, dims, static_cast<double>(d), true);
  return true;
}

// TopK (K an int64 [1] input, largest or smallest, sorted) of an exact value: ties go to the lower
// index. Values and indices both go on.
bool top_k(Builder& b, const std::string&) {
  const Value x = exact_value(b, 1, 6, small_dims(b.rng));
  const int r = rank(x);
  const int a = b.rng.below(r);
  const int64_t d = x.dims[static_cast<size_t>(a)];
  const int64_t k = b.rng.in(1, static_cast<int>(d));
  Dims dims = x.dims;
  dims[static_cast<size_t>(a)] = k;
  const Value values{b.fresh("v"), dims, x.bound, x.exact};
  const std::string idx = b.fresh("v");
  auto* node = b.node("TopK", {x.name, b.const_i64({k})}, {values.name, idx});
  if (a != r - 1 || b.rng.chance(30)) set_int(node, "axis", axis_text(b.rng, a, r));
  if (b.rng.chance(40)) set_int(node, "largest", 0);
  if (b.rng.chance(20)) set_int(node, "sorted", 1);
  b.pool.push_back(values);
  to_float(b, idx, dims, static_cast<double>(d), true);
  if (b.rng.chance(50)) std::swap(b.pool[b.pool.size() - 1], b.pool[b.pool.size() - 2]);
  return true;
}

bool cum_sum(Builder& b, const std::string&) {
  const Value x = any_value(b, 1);
  const int r = rank(x);
  const int a = b.rng.below(r);
  const Value out = b.push(x.dims, x.bound * static_cast<double>(x.dims[static_cast<size_t>(a)]), false);
  auto* node =
      b.node("CumSum", {x.name, b.const_i64({axis_text(b.rng, a, r)}, b.rng.chance(60))}, {out.name});
  if (b.rng.chance(30)) set_int(node, "exclusive", 1);
  if (b.rng.chance(30)) set_int(node, "reverse", 1);
  return true;
}

// Tile, GatherElements, GatherND, Trilu, Compress, ReverseSequence, OneHot (through arg_reduce).
bool index_op(Builder& b, const std::string& op) {
  if (op == "OneHot") return arg_reduce(b, op);
  const Value x = any_value(b, op == "Trilu" || op == "ReverseSequence" ? 2 : 1);
  const int r = rank(x);
  if (op == "Tile") {
    Dims reps(static_cast<size_t>(r)), dims = x.dims;
    for (int i = 0; i < r; ++i) {
      reps[static_cast<size_t>(i)] = b.rng.chance(50) ? 1 : b.rng.in(2, 3);
      dims[static_cast<size_t>(i)] *= reps[static_cast<size_t>(i)];
    }
    if (num_elements(dims) > kMaxElements) return false;
    const Value out = b.push(dims, x.bound, x.exact);
    b.node("Tile", {x.name, b.const_i64(reps)}, {out.name});
    return true;
  }
  if (op == "GatherElements") {
    const int a = b.rng.below(r);
    const int64_t d = x.dims[static_cast<size_t>(a)];
    Dims idims = x.dims;
    idims[static_cast<size_t>(a)] = b.rng.in(1, 3);
    std::vector<int64_t> idx(static_cast<size_t>(num_elements(idims)));
    for (auto& i : idx) i = b.rng.in(0, static_cast<int>(d - 1)) - (b.rng.chance(25) ? d : 0);
    const Value out = b.push(idims, x.bound, x.exact);
    auto* node = b.node("GatherElements", {x.name, b.const_i64_dims(idims, idx)}, {out.name});
    if (a != 0 || b.rng.chance(30)) set_int(node, "axis", axis_text(b.rng, a, r));
    return true;
  }
  if (op == "GatherND") {
    const int batch = r >= 2 && b.rng.chance(25) ? 1 : 0;
    const int k = b.rng.in(1, r - batch);
    Dims idims(x.dims.begin(), x.dims.begin() + batch);
    for (int m = b.rng.in(0, 2); m > 0; --m) idims.push_back(b.rng.in(1, 3));
    Dims dims = idims;
    idims.push_back(k);
    dims.insert(dims.end(), x.dims.begin() + batch + k, x.dims.end());
    if (num_elements(dims) > kMaxElements) return false;
    std::vector<int64_t> idx(static_cast<size_t>(num_elements(idims)));
    for (size_t i = 0; i < idx.size(); ++i) {
      const int64_t d = x.dims[static_cast<size_t>(batch) + i % static_cast<size_t>(k)];
      idx[i] = b.rng.in(0, static_cast<int>(d - 1)) - (b.rng.chance(20) ? d : 0);
    }
    const Value out = b.push(dims, x.bound, x.exact);
    auto* node = b.node("GatherND", {x.name, b.const_i64_dims(idims, idx)}, {out.name});
    if (batch != 0 || b.rng.chance(20)) set_int(node, "batch_dims", batch);
    return true;
  }
  if (op == "Trilu") {
    std::vector<std::string> ins = {x.name};
    if (b.rng.chance(60)) ins.push_back(b.const_i64({b.rng.in(-2, 2)}, true));
    const Value out = b.push(x.dims, x.bound, x.exact);
    auto* node = b.node("Trilu", ins, {out.name});
    if (b.rng.chance(50)) set_int(node, "upper", b.rng.below(2));
    return true;
  }
  if (op == "Compress") {
    // Along an axis, or (no axis) over the flattened input; at least one element kept.
    const bool flat = b.rng.chance(25);
    const int a = b.rng.below(r);
    const int64_t d = flat ? num_elements(x.dims) : x.dims[static_cast<size_t>(a)];
    const int64_t len = b.rng.in(1, static_cast<int>(d));
    std::vector<uint8_t> keep(static_cast<size_t>(len));
    int64_t kept = 0;
    for (auto& k : keep) kept += (k = b.rng.chance(60) ? 1 : 0);
    if (kept == 0) keep[0] = 1, kept = 1;
    Dims dims = x.dims;
    if (flat)
      dims = {kept};
    else
      dims[static_cast<size_t>(a)] = kept;
    // Its result's dims are data-dependent: settled to the ones known here.
    const std::string picked = b.fresh("v");
    auto* node =
        b.node("Compress",
               {x.name, b.initializer(::onnx::TensorProto::BOOL, {len}, keep.data(), keep.size())}, {picked});
    if (!flat) set_int(node, "axis", axis_text(b.rng, a, r));
    settle(b, picked, dims, x.bound, x.exact);
    return true;
  }
  // ReverseSequence: time and batch axes 0 and 1 (either way round), each sequence's length 1..T.
  const bool batch_first = b.rng.chance(50);
  const int64_t batch = x.dims[batch_first ? 0 : 1], steps = x.dims[batch_first ? 1 : 0];
  std::vector<int64_t> lens(static_cast<size_t>(batch));
  for (auto& l : lens) l = b.rng.in(1, static_cast<int>(steps));
  const Value out = b.push(x.dims, x.bound, x.exact);
  auto* node = b.node("ReverseSequence", {x.name, b.const_i64(lens)}, {out.name});
  if (batch_first || b.rng.chance(30)) set_int(node, "batch_axis", batch_first ? 0 : 1);
  if (batch_first || b.rng.chance(30)) set_int(node, "time_axis", batch_first ? 1 : 0);
  return true;
}

// ScatterElements and ScatterND with unique indices (reduction "none", or "add" / "mul" where the
// opset has them: with unique indices each applies once) and constant updates in [-1, 1).
bool scatter(Builder& b, const std::string& op) {
  const Value x = any_value(b, 1);
  const int r = rank(x);
  std::vector<std::string> ins = {x.name};
  Dims udims;
  ::onnx::NodeProto* node = nullptr;
  if (op != "ScatterND") {  // ScatterElements, and Scatter (9, 10: the same without reduction)
    const int a = b.rng.below(r);
    const int64_t d = x.dims[static_cast<size_t>(a)];
    udims = x.dims;
    udims[static_cast<size_t>(a)] = b.rng.in(1, static_cast<int>(d));
    // Per line along the axis, distinct positions.
    std::vector<int64_t> idx(static_cast<size_t>(num_elements(udims)));
    int64_t inner = 1;
    for (int i = a + 1; i < r; ++i) inner *= udims[static_cast<size_t>(i)];
    const int64_t m = udims[static_cast<size_t>(a)], outer = num_elements(udims) / (m * inner);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t in = 0; in < inner; ++in) {
        const auto pos = distinct(b.rng, d, m, true);
        for (int64_t j = 0; j < m; ++j)
          idx[static_cast<size_t>((o * m + j) * inner + in)] = pos[static_cast<size_t>(j)];
      }
    ins.push_back(b.const_i64_dims(udims, idx));
    ins.push_back(b.const_f32_random(udims, -1, 1));
    const Value out = b.push(x.dims, std::max(x.bound, 1.0), x.exact);
    node = b.node(op, ins, {out.name});
    if (a != 0 || b.rng.chance(30)) set_int(node, "axis", axis_text(b.rng, a, r));
  } else {
    const int k = b.rng.in(1, r);
    const int64_t cells = num_elements(Dims(x.dims.begin(), x.dims.begin() + k));
    const int64_t n = b.rng.in(1, static_cast<int>(std::min<int64_t>(cells, 4)));
    const auto flat = distinct(b.rng, cells, n, false);
    std::vector<int64_t> idx;
    for (int64_t f : flat) {
      std::vector<int64_t> tuple(static_cast<size_t>(k));
      for (int i = k - 1; i >= 0; --i) {
        const int64_t d = x.dims[static_cast<size_t>(i)];
        tuple[static_cast<size_t>(i)] = f % d;  // non-negative: ScatterND's text says nothing of negatives
        f /= d;
      }
      idx.insert(idx.end(), tuple.begin(), tuple.end());
    }
    udims = {n};
    udims.insert(udims.end(), x.dims.begin() + k, x.dims.end());
    ins.push_back(b.const_i64_dims({n, k}, idx));
    ins.push_back(b.const_f32_random(udims, -1, 1));
    const Value out = b.push(x.dims, std::max(x.bound, 1.0), x.exact);
    node = b.node(op, ins, {out.name});
  }
  if (b.has_attribute(op, "reduction") && b.rng.chance(40)) {
    const bool add = b.rng.chance(50);
    set_string(node, "reduction", add ? "add" : "mul");
    Value& out = b.pool.back();
    out.exact = false;
    out.bound = add ? out.bound + 1 : out.bound;
  }
  return true;
}

// ConstantOfShape of a Shape (torch's zeros_like / full_like), Range of exact float or int64
// scalars, EyeLike of a rank-2 value, Size.
bool generate_op(Builder& b, const std::string& op) {
  if (op == "Range") {
    const int64_t n = b.rng.in(1, 6);
    if (b.rng.chance(40)) {
      const int64_t start = b.rng.in(-4, 4), delta = b.rng.chance(70) ? b.rng.in(1, 3) : -b.rng.in(1, 2);
      const int64_t limit = start + n * delta;
      const std::string out = b.fresh("v");
      b.node("Range", {b.const_i64({start}, true), b.const_i64({limit}, true), b.const_i64({delta}, true)},
             {out});
      const double most = static_cast<double>(std::max(std::abs(start), std::abs(limit)));
      to_float(b, out, {n}, most, true);
      return true;
    }
    // start, delta multiples of 1/4; limit half a step short of start + n * delta: n elements
    // whatever the rounding of (limit - start) / delta.
    const float quarters[] = {0.25f, 0.5f, 1.0f, -0.25f, -0.5f};
    const float delta = quarters[b.rng.below(5)], start = static_cast<float>(b.rng.in(-8, 8)) / 4;
    const float limit = start + (static_cast<float>(n) - 0.5f) * delta;
    const Value out = b.push({n}, 2 + 6 * 1.0, true);
    b.node("Range", {b.const_f32({}, {start}), b.const_f32({}, {limit}), b.const_f32({}, {delta})},
           {out.name});
    return true;
  }
  if (op == "EyeLike") {
    auto v = pick(b, [](const Value& x) { return rank(x) == 2; });
    const Value x = v ? *v : b.input({b.rng.in(1, 5), b.rng.in(1, 5)});
    const Value out = b.push(x.dims, 1, true);
    auto* node = b.node("EyeLike", {x.name}, {out.name});
    if (b.rng.chance(50)) set_int(node, "k", b.rng.in(-2, 2));
    return true;
  }
  const Value x = any_value(b);
  if (op == "Size") {
    const std::string s = b.fresh("v");
    b.node("Size", {x.name}, {s});
    to_float(b, s, {}, static_cast<double>(num_elements(x.dims)), true);
    return true;
  }
  const std::string shape = b.fresh("v");
  b.node("Shape", {x.name}, {shape});
  const float c = b.rng.chance(40) ? 0.0f : static_cast<float>(b.rng.in(-4, 4)) / 4;
  const Value out = b.push(x.dims, 1, true);
  auto* node = b.node("ConstantOfShape", {shape}, {out.name});
  if (c != 0 || b.rng.chance(50)) {
    auto* a = node->add_attribute();
    a->set_name("value");
    a->set_type(::onnx::AttributeProto::TENSOR);
    auto* t = a->mutable_t();
    t->set_data_type(::onnx::TensorProto::FLOAT);
    t->add_dims(1);
    t->add_float_data(c);
  }
  return true;
}

}  // namespace plumb::hunt::gen::recipe
