// Lowering rules for StringConcat, StringNormalizer, StringSplit, RegexFullMatch, TfIdfVectorizer.
// The string work is the core `string` op (spec/ops/string.md: UTF-8, no host locale); stop-word
// removal is compare + nonzero + gather; TfIdfVectorizer counts n-grams with static slices and
// compares against its (attribute) pool.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::DType;
using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using CK = ir::CompareKind;

namespace {

ValueId string_op(LowerCtx& cx, ir::StringKind kind, std::vector<ValueId> operands,
                  const std::string& pattern = "", int64_t maxsplit = -1, int num_outputs = 1) {
  auto r = cx.b.emit(ir::StringAttrs{kind, pattern, maxsplit}, std::move(operands), {}, num_outputs);
  return r.empty() ? ir::kNoValue : r[0];
}

ValueId string_const(LowerCtx& cx, const std::vector<std::string>& strs, std::vector<int64_t> dims) {
  return cx.constant_value(onnx::Tensor::from_strings("", std::move(dims), strs));
}

// StringConcat-20: Y = X ++ Y elementwise, numpy broadcasting.
Status lower_string_concat(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId y, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> xy, broadcast_all(cx, {x, y}));
  cx.set_output(n, 0, string_op(cx, ir::StringKind::Concat, {xy[0], xy[1]}));
  return cx.error();
}

// RegexFullMatch-20: RE2 full match of `pattern` on every element.
Status lower_regex_full_match(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(std::string pattern, n.attr_string("pattern", ""));
  cx.set_output(n, 0, string_op(cx, ir::StringKind::RegexFullMatch, {x}, pattern));
  return cx.error();
}

// StringSplit-20: delimiter unset or "" = runs of whitespace; maxsplit unset (or negative, as in
// Python) = no limit. Y: X.shape ++ [max parts] padded with ""; Z: the part counts.
Status lower_string_split(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(std::string delimiter, n.attr_string("delimiter", ""));
  PLUMB_ASSIGN_OR_RETURN(int64_t maxsplit, n.attr_int("maxsplit", -1));
  if (maxsplit < 0) maxsplit = -1;
  auto r = cx.b.emit(ir::StringAttrs{ir::StringKind::Split, delimiter, maxsplit}, {x}, {}, 2);
  if (r.size() < 2) return cx.error();
  cx.set_output(n, 0, r[0]);
  cx.set_output(n, 1, r[1]);
  return cx.error();
}

// StringNormalizer-10 on X of shape [C] or [1, C]: drop the elements equal to a stop word (compared
// through the core `lower` case map when is_case_sensitive = 0), then change case. When nothing is
// left the result is [""] (shape [1], or [1, 1] for a [1, C] input). `locale` is not consulted:
// the core case map is plumb's fixed, locale-free ruling (spec/ops/string.md). The ONNX reference
// additionally strips accents (NFKD) and drops empty strings; the ONNX text says neither, and
// plumb does neither.
Status lower_string_normalizer(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(std::string action, n.attr_string("case_change_action", "NONE"));
  PLUMB_ASSIGN_OR_RETURN(int64_t case_sensitive, n.attr_int("is_case_sensitive", 0));
  std::vector<std::string> stopwords;
  if (const auto* a = n.attr("stopwords")) stopwords = a->strings;
  std::optional<ir::StringKind> kind;  // none: NONE
  if (action == "LOWER")
    kind = ir::StringKind::Lower;
  else if (action == "UPPER")
    kind = ir::StringKind::Upper;
  else if (action != "NONE")
    return cx.invalid("StringNormalizer case_change_action '" + action + "' is not LOWER, UPPER or NONE");
  const ir::Type xt = cx.type(x);
  if (xt.dtype != DType::String) return cx.invalid("StringNormalizer input is not a string tensor");
  const int64_t r = xt.rank();
  if (r != 1 && !(r == 2 && xt.shape[0].is_static() && xt.shape[0].size == 1))
    return cx.invalid("StringNormalizer input must have shape [C] or [1, C]");
  if (stopwords.empty()) {
    cx.set_output(n, 0, !kind ? x : string_op(cx, *kind, {x}));
    return cx.error();
  }
  // Flatten to [C] (static or read from the shape).
  ValueId flat = x;
  if (r == 2) flat = cx.b.reshape(x, static_slice(cx, shape_value(cx, x), {1}, {1}));
  const int64_t s = static_cast<int64_t>(stopwords.size());
  ValueId stops = string_const(cx, stopwords, {1, s});
  ValueId cmp = flat;
  if (case_sensitive == 0) {
    cmp = string_op(cx, ir::StringKind::Lower, {flat});
    stops = string_op(cx, ir::StringKind::Lower, {stops});
  }
  // [C, 1] vs [1, S] -> [C, S]; keep[i] = no stop word equals element i.
  ValueId c_len = static_slice(cx, shape_value(cx, flat), {0}, {1});
  ValueId cs_shape = cx.b.concat({c_len, cx.b.shape_const({s})}, 0);
  ValueId col = cx.b.broadcast(cmp, cs_shape, {0});
  ValueId row = cx.b.broadcast(cx.b.reshape(stops, cx.b.shape_const({s})), cs_shape, {1});
  ValueId hits = cx.b.reduce(ir::ReduceKind::Sum, cx.b.cast(cx.b.compare(CK::Eq, col, row), DType::I64), {1});
  ValueId keep = cx.b.compare(CK::Eq, hits, splat(cx, 0, hits));
  // Append a "" sentinel kept only when nothing else is.
  ValueId kept = cx.b.reduce(ir::ReduceKind::Sum, cx.b.cast(keep, DType::I64), {0});
  ValueId none =
      cx.b.reshape(cx.b.compare(CK::Eq, kept, cx.b.scalar_int(DType::I64, 0)), cx.b.shape_const({1}));
  ValueId cand = cx.b.concat({flat, string_const(cx, {""}, {1})}, 0);
  ValueId mask = cx.b.concat({keep, none}, 0);
  ValueId nz = cx.b.emit1(ir::NonZeroAttrs{}, {mask});  // [1, K]
  ValueId pos = cx.b.reshape(nz, static_slice(cx, cx.b.shape_of(nz), {1}, {1}));
  ValueId y = cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Axis, 0, 0}, {cand, pos});
  if (kind) y = string_op(cx, *kind, {y});
  if (r == 2) y = cx.b.reshape(y, cx.b.concat({cx.b.shape_const({1}), cx.b.shape_of(y)}, 0));
  cx.set_output(n, 0, y);
  return cx.error();
}

// TfIdfVectorizer-9 (the ONNX reference's counting, restated): for each pool n-gram of length n in
// [min_gram_length, max_gram_length], count its occurrences in each row of X: n = 1 counts every
// position once; n >= 2 counts, for every skip distance d in 1..max_skip_count+1, the positions i
// with X[i + k*d] == gram[k] for k < n. The count goes to output column ngram_indexes[pool index]
// (several pool n-grams on one column add up). TF = count, IDF = count > 0 ? weight : 0,
// TFIDF = count * weight, where `weights` is parallel to the pool as ONNX's text says ("the i-th
// element in weights is the weight of the i-th n-gram in pool") and onnxruntime computes: column
// ngram_indexes[i] gets weights[i] (1 when `weights` is absent; a column no pool n-gram maps to
// counts 0, its weight does not matter; of several on one column the last one's).
Status lower_tfidf_vectorizer(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(int64_t max_gram, n.attr_int("max_gram_length", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t min_gram, n.attr_int("min_gram_length", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t max_skip, n.attr_int("max_skip_count", 0));
  PLUMB_ASSIGN_OR_RETURN(std::string mode, n.attr_string("mode", ""));
  PLUMB_ASSIGN_OR_RETURN(std::vector<int64_t> ngram_counts, n.attr_ints("ngram_counts", {}));
  PLUMB_ASSIGN_OR_RETURN(std::vector<int64_t> ngram_indexes, n.attr_ints("ngram_indexes", {}));
  PLUMB_ASSIGN_OR_RETURN(std::vector<float> weights, n.attr_floats("weights", {}));
  PLUMB_ASSIGN_OR_RETURN(std::vector<int64_t> pool_ints, n.attr_ints("pool_int64s", {}));
  std::vector<std::string> pool_strs;
  if (const auto* a = n.attr("pool_strings")) pool_strs = a->strings;
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    return cx.invalid("TfIdfVectorizer mode '" + mode + "' is not TF, IDF or TFIDF");
  if (min_gram < 1 || max_gram < min_gram || max_skip < 0)
    return cx.invalid(
        "TfIdfVectorizer needs 1 <= min_gram_length <= max_gram_length and max_skip_count >= 0");
  const bool strs = !pool_strs.empty();
  if (strs == !pool_ints.empty())
    return cx.invalid("TfIdfVectorizer needs exactly one of pool_strings, pool_int64s");
  const int64_t total =
      strs ? static_cast<int64_t>(pool_strs.size()) : static_cast<int64_t>(pool_ints.size());
  if (ngram_indexes.empty()) return cx.invalid("TfIdfVectorizer ngram_indexes is empty");
  const int64_t out_size = *std::max_element(ngram_indexes.begin(), ngram_indexes.end()) + 1;
  for (int64_t v : ngram_indexes)
    if (v < 0) return cx.invalid("TfIdfVectorizer ngram_indexes has a negative entry");
  if (!weights.empty() && weights.size() < ngram_indexes.size())
    return cx.invalid("TfIdfVectorizer has fewer weights than ngram_indexes");

  const ir::Type xt = cx.type(x);
  if (!is_static(xt) || xt.rank() > 2)
    return cx.unsupported("TfIdfVectorizer input of symbolic shape or rank > 2");
  if (strs != (xt.dtype == DType::String))
    return cx.invalid("TfIdfVectorizer pool kind does not match the input dtype");
  if (!strs && xt.dtype != DType::I64 && xt.dtype != DType::I32)
    return cx.invalid("TfIdfVectorizer input must be string, int32 or int64");
  const std::vector<int64_t> dims = static_dims(xt);
  const int64_t rows = xt.rank() == 2 ? dims[0] : 1;
  const int64_t c = xt.rank() == 0 ? 1 : dims.back();
  ValueId x2 = cx.b.reshape(x, cx.b.shape_const({rows, c}));
  if (!strs && xt.dtype != DType::I64) x2 = cx.b.cast(x2, DType::I64);

  // Per n: the pool slice [start, end) holding its n-grams (ngram_counts[n-1] is the start).
  std::vector<ValueId> counts;   // [rows, P_n] i64 each
  std::vector<int64_t> columns;  // output column per counted pool n-gram
  for (size_t i = 0; i < ngram_counts.size(); ++i) {
    const int64_t gram = static_cast<int64_t>(i) + 1;
    const int64_t start = ngram_counts[i];
    const int64_t end = i + 1 < ngram_counts.size() ? ngram_counts[i + 1] : total;
    if (start < 0 || end > total || end < start)
      return cx.invalid("TfIdfVectorizer ngram_counts out of range");
    if (gram < min_gram || gram > max_gram || end == start) continue;
    if ((end - start) % gram != 0)
      return cx.invalid("TfIdfVectorizer pool size is not a multiple of the n-gram length");
    const int64_t p = (end - start) / gram;
    // The ngram id of an item counts n-grams, not items: ids of earlier blocks come first.
    int64_t id0 = 0;
    for (size_t j = 0; j < i; ++j) {
      const int64_t s0 = ngram_counts[j];
      const int64_t e0 = j + 1 < ngram_counts.size() ? ngram_counts[j + 1] : total;
      id0 += (e0 - s0) / static_cast<int64_t>(j + 1);
    }
    for (int64_t k = 0; k < p; ++k) {
      if (id0 + k >= static_cast<int64_t>(ngram_indexes.size()))
        return cx.invalid("TfIdfVectorizer ngram_indexes is shorter than the pool");
      columns.push_back(ngram_indexes[id0 + k]);
    }
    ValueId sum = cx.b.const_ints(DType::I64, {rows, p}, std::vector<int64_t>(rows * p, 0));
    const int64_t dmax = gram == 1 ? 1 : max_skip + 1;
    for (int64_t d = 1; d <= dmax; ++d) {
      const int64_t len = c - (gram - 1) * d;
      if (len <= 0) break;
      ValueId all = ir::kNoValue;
      const ValueId lp = cx.b.shape_const({rows, len, p});
      for (int64_t k = 0; k < gram; ++k) {
        ValueId xk = static_slice(cx, x2, {0, k * d}, {rows, len});
        ValueId pool_k;
        if (strs) {
          std::vector<std::string> col;
          for (int64_t q = 0; q < p; ++q) col.push_back(pool_strs[start + q * gram + k]);
          pool_k = string_const(cx, col, {p});
        } else {
          std::vector<int64_t> col;
          for (int64_t q = 0; q < p; ++q) col.push_back(pool_ints[start + q * gram + k]);
          pool_k = cx.b.const_ints(DType::I64, {p}, col);
        }
        ValueId eq = cx.b.compare(CK::Eq, cx.b.broadcast(xk, lp, {0, 1}), cx.b.broadcast(pool_k, lp, {2}));
        all = k == 0 ? eq : cx.b.binary(BK::And, all, eq);
      }
      sum = cx.b.binary(BK::Add, sum, cx.b.reduce(ir::ReduceKind::Sum, cx.b.cast(all, DType::I64), {1}));
    }
    counts.push_back(sum);
  }
  ValueId freq = cx.b.const_ints(DType::I64, {rows, out_size}, std::vector<int64_t>(rows * out_size, 0));
  if (!counts.empty()) {
    const int64_t np = static_cast<int64_t>(columns.size());
    ValueId all_counts = counts.size() == 1 ? counts[0] : cx.b.concat(counts, 1);
    ValueId idx =
        cx.b.broadcast(cx.b.const_ints(DType::I64, {np}, columns), cx.b.shape_const({rows, np}), {1});
    freq = cx.b.emit1(ir::ScatterAttrs{ir::GatherKind::Elements, 1, ir::ScatterReduction::Add},
                      {freq, idx, all_counts});
  }
  ValueId tf = cx.b.cast(freq, DType::F32);
  ValueId y = tf;
  const ValueId shape = cx.b.shape_const({rows, out_size});
  ValueId w = ir::kNoValue;
  if (!weights.empty()) {
    std::vector<double> wd(static_cast<size_t>(out_size), 1.0);
    for (size_t i = 0; i < ngram_indexes.size(); ++i) wd[static_cast<size_t>(ngram_indexes[i])] = weights[i];
    w = cx.b.broadcast(cx.b.const_floats(DType::F32, {out_size}, wd), shape, {1});
  }
  if (mode == "IDF") {
    ValueId present = cx.b.compare(CK::Gt, freq, splat(cx, 0, freq));
    y = cx.b.select(present, weights.empty() ? splat(cx, 1, tf) : w, splat(cx, 0, tf));
  } else if (mode == "TFIDF" && !weights.empty()) {
    y = cx.b.binary(BK::Mul, tf, w);
  }
  if (xt.rank() < 2) y = cx.b.reshape(y, cx.b.shape_const({out_size}));
  cx.set_output(n, 0, y);
  return cx.error();
}

}  // namespace

void register_strings(Registry& r) {
  // A table: its rows packed, several to a line.
  // clang-format off
  r.add_since({
      {"StringConcat", 20, lower_string_concat}, {"StringNormalizer", 10, lower_string_normalizer},
      {"StringSplit", 20, lower_string_split}, {"RegexFullMatch", 20, lower_regex_full_match},
      {"TfIdfVectorizer", 9, lower_tfidf_vectorizer}});
  // clang-format on
}

}  // namespace plumb::lower
