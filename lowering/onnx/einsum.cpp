// ONNX Einsum (12) and Det (11, 22).
//
// Einsum is lowered to slices (diagonals of repeated labels), sums, transposes, reshapes and
// batched `matmul`s, one operand pair at a time, left to right. Sums and products run in the
// input dtype as the core defines them (floats: matmul/reduce accumulators; integers wrap: narrow
// integers are multiplied into i32/u32 and wrapped back, which is the same value modulo 2^bits).
// Det is an LU factorisation with partial pivoting unrolled over the static n, in f64.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using CK = ir::CompareKind;

namespace {

using Ints = std::vector<int64_t>;
constexpr int64_t kMaxRank = 64;

// Product of dims, saturating at INT64_MAX (a reshape to that is then refused by the core).
int64_t product(const Ints& d) {
  int64_t p = 1;
  for (int64_t x : d)
    if (__builtin_mul_overflow(p, x, &p)) return INT64_MAX;
  return p;
}

ValueId slice(LowerCtx& cx, ValueId v, const Ints& start, const Ints& size, const Ints& stride) {
  return cx.b.emit1(ir::SliceAttrs{},
                    {v, cx.b.shape_const(start), cx.b.shape_const(size), cx.b.shape_const(stride)});
}

// ---- Einsum ---------------------------------------------------------------------------------------
// Labels: letters are 0..51 (ASCII order, so the implicit output sorts as the ONNX text says);
// ellipsis dims are 52 + j, right-aligned over the widest ellipsis (numpy broadcasting).
constexpr int kEllipsisBase = 52;

struct Term {
  ValueId v;
  std::vector<int> labels;
  Ints dims;
};

int letter_label(char ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return 26 + (ch - 'a');
  return -1;
}

// Parses one term into labels with the ellipsis as -1 (at most one per term).
Expected<std::vector<int>> parse_term(const std::string& s) {
  std::vector<int> out;
  bool ellipsis = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.') {
      if (s.compare(i, 3, "...") != 0 || ellipsis)
        return invalid_model("", "Einsum: malformed ellipsis in '" + s + "'");
      ellipsis = true;
      out.push_back(-1);
      i += 2;
      continue;
    }
    const int l = letter_label(s[i]);
    if (l < 0) return invalid_model("", std::string("Einsum: invalid label '") + s[i] + "'");
    out.push_back(l);
  }
  return out;
}

// Expands the ellipsis of a term for an operand of rank r (ellipsis width r - letters) into
// labels kEllipsisBase + (E - width) + j.
Expected<std::vector<int>> expand_term(const std::vector<int>& t, int64_t r, int64_t E) {
  std::vector<int> out;
  const int64_t letters =
      static_cast<int64_t>(std::count_if(t.begin(), t.end(), [](int l) { return l >= 0; }));
  const bool has_ell = letters != static_cast<int64_t>(t.size());
  const int64_t width = r - letters;
  if (width < 0 || (!has_ell && width != 0))
    return invalid_model("", "Einsum: term rank does not match its operand");
  for (int l : t) {
    if (l >= 0) {
      out.push_back(l);
      continue;
    }
    for (int64_t j = 0; j < width; ++j) out.push_back(static_cast<int>(kEllipsisBase + (E - width) + j));
  }
  return out;
}

ValueId reshape_to(LowerCtx& cx, ValueId v, const Ints& dims) {
  return cx.b.reshape(v, cx.b.shape_const(dims));
}

// Transposes t so that its labels come in `order` (a permutation of t.labels).
void permute(LowerCtx& cx, Term& t, const std::vector<int>& order) {
  if (order == t.labels) return;
  Ints perm;
  Ints dims;
  for (int l : order) {
    const int64_t i = std::find(t.labels.begin(), t.labels.end(), l) - t.labels.begin();
    perm.push_back(i);
    dims.push_back(t.dims[i]);
  }
  t.v = cx.b.transpose(t.v, perm);
  t.labels = order;
  t.dims = dims;
}

// Sums t over the labels in `drop`.
void sum_out(LowerCtx& cx, Term& t, const std::vector<int>& drop) {
  Ints axes;
  std::vector<int> labels;
  Ints dims;
  for (size_t i = 0; i < t.labels.size(); ++i) {
    if (std::find(drop.begin(), drop.end(), t.labels[i]) != drop.end())
      axes.push_back(static_cast<int64_t>(i));
    else
      labels.push_back(t.labels[i]), dims.push_back(t.dims[i]);
  }
  if (axes.empty()) return;
  t.v = cx.b.reduce(ir::ReduceKind::Sum, t.v, axes);
  t.labels = labels;
  t.dims = dims;
}

// Replaces each repeated label of t by its diagonal (moved to the end).
Status take_diagonals(LowerCtx& cx, Term& t) {
  for (;;) {
    size_t i = 0, j = 0;
    bool found = false;
    for (i = 0; i < t.labels.size() && !found; ++i)
      for (j = i + 1; j < t.labels.size(); ++j)
        if (t.labels[i] == t.labels[j]) {
          found = true;
          break;
        }
    if (!found) return Status::ok();
    --i;
    if (t.dims[i] != t.dims[j]) return cx.invalid("Einsum: a repeated label has different extents");
    const int l = t.labels[i];
    const int64_t d = t.dims[i];
    std::vector<int> order;
    for (size_t k = 0; k < t.labels.size(); ++k)
      if (k != i && k != j) order.push_back(t.labels[k]);
    // Move both occurrences to the end, then read every (d+1)-th element of the flattened d*d.
    Ints perm, dims;
    for (size_t k = 0; k < t.labels.size(); ++k)
      if (k != i && k != j) perm.push_back(static_cast<int64_t>(k)), dims.push_back(t.dims[k]);
    perm.push_back(static_cast<int64_t>(i));
    perm.push_back(static_cast<int64_t>(j));
    ValueId v = cx.b.transpose(t.v, perm);
    Ints flat = dims;
    flat.push_back(d * d);
    v = reshape_to(cx, v, flat);
    Ints start(flat.size(), 0), size = dims, stride(flat.size(), 1);
    size.push_back(d);
    stride.back() = d + 1;
    t.v = slice(cx, v, start, size, stride);
    order.push_back(l);
    t.labels = order;
    t.dims = size;
  }
}

// Broadcasts the labels of t whose extent is 1 to `sizes` (numpy broadcasting of ellipsis dims).
void widen(LowerCtx& cx, Term& t, const std::map<int, int64_t>& sizes) {
  Ints target;
  bool change = false;
  for (size_t i = 0; i < t.labels.size(); ++i) {
    target.push_back(sizes.at(t.labels[i]));
    change = change || target.back() != t.dims[i];
  }
  if (!change) return;
  std::vector<int64_t> all(t.labels.size());
  for (size_t i = 0; i < t.labels.size(); ++i) all[i] = static_cast<int64_t>(i);
  t.v = cx.b.broadcast(t.v, cx.b.shape_const(target), all);
  t.dims = target;
}

// The dtype matmul produces for `dt`, and whether a wrap back to dt follows.
ir::DType matmul_dtype(ir::DType dt) {
  if (ir::is_float(dt)) return dt;
  const int bits = ir::dtype_bits(dt);
  if (ir::is_unsigned_int(dt)) return bits > 32 ? ir::DType::U64 : ir::DType::U32;
  return bits > 32 ? ir::DType::I64 : ir::DType::I32;
}

bool contains(const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); }

// a x b over their shared labels; labels in `keep` stay (as batch labels when both have them).
Term contract(LowerCtx& cx, Term a, Term b, const std::vector<int>& keep) {
  std::vector<int> batch, a_only, b_only, summed;
  for (int l : a.labels) {
    if (contains(b.labels, l))
      (contains(keep, l) ? batch : summed).push_back(l);
    else
      a_only.push_back(l);
  }
  for (int l : b.labels)
    if (!contains(a.labels, l)) b_only.push_back(l);
  auto cat = [](std::vector<int> x, const std::vector<int>& y, const std::vector<int>& z) {
    x.insert(x.end(), y.begin(), y.end());
    x.insert(x.end(), z.begin(), z.end());
    return x;
  };
  permute(cx, a, cat(batch, a_only, summed));
  permute(cx, b, cat(batch, summed, b_only));
  auto extent = [](const Term& t, const std::vector<int>& ls) {
    Ints d;
    for (int l : ls) d.push_back(t.dims[std::find(t.labels.begin(), t.labels.end(), l) - t.labels.begin()]);
    return d;
  };
  const Ints bd = extent(a, batch), ad = extent(a, a_only), kd = extent(a, summed), nd = extent(b, b_only);
  const ir::DType dt = cx.type(a.v).dtype;
  const ir::DType to = matmul_dtype(dt);
  ValueId am = reshape_to(cx, a.v, {product(bd), product(ad), product(kd)});
  ValueId bm = reshape_to(cx, b.v, {product(bd), product(kd), product(nd)});
  ValueId y = cx.b.matmul(am, bm, to);
  if (to != dt) y = cx.b.cast(y, dt);
  Term r;
  r.labels = cat(batch, a_only, b_only);
  r.dims = bd;
  r.dims.insert(r.dims.end(), ad.begin(), ad.end());
  r.dims.insert(r.dims.end(), nd.begin(), nd.end());
  r.v = reshape_to(cx, y, r.dims);
  return r;
}

Status lower_einsum(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(std::string eq, n.attr_string("equation", ""));
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::vector<int>> raw;
  for (size_t p = 0;;) {
    const size_t q = lhs.find(',', p);
    PLUMB_ASSIGN_OR_RETURN(std::vector<int> t, parse_term(lhs.substr(p, q == std::string::npos ? q : q - p)));
    raw.push_back(t);
    if (q == std::string::npos) break;
    p = q + 1;
  }
  if (raw.size() != n.inputs.size())
    return cx.invalid("Einsum: the equation names a different number of operands");
  std::vector<Term> terms;
  int64_t E = 0;
  for (size_t i = 0; i < raw.size(); ++i) {
    PLUMB_ASSIGN_OR_RETURN(ValueId v, cx.input(n, i));
    PLUMB_RETURN_IF_ERROR(cx.error());
    const ir::Type t = cx.type(v);
    if (!t.ranked || !ir::shape_is_static(t.shape)) return cx.unsupported("Einsum with symbolic dims");
    Term term;
    term.v = v;
    for (const ir::Dim& d : t.shape) term.dims.push_back(d.size);
    const int64_t letters =
        static_cast<int64_t>(std::count_if(raw[i].begin(), raw[i].end(), [](int l) { return l >= 0; }));
    E = std::max(E, t.rank() - letters);
    terms.push_back(term);
    if (cx.type(v).dtype != cx.type(terms[0].v).dtype)
      return cx.invalid("Einsum operands must share one dtype");
  }
  if (E > kMaxRank) return cx.invalid("Einsum: ellipsis too wide");
  std::map<int, int64_t> sizes;
  std::map<int, int> count;
  for (size_t i = 0; i < terms.size(); ++i) {
    PLUMB_ASSIGN_OR_RETURN(terms[i].labels,
                           expand_term(raw[i], static_cast<int64_t>(terms[i].dims.size()), E));
    for (size_t k = 0; k < terms[i].labels.size(); ++k) {
      const int l = terms[i].labels[k];
      const int64_t d = terms[i].dims[k];
      ++count[l];
      auto it = sizes.find(l);
      if (it == sizes.end() || it->second == 1)
        sizes[l] = d;
      else if (d != 1 && d != it->second)
        return cx.invalid("Einsum: label extents do not agree (and are not 1)");
    }
  }
  std::vector<int> out;
  if (arrow != std::string::npos) {
    PLUMB_ASSIGN_OR_RETURN(std::vector<int> rt, parse_term(eq.substr(arrow + 2)));
    const bool has_ell = contains(rt, -1);
    PLUMB_ASSIGN_OR_RETURN(out, expand_term(rt, static_cast<int64_t>(rt.size()) - (has_ell ? 1 : 0) + E, E));
    for (size_t k = 0; k < out.size(); ++k) {
      if (!sizes.count(out[k])) return cx.invalid("Einsum: output label not among the inputs");
      if (std::count(out.begin(), out.end(), out[k]) > 1) return cx.invalid("Einsum: repeated output label");
    }
  } else {
    for (int64_t j = 0; j < E; ++j) out.push_back(static_cast<int>(kEllipsisBase + j));
    for (const auto& [l, c] : count)
      if (l < kEllipsisBase && c == 1) out.push_back(l);
  }
  // Per operand: diagonals, then sums over labels no one else needs.
  for (size_t i = 0; i < terms.size(); ++i) {
    PLUMB_RETURN_IF_ERROR(take_diagonals(cx, terms[i]));
    widen(cx, terms[i], sizes);
    std::vector<int> drop;
    for (int l : terms[i].labels) {
      bool needed = contains(out, l);
      for (size_t j = 0; j < terms.size() && !needed; ++j) needed = j != i && contains(terms[j].labels, l);
      if (!needed) drop.push_back(l);
    }
    sum_out(cx, terms[i], drop);
  }
  Term acc = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) {
    std::vector<int> keep = out;
    for (size_t j = i + 1; j < terms.size(); ++j)
      keep.insert(keep.end(), terms[j].labels.begin(), terms[j].labels.end());
    // Labels of one side only that nobody needs later are summed first.
    std::vector<int> later = keep;
    later.insert(later.end(), terms[i].labels.begin(), terms[i].labels.end());
    std::vector<int> drop_a, drop_b;
    for (int l : acc.labels)
      if (!contains(later, l)) drop_a.push_back(l);
    sum_out(cx, acc, drop_a);
    later = keep;
    later.insert(later.end(), acc.labels.begin(), acc.labels.end());
    for (int l : terms[i].labels)
      if (!contains(later, l)) drop_b.push_back(l);
    sum_out(cx, terms[i], drop_b);
    acc = contract(cx, acc, terms[i], keep);
  }
  std::vector<int> drop;
  for (int l : acc.labels)
    if (!contains(out, l)) drop.push_back(l);
  sum_out(cx, acc, drop);
  permute(cx, acc, out);
  cx.set_output(n, 0, acc.v);
  return cx.error();
}

// ---- Det ------------------------------------------------------------------------------------------
// LU with partial pivoting over the static n, unrolled, on f64 [B, n, n]:
//   for k in [0, n): p = argmax_{i >= k} |A[i, k]| (first on ties); swap rows k and p (sign flips
//   when p != k); for i > k: A[i, :] -= (A[i, k] / A[k, k]) * A[k, :]   (skipped when A[k, k] == 0:
//   then the whole column below is 0 and the determinant is 0)
//   det = sign * prod_k A[k, k]
// Rounding: every step rounds in f64 (the usual LU backward error, about n * growth * 2^-53 of the
// entries), and the result is rounded once to the input dtype; for f32/f16 inputs this is the
// correctly rounded determinant up to that f64 error. NaN/inf entries propagate as in any LU.
Status lower_det(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::Type t = cx.type(x);
  if (!ir::is_float(t.dtype)) return cx.invalid("Det input must be floating");
  if (!t.ranked || t.rank() < 2 || !ir::shape_is_static(t.shape))
    return cx.unsupported("Det with symbolic dims");
  Ints dims;
  for (const ir::Dim& d : t.shape) dims.push_back(d.size);
  const int64_t r = t.rank(), m = dims[r - 1];
  if (dims[r - 2] != m) return cx.invalid("Det input must be [*, M, M]");
  if (m > 256) return cx.unsupported("Det of matrices larger than 256 x 256");
  const Ints batch(dims.begin(), dims.end() - 2);
  const int64_t B = product(batch);
  constexpr ir::DType kF = ir::DType::F64;
  ValueId a = reshape_to(cx, t.dtype == kF ? x : cx.b.cast(x, kF), {B, m, m});
  auto scalar_full = [&](double v, const Ints& shape) {
    return cx.b.broadcast(cx.b.scalar_float(kF, v), cx.b.shape_const(shape), {});
  };
  ValueId sign = scalar_full(1.0, {B});
  ValueId rows = cx.b.emit1(ir::IotaAttrs{ir::DType::I64, 1}, {cx.b.shape_const({B, m})});
  ValueId rows3 = cx.b.broadcast(rows, cx.b.shape_const({B, m, m}), {0, 1});
  for (int64_t k = 0; k < m; ++k) {
    ValueId kk = cx.b.broadcast(cx.b.scalar_int(ir::DType::I64, k), cx.b.shape_const({B, m}), {});
    ValueId col = reshape_to(cx, slice(cx, a, {0, 0, k}, {B, m, 1}, {1, 1, 1}), {B, m});
    ValueId below = cx.b.compare(CK::Ge, rows, kk);
    ValueId mag = cx.b.select(below, cx.b.unary(ir::UnaryKind::Abs, col), scalar_full(-1.0, {B, m}));
    ValueId p = cx.b.emit1(ir::ArgReduceAttrs{ir::ArgKind::Max, 1, false}, {mag});
    ValueId pb = cx.b.broadcast(p, cx.b.shape_const({B, m}), {0});
    // Row permutation swapping k and p: idx[i] = i == k ? p : i == p ? k : i.
    ValueId idx = cx.b.select(cx.b.compare(CK::Eq, rows, kk), pb,
                              cx.b.select(cx.b.compare(CK::Eq, rows, pb), kk, rows));
    a = cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Elements, 1, 0},
                   {a, cx.b.broadcast(idx, cx.b.shape_const({B, m, m}), {0, 1})});
    ValueId swapped = cx.b.compare(
        CK::Ne, p, cx.b.broadcast(cx.b.scalar_int(ir::DType::I64, k), cx.b.shape_const({B}), {}));
    sign = cx.b.select(swapped, cx.b.unary(ir::UnaryKind::Neg, sign), sign);
    if (k + 1 == m) break;
    ValueId pivot = slice(cx, a, {0, k, k}, {B, 1, 1}, {1, 1, 1});
    ValueId rowk =
        cx.b.broadcast(slice(cx, a, {0, k, 0}, {B, 1, m}, {1, 1, 1}), cx.b.shape_const({B, m, m}), {0, 1, 2});
    ValueId colk = slice(cx, a, {0, 0, k}, {B, m, 1}, {1, 1, 1});
    ValueId f = cx.b.binary(BK::Div, colk, cx.b.broadcast(pivot, cx.b.shape_const({B, m, 1}), {0, 1, 2}));
    ValueId upd = cx.b.binary(
        BK::Sub, a, cx.b.binary(BK::Mul, cx.b.broadcast(f, cx.b.shape_const({B, m, m}), {0, 1, 2}), rowk));
    ValueId nonzero = cx.b.compare(
        CK::Ne, pivot, cx.b.broadcast(cx.b.scalar_float(kF, 0.0), cx.b.shape_const({B, 1, 1}), {}));
    ValueId kk3 = cx.b.broadcast(cx.b.scalar_int(ir::DType::I64, k), cx.b.shape_const({B, m, m}), {});
    ValueId mask = cx.b.binary(BK::And, cx.b.compare(CK::Gt, rows3, kk3),
                               cx.b.broadcast(nonzero, cx.b.shape_const({B, m, m}), {0, 1, 2}));
    a = cx.b.select(mask, upd, a);
  }
  ValueId det;
  if (m == 0) {
    det = scalar_full(1.0, {B});
  } else {
    ValueId diag = slice(cx, reshape_to(cx, a, {B, m * m}), {0, 0}, {B, m}, {1, m + 1});
    det = cx.b.binary(BK::Mul, cx.b.reduce(ir::ReduceKind::Prod, diag, {1}), sign);
  }
  det = reshape_to(cx, det, batch);
  cx.set_output(n, 0, t.dtype == kF ? det : cx.b.cast(det, t.dtype));
  return cx.error();
}

}  // namespace

void register_einsum(Registry& r) { r.add_since({{"Einsum", 12, lower_einsum}, {"Det", 11, lower_det}}); }

}  // namespace plumb::lower
