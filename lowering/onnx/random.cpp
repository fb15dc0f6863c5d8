// Lowering rules for RandomUniform(Like), RandomNormal(Like), Bernoulli, Multinomial and Dropout
// (its training mode) onto the counter-based core `rng` (spec/ops/rng.md): the numbers are a pure
// function of (seed, stream, element position), so a model gives the same numbers on every run
// and every backend.
//
// plumb's choices (ONNX leaves the generator to the implementation):
// - seed: the ONNX `seed` attribute is a float; its 32 IEEE-754 bits are the rng seed (so 0.5 and
//   1.0 differ). Without a seed the rng seed is 2^32, a value no float seed maps to: an unseeded
//   model is still reproducible run to run (plumb has no hidden entropy), just not equal to any
//   seeded one.
// - stream: the 64-bit FNV-1a hash of the node's first output name (ONNX output names are unique
//   in a graph), so two random nodes with equal seeds draw different numbers.
// - u = 32 random bits * 2^-32 (f32/f16/bf16 and Bernoulli/Multinomial) or 53 bits from two words
//   * 2^-53 (f64) is uniform on [0, 1). Uniform: low + (high - low) * u in f64, rounded to the
//   result dtype (nearest even); a value that rounds up to `high` becomes the largest value of the
//   dtype below `high`, so every result is in [low, high).
//   Normal: Box-Muller, mean + scale * sqrt(-2 ln(1 - u1)) * cos(2 pi u2) from two words per
//   element, in f64, rounded once. Bernoulli: u < p. Multinomial: inverse CDF of softmax(x) per
//   row (the first class whose running sum of exp(x - max) exceeds u * total).
// - Dropout's `seed` is an int: its 64 bits are the rng seed (unseeded: 2^32 as above). It keeps
//   an element when u >= ratio (32-bit u, so P(keep) = 1 - ratio up to 2^-32).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::DType;
using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using UK = ir::UnaryKind;
using CK = ir::CompareKind;

namespace {

constexpr DType kF64 = DType::F64;
constexpr int64_t kUnseeded = int64_t{1} << 32;

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

struct Key {
  int64_t seed, stream;
};

// `int_seed`: the seed attribute is an int (Dropout), not a float.
Expected<Key> rng_key(const OnnxNode& n, bool int_seed = false) {
  Key k{kUnseeded, static_cast<int64_t>(fnv1a(n.outputs.empty() ? n.name : n.outputs[0]))};
  if (n.has_attr("seed") && int_seed) {
    PLUMB_ASSIGN_OR_RETURN(k.seed, n.attr_int("seed", 0));
  } else if (n.has_attr("seed")) {
    PLUMB_ASSIGN_OR_RETURN(float s, n.attr_float("seed", 0.0f));
    uint32_t bits;
    std::memcpy(&bits, &s, sizeof bits);
    k.seed = bits;
  }
  return k;
}

// u32 random bits of shape `shape` (i64[r]).
ValueId bits(LowerCtx& cx, ValueId shape, const Key& k) {
  return cx.b.emit1(ir::RngAttrs{ir::RngAlgorithm::Philox4x32x10, k.seed, k.stream}, {shape});
}

// `shape` followed by one more dim of size `w`.
ValueId with_last(LowerCtx& cx, ValueId shape, int64_t w) {
  return cx.b.concat({shape, cx.b.shape_const({w})}, 0);
}

// Word j of the trailing dim of `v` [.., w], as [..].
ValueId word(LowerCtx& cx, ValueId v, int64_t j) {
  const int64_t r = rank_of(cx, v);
  ValueId g =
      cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Axis, r - 1, 0}, {v, cx.b.scalar_int(DType::I64, j)});
  return g;
}

// f64 uniform on [0, 1) of shape `shape` (rank r): 32 bits, or 53 bits from two words (`wide`).
ValueId uniform01(LowerCtx& cx, ValueId shape, const Key& k, bool wide) {
  if (!wide) {
    ValueId u = cx.b.cast(bits(cx, shape, k), kF64);
    return cx.b.binary(BK::Mul, u, splat(cx, 0x1p-32, u));
  }
  ValueId w = bits(cx, with_last(cx, shape, 2), k);
  ValueId hi = cx.b.cast(word(cx, w, 0), kF64), lo = cx.b.cast(word(cx, w, 1), kF64);
  // (hi >> 5) * 2^26 + (lo >> 6), times 2^-53: floor() does the shifts exactly in f64.
  ValueId h = cx.b.unary(UK::Floor, cx.b.binary(BK::Mul, hi, splat(cx, 0x1p-5, hi)));
  ValueId l = cx.b.unary(UK::Floor, cx.b.binary(BK::Mul, lo, splat(cx, 0x1p-6, lo)));
  ValueId m = cx.b.binary(BK::Add, cx.b.binary(BK::Mul, h, splat(cx, 0x1p26, h)), l);
  return cx.b.binary(BK::Mul, m, splat(cx, 0x1p-53, m));
}

// The result dtype from the `dtype` attribute (an ONNX TensorProto code), else `dflt`.
Expected<DType> dtype_attr(LowerCtx& cx, const OnnxNode& n, DType dflt) {
  if (!n.has_attr("dtype")) return dflt;
  PLUMB_ASSIGN_OR_RETURN(int64_t code, n.attr_int("dtype", 1));
  auto dt = ir::dtype_from_onnx_code(static_cast<int>(code));
  if (!dt) return cx.invalid(n.op_type + ": dtype " + std::to_string(code) + " is not a known ONNX type");
  return *dt;
}

// The result shape: the `shape` attribute, or the shape of input 0 (the *Like ops).
Expected<ValueId> result_shape(LowerCtx& cx, const OnnxNode& n, bool like) {
  if (like) {
    PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
    return shape_value(cx, x);
  }
  if (!n.has_attr("shape")) return cx.invalid(n.op_type + ": attribute 'shape' is required");
  PLUMB_ASSIGN_OR_RETURN(std::vector<int64_t> dims, n.attr_ints("shape", {}));
  for (int64_t d : dims)
    if (d < 0) return cx.invalid(n.op_type + ": shape has a negative dim " + std::to_string(d));
  return cx.b.shape_const(dims);
}

// The largest value of h's dtype below h (a rank-0 float constant whose value is `high`): the bit
// pattern one step toward -inf.
ValueId just_below(LowerCtx& cx, ValueId h, double high) {
  const DType dt = cx.type(h).dtype;
  const int bits_n = ir::dtype_bits(dt);
  const DType ut = bits_n == 64   ? DType::U64
                   : bits_n == 32 ? DType::U32
                   : bits_n == 16 ? DType::U16
                                  : DType::U8;
  if (high == 0) {  // -(smallest subnormal): sign bit and 1
    return cx.b.bitcast(cx.b.const_ints(ut, {}, {static_cast<int64_t>((uint64_t{1} << (bits_n - 1)) | 1)}),
                        dt);
  }
  ValueId b = cx.b.bitcast(h, ut);
  return cx.b.bitcast(cx.b.binary(high > 0 ? BK::Sub : BK::Add, b, cx.b.scalar_int(ut, 1)), dt);
}

// The result dtype of RandomUniform/Normal(Like): the `dtype` attribute, else f32 (or, for the
// *Like ops, the input's dtype); one of the four float types the ops define.
Expected<DType> float_result_dtype(LowerCtx& cx, const OnnxNode& n, bool like) {
  DType dflt = DType::F32;
  if (like) {
    PLUMB_ASSIGN_OR_RETURN(const ValueId x, cx.input(n, 0));
    dflt = cx.type(x).dtype;
  }
  PLUMB_ASSIGN_OR_RETURN(DType dt, dtype_attr(cx, n, dflt));
  if (dt != DType::F16 && dt != DType::BF16 && dt != DType::F32 && dt != DType::F64)
    return cx.invalid(n.op_type + ": dtype must be float16, bfloat16, float or double");
  return dt;
}

template <bool kLike>
Status lower_random_uniform(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(Key k, rng_key(n));
  PLUMB_ASSIGN_OR_RETURN(DType dt, float_result_dtype(cx, n, kLike));
  PLUMB_ASSIGN_OR_RETURN(ValueId shape, result_shape(cx, n, kLike));
  PLUMB_ASSIGN_OR_RETURN(float low, n.attr_float("low", 0.0f));
  PLUMB_ASSIGN_OR_RETURN(float high, n.attr_float("high", 1.0f));
  ValueId u = uniform01(cx, shape, k, dt == kF64);
  ValueId y = cx.b.binary(BK::Add, splat(cx, low, u),
                          cx.b.binary(BK::Mul, splat(cx, static_cast<double>(high) - low, u), u));
  if (dt != kF64) y = cx.b.cast(y, dt);
  ValueId h = cx.b.scalar_float(dt, high);
  ValueId top = cx.b.compare(CK::Ge, y, cx.b.broadcast(h, shape_value(cx, y), {}));
  cx.set_output(n, 0, cx.b.select(top, cx.b.broadcast(just_below(cx, h, high), shape_value(cx, y), {}), y));
  return cx.error();
}

template <bool kLike>
Status lower_random_normal(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(Key k, rng_key(n));
  PLUMB_ASSIGN_OR_RETURN(DType dt, float_result_dtype(cx, n, kLike));
  PLUMB_ASSIGN_OR_RETURN(ValueId shape, result_shape(cx, n, kLike));
  PLUMB_ASSIGN_OR_RETURN(float mean, n.attr_float("mean", 0.0f));
  PLUMB_ASSIGN_OR_RETURN(float scale, n.attr_float("scale", 1.0f));
  ValueId w = cx.b.cast(bits(cx, with_last(cx, shape, 2), k), kF64);
  ValueId u1 = word(cx, w, 0), u2 = word(cx, w, 1);
  // u1 in (0, 1]: (bits + 1) * 2^-32, so the log is finite.
  u1 = cx.b.binary(BK::Mul, cx.b.binary(BK::Add, u1, splat(cx, 1.0, u1)), splat(cx, 0x1p-32, u1));
  u2 = cx.b.binary(BK::Mul, u2, splat(cx, 0x1p-32, u2));
  ValueId r = cx.b.unary(UK::Sqrt, cx.b.binary(BK::Mul, splat(cx, -2.0, u1), cx.b.unary(UK::Log, u1)));
  ValueId z =
      cx.b.binary(BK::Mul, r, cx.b.unary(UK::Cos, cx.b.binary(BK::Mul, splat(cx, 2.0 * M_PI, u2), u2)));
  ValueId y = cx.b.binary(BK::Add, splat(cx, mean, z), cx.b.binary(BK::Mul, splat(cx, scale, z), z));
  cx.set_output(n, 0, dt == kF64 ? y : cx.b.cast(y, dt));
  return cx.error();
}

// Bernoulli-15/22: y = u < p ? 1 : 0 in the dtype attribute's type (default: the input's).
Status lower_bernoulli(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId p, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(Key k, rng_key(n));
  PLUMB_ASSIGN_OR_RETURN(DType dt, dtype_attr(cx, n, cx.type(p).dtype));
  if (!ir::is_float(cx.type(p).dtype)) return cx.invalid("Bernoulli input must be a floating tensor");
  ValueId pf = cx.type(p).dtype == kF64 ? p : cx.b.cast(p, kF64);
  ValueId u = uniform01(cx, shape_value(cx, p), k, false);
  ValueId hit = cx.b.compare(CK::Lt, u, pf);
  cx.set_output(n, 0, dt == DType::Bool ? hit : cx.b.cast(hit, dt));
  return cx.error();
}

// Multinomial-7/22: x [B, C] unnormalized log-probabilities; y [B, sample_size] class indices.
Status lower_multinomial(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(Key k, rng_key(n));
  PLUMB_ASSIGN_OR_RETURN(int64_t samples, n.attr_int("sample_size", 1));
  PLUMB_ASSIGN_OR_RETURN(DType dt, dtype_attr(cx, n, DType::I32));
  if (dt != DType::I32 && dt != DType::I64) return cx.invalid("Multinomial: dtype must be int32 or int64");
  if (samples < 0) return cx.invalid("Multinomial: sample_size must be >= 0");
  const ir::Type xt = cx.type(x);
  if (xt.rank() != 2 || !ir::is_float(xt.dtype))
    return cx.invalid("Multinomial input must be a float [batch, classes]");
  const ir::Dim classes = xt.shape[1];
  if (!classes.is_static()) return cx.unsupported("Multinomial with a symbolic class count");
  const int64_t c = classes.size;
  ValueId xf = xt.dtype == kF64 ? x : cx.b.cast(x, kF64);
  ValueId xs = shape_value(cx, xf);
  ValueId mx = cx.b.broadcast(cx.b.reduce(ir::ReduceKind::Max, xf, {1}), xs, {0});
  ValueId e = cx.b.unary(UK::Exp, cx.b.binary(BK::Sub, xf, mx));
  ValueId cdf = cx.b.emit1(ir::ScanAttrs{ir::ReduceKind::Sum, 1, false, false}, {e});
  ValueId total = cx.b.reduce(ir::ReduceKind::Sum, e, {1});  // [B]
  // [B, S] shape from x's batch dim.
  ValueId batch =
      cx.b.emit1(ir::SliceAttrs{}, {xs, cx.b.shape_const({0}), cx.b.shape_const({1}), cx.b.shape_const({1})});
  ValueId bs = cx.b.concat({batch, cx.b.shape_const({samples})}, 0);
  ValueId u = uniform01(cx, bs, k, false);
  ValueId target = cx.b.binary(BK::Mul, u, cx.b.broadcast(total, bs, {0}));
  // index = #{c : cdf[b, c] <= target[b, s]}, at most C - 1.
  ValueId bsc = cx.b.concat({bs, cx.b.shape_const({c})}, 0);
  ValueId le = cx.b.compare(CK::Le, cx.b.broadcast(cdf, bsc, {0, 2}), cx.b.broadcast(target, bsc, {0, 1}));
  ValueId idx = cx.b.reduce(ir::ReduceKind::Sum, cx.b.cast(le, DType::I64), {2});
  idx = cx.b.binary(BK::Min, idx, splat(cx, static_cast<double>(c > 0 ? c - 1 : 0), idx));
  cx.set_output(n, 0, dt == DType::I64 ? idx : cx.b.cast(idx, dt));
  return cx.error();
}

// Dropout-1..22. Inference (every opset below 12, training_mode absent or false, or a ratio of 0)
// is the identity with an all-true mask. Training (opset 12+) needs training_mode and ratio known
// when lowering (constants or specialized inputs) and gives the operator's formula
// `x * mask * (1 / (1 - ratio))` in f64, rounded once to T: a dropped NaN or inf is NaN (x * 0),
// as the formula has it. Ratio 1 drops everything and multiplies by 0, not by an infinite scale.
Status lower_dropout(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  bool training = false;
  double ratio = 0.5;
  if (cx.opset() >= 12) {
    // A constant ratio of 0 makes Dropout the identity (mask all true) whatever training_mode is.
    bool zero_ratio = false;
    if (cx.has_input(n, 1)) {
      auto rv = cx.const_floats(n, 1);
      zero_ratio = rv && rv->size() == 1 && (*rv)[0] == 0;
    }
    if (!zero_ratio && cx.has_input(n, 2)) {
      auto t = cx.const_ints(n, 2);
      if (!t || t->size() != 1) return cx.unsupported("Dropout with a computed training_mode");
      training = (*t)[0] != 0;
    }
    if (training && cx.has_input(n, 1)) {
      auto rv = cx.const_floats(n, 1);
      if (!rv || rv->size() != 1) return cx.unsupported("Dropout training with a computed ratio");
      ratio = (*rv)[0];
    }
  } else if (cx.opset() < 7) {
    PLUMB_ASSIGN_OR_RETURN(int64_t is_test, n.attr_int("is_test", 0));
    (void)is_test;  // Dropout-1/6 outside is_test would be random; plumb lowers for inference.
  }
  if (!training) {
    cx.set_output(n, 0, x);
    if (cx.wants_output(n, 1)) {
      ValueId one = cx.opset() >= 10 ? cx.b.scalar_int(DType::Bool, 1) : scalar_like(cx, 1.0, x);
      cx.set_output(n, 1, rank_of(cx, x) == 0 ? one : cx.b.broadcast(one, shape_value(cx, x), {}));
    }
    return cx.error();
  }
  if (!(ratio >= 0 && ratio <= 1))
    return cx.invalid("Dropout: ratio must be in [0, 1], got " + std::to_string(ratio));
  const DType dt = cx.type(x).dtype;
  if (!ir::is_float(dt)) return cx.invalid("Dropout input must be a floating tensor");
  PLUMB_ASSIGN_OR_RETURN(Key k, rng_key(n, /*int_seed=*/true));
  ValueId u = uniform01(cx, shape_value(cx, x), k, false);
  ValueId keep = cx.b.compare(CK::Ge, u, splat(cx, ratio, u));
  ValueId xf = dt == kF64 ? x : cx.b.cast(x, kF64);
  ValueId y = cx.b.binary(BK::Mul, xf, cx.b.cast(keep, kF64));
  if (ratio < 1) y = cx.b.binary(BK::Mul, y, splat(cx, 1.0 / (1.0 - ratio), y));
  cx.set_output(n, 0, dt == kF64 ? y : cx.b.cast(y, dt));
  if (cx.wants_output(n, 1)) cx.set_output(n, 1, keep);
  return cx.error();
}

}  // namespace

void register_random(Registry& r) {
  // A table: its rows packed, several to a line.
  // clang-format off
  r.add_since({
      {"RandomUniform", 1, lower_random_uniform<false>}, {"RandomNormal", 1, lower_random_normal<false>},
      {"RandomUniformLike", 1, lower_random_uniform<true>},
      {"RandomNormalLike", 1, lower_random_normal<true>}, {"Bernoulli", 15, lower_bernoulli},
      {"Multinomial", 7, lower_multinomial}, {"Dropout", 1, lower_dropout}});
  // clang-format on
}

}  // namespace plumb::lower
