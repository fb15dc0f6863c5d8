// Reference kernels of unary, binary, compare and select: spec/ops/{unary,binary,compare,select}.md
// and spec/numerics.md. Integers wrap (arithmetic done in uint64_t, then wrapped to the dtype's
// width); narrow floats are computed in f32 and rounded once to their dtype.
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "runtime/cpu/ref/dispatch.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cpu/ref/loops.h"
#include "runtime/cpu/ref/nan_choice.h"
#include "runtime/cpu/ref/parallel.h"
#include "runtime/cpu/ref/round_wrap.h"
#include "runtime/cpu/ref/simd.h"

namespace plumb::rt::ref {

namespace {

using ir::DType;

// The arithmetic type of a float storage type: f32 for the narrow ones (spec/numerics.md).
template <typename T>
using ComputeOf = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
ComputeOf<T> load(T x) {
  if constexpr (is_narrow_float_v<T>)
    return static_cast<float>(to_f64(x));  // exact: every narrow format fits in f32
  else
    return x;
}

// Round once to T (round_wrap.h); wider floats convert directly.
template <typename T, typename C>
T store(C v) {
  if constexpr (is_narrow_float_v<T>)
    return round_to<T>(static_cast<double>(v));
  else
    return static_cast<T>(v);
}

Tensor& result_tensor(KernelCtx& cx, DType dt, const std::vector<int64_t>& shape) {
  RtValue* out = cx.outputs[0];
  if (!out->is_tensor() || out->tensor().data == nullptr) *out = Tensor::allocate(dt, shape);
  return out->tensor();
}

Status check_result(const Tensor& result, DType dt, const std::vector<int64_t>& shape, const char* op) {
  if (result.dtype != dt || result.shape != shape)
    return internal_error(strfmt("ref: %s result buffer does not match the operands", op));
  return Status::ok();
}

// Round half to even (spec/ops/unary.md round), independent of the FP environment.
template <typename C>
C round_half_even(C x) {
  const C r = std::round(x);  // half away from zero
  if (std::fabs(x - std::trunc(x)) == C(0.5)) return C(2) * std::round(x / C(2));
  return r;
}

// ---- unary -----------------------------------------------------------------------------------

template <typename C>
C unary_float(ir::UnaryKind kind, C x) {
  switch (kind) {
    case ir::UnaryKind::Neg: return -x;
    case ir::UnaryKind::Abs: return std::fabs(x);
    case ir::UnaryKind::Sign: return std::isnan(x) ? x : (x > 0 ? C(1) : (x < 0 ? C(-1) : C(0)));
    case ir::UnaryKind::Floor: return std::floor(x);
    case ir::UnaryKind::Ceil: return std::ceil(x);
    case ir::UnaryKind::Round: return round_half_even(x);
    case ir::UnaryKind::Sqrt: return std::sqrt(x);
    case ir::UnaryKind::Exp: return std::exp(x);
    case ir::UnaryKind::Log: return std::log(x);
    case ir::UnaryKind::Sin: return std::sin(x);
    case ir::UnaryKind::Cos: return std::cos(x);
    case ir::UnaryKind::Tan: return std::tan(x);
    case ir::UnaryKind::Asin: return std::asin(x);
    case ir::UnaryKind::Acos: return std::acos(x);
    case ir::UnaryKind::Atan: return std::atan(x);
    case ir::UnaryKind::Sinh: return std::sinh(x);
    case ir::UnaryKind::Cosh: return std::cosh(x);
    case ir::UnaryKind::Tanh: return std::tanh(x);
    case ir::UnaryKind::Asinh: return std::asinh(x);
    case ir::UnaryKind::Acosh: return std::acosh(x);
    case ir::UnaryKind::Atanh: return std::atanh(x);
    case ir::UnaryKind::Erf: return std::erf(x);
    case ir::UnaryKind::Not: break;  // integer and bool only (unary.C2)
  }
  return x;
}

// Elementwise results on up to `threads` threads (parallel.h), body(begin, end) per range: a
// range is worth a thread from 64K elements on.
template <typename Body>
void for_ranges(int threads, int64_t n, Body body) {
  parallel_for(threads, n, int64_t{1} << 16, body);
}

// unary_float over f32 or f64 tensors: the kinds that are single IEEE operations (or selects)
// as vectorized loops (simd::map, the same operation per lane), the others (libm) per element.
template <typename C>
void unary_same_type(ir::UnaryKind kind, const C* x, C* y, int64_t n, int threads) {
  for_ranges(threads, n, [&](int64_t b, int64_t e) {
    const C* xs = x + b;
    C* ys = y + b;
    switch (kind) {
      case ir::UnaryKind::Neg: return simd::map(xs, ys, e - b, [](C v) { return -v; });
      case ir::UnaryKind::Abs: return simd::map(xs, ys, e - b, [](C v) { return std::fabs(v); });
      case ir::UnaryKind::Floor: return simd::map(xs, ys, e - b, [](C v) { return std::floor(v); });
      case ir::UnaryKind::Ceil: return simd::map(xs, ys, e - b, [](C v) { return std::ceil(v); });
      case ir::UnaryKind::Sqrt: return simd::map(xs, ys, e - b, [](C v) { return std::sqrt(v); });
      case ir::UnaryKind::Sign:  // a NaN stays itself (v != v), else 1, -1 or +0
        return simd::map(xs, ys, e - b,
                         [](C v) { return v != v ? v : (v > 0 ? C(1) : (v < 0 ? C(-1) : C(0))); });
      default:
        for (int64_t i = 0; i < e - b; ++i) ys[i] = unary_float(kind, xs[i]);
    }
  });
}

template <typename T>
T unary_int(ir::UnaryKind kind, T x, int bits) {
  const uint64_t u = static_cast<uint64_t>(x);
  switch (kind) {
    case ir::UnaryKind::Neg: return wrap_bits<T>(uint64_t{0} - u, bits);
    case ir::UnaryKind::Abs: return x < 0 ? wrap_bits<T>(uint64_t{0} - u, bits) : x;
    case ir::UnaryKind::Sign: return static_cast<T>((x > 0) - (x < 0));
    case ir::UnaryKind::Not: return wrap_bits<T>(~u, bits);
    default: break;  // floating kinds (unary.C2)
  }
  return x;
}

}  // namespace

// spec/ops/unary.md: result[i] = f(operand[i])
Status unary_kernel(KernelCtx& cx, Loops loops) {
  const Tensor& operand = cx.inputs[0]->tensor();
  const auto kind = ir::attrs<ir::Op::Unary>(cx.node).kind;
  Tensor& result = result_tensor(cx, operand.dtype, operand.shape);
  PLUMB_RETURN_IF_ERROR(check_result(result, operand.dtype, operand.shape, "unary"));
  const int64_t n = operand.numel();
  const int bits = ir::dtype_bits(operand.dtype);
  return visit_dtype(operand.dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    const T* x = operand.as<T>();
    T* y = result.as<T>();
    if constexpr (std::is_same_v<T, bool>) {
      for (int64_t i = 0; i < n; ++i) y[i] = !x[i];  // only `not` is defined for bool (unary.C2)
    } else if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < n; ++i) y[i] = unary_int<T>(kind, x[i], bits);
    } else if constexpr (is_float_storage_v<T>) {
#if PLUMB_REF_COMPACT
      // One scalar loop (issue 18), the one below: unary_same_type's vectorized kinds are these
      // same operations.
      (void)loops;
#else
      if constexpr (std::is_floating_point_v<T>) {
        if (loops == Loops::kVectorized) {
          unary_same_type<T>(kind, x, y, n, cx.threads);
          return Status::ok();
        }
      }
#endif
      for (int64_t i = 0; i < n; ++i) y[i] = store<T>(unary_float(kind, load(x[i])));
    } else {
      return internal_error("ref: unary on a string tensor");
    }
    return Status::ok();
  });
}

namespace {

// ---- binary ----------------------------------------------------------------------------------

template <typename C>
C binary_float(ir::BinaryKind kind, C a, C b) {
  switch (kind) {
    case ir::BinaryKind::Add: return a + b;
    case ir::BinaryKind::Sub: return a - b;
    case ir::BinaryKind::Mul: return a * b;
    case ir::BinaryKind::Div: return a / b;
    case ir::BinaryKind::Rem: return std::fmod(a, b);
    case ir::BinaryKind::Pow: return std::pow(a, b);
    case ir::BinaryKind::Max:
      if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
      if (a == b) return std::signbit(a) ? b : a;  // max(-0, +0) = +0
      return a > b ? a : b;
    case ir::BinaryKind::Min:
      if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
      if (a == b) return std::signbit(a) ? a : b;  // min(-0, +0) = -0
      return a < b ? a : b;
    default: break;  // bitwise kinds (binary.C4)
  }
  return a;
}

// binary_float over f32 or f64 tensors, one vectorized loop per kind (simd::map), with the NaN
// of a result whose operands are both NaN pinned to the one binary_float's compiled code returns
// (nan_choice.h), so that the bits do not depend on the operand order the compiler picks for
// these loops: a's for sub and div (a is the first source operand), and for add and mul a's in
// f32 but b's in f64 (GCC inlined the f64 binary_float and commuted those two; tests/ref_bits
// checks all of it against that code).
#if PLUMB_REF_COMPACT
// One lane of binary_same_type's loops, for the compact build's scalar loop.
template <typename C>
C binary_lane(ir::BinaryKind kind, C x, C z) {
  constexpr bool kF64 = std::is_same_v<C, double>;
  switch (kind) {
    case ir::BinaryKind::Add: return first_operand_nan(kF64 ? z : x, x + z);
    case ir::BinaryKind::Sub: return first_operand_nan(x, x - z);
    case ir::BinaryKind::Mul: return first_operand_nan(kF64 ? z : x, x * z);
    case ir::BinaryKind::Div: return first_operand_nan(x, x / z);
    case ir::BinaryKind::Max: return max_of(x, z);
    case ir::BinaryKind::Min: return min_of(x, z);
    default: return binary_float(kind, x, z);
  }
}
#else
template <typename C>
void binary_same_type(ir::BinaryKind kind, const C* a, const C* b, C* y, int64_t n, int threads) {
  constexpr bool kF64 = std::is_same_v<C, double>;
  for_ranges(threads, n, [&](int64_t lo, int64_t hi) {
    const C *as = a + lo, *bs = b + lo;
    C* ys = y + lo;
    const int64_t m = hi - lo;
    switch (kind) {
      case ir::BinaryKind::Add:
        return simd::map(as, bs, ys, m, [](C x, C z) { return first_operand_nan(kF64 ? z : x, x + z); });
      case ir::BinaryKind::Sub:
        return simd::map(as, bs, ys, m, [](C x, C z) { return first_operand_nan(x, x - z); });
      case ir::BinaryKind::Mul:
        return simd::map(as, bs, ys, m, [](C x, C z) { return first_operand_nan(kF64 ? z : x, x * z); });
      case ir::BinaryKind::Div:
        return simd::map(as, bs, ys, m, [](C x, C z) { return first_operand_nan(x, x / z); });
      case ir::BinaryKind::Max: return simd::map(as, bs, ys, m, [](C x, C z) { return max_of(x, z); });
      case ir::BinaryKind::Min: return simd::map(as, bs, ys, m, [](C x, C z) { return min_of(x, z); });
      default:
        for (int64_t i = 0; i < m; ++i) ys[i] = binary_float(kind, as[i], bs[i]);
    }
  });
}
#endif

// Integer pow by repeated squaring, wrapping; the exponent is >= 0.
uint64_t pow_wrap(uint64_t base, uint64_t exp) {
  uint64_t r = 1;
  while (exp != 0) {
    if (exp & 1) r *= base;
    base *= base;
    exp >>= 1;
  }
  return r;
}

template <typename T>
Status binary_int(ir::BinaryKind kind, T a, T b, int bits, T* out) {
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (kind) {
    case ir::BinaryKind::Add: *out = wrap_bits<T>(ua + ub, bits); break;
    case ir::BinaryKind::Sub: *out = wrap_bits<T>(ua - ub, bits); break;
    case ir::BinaryKind::Mul: *out = wrap_bits<T>(ua * ub, bits); break;
    case ir::BinaryKind::Div:
    case ir::BinaryKind::Rem:
      if (b == 0) return runtime_error("binary.R1", "integer division by zero");
      if constexpr (std::is_signed_v<T>) {
        const int64_t sa = a, sb = b;
        if (sb == -1) {  // MIN / -1 wraps to MIN; MIN % -1 is 0 (no C++ overflow)
          *out = kind == ir::BinaryKind::Div ? wrap_bits<T>(uint64_t{0} - ua, bits) : T(0);
        } else {
          *out = wrap_bits<T>(static_cast<uint64_t>(kind == ir::BinaryKind::Div ? sa / sb : sa % sb), bits);
        }
      } else {
        *out = static_cast<T>(kind == ir::BinaryKind::Div ? ua / ub : ua % ub);
      }
      break;
    case ir::BinaryKind::Pow:
      if constexpr (std::is_signed_v<T>) {
        if (b < 0) {
          if (a == 1)
            *out = 1;
          else if (a == -1)
            *out = (b % 2 == 0) ? T(1) : T(-1);
          else
            return runtime_error("binary.R2", strfmt("integer pow with negative exponent %lld and base %lld",
                                                     static_cast<long long>(b), static_cast<long long>(a)));
          break;
        }
      }
      *out = wrap_bits<T>(pow_wrap(ua, ub), bits);
      break;
    case ir::BinaryKind::Max: *out = a > b ? a : b; break;
    case ir::BinaryKind::Min: *out = a < b ? a : b; break;
    case ir::BinaryKind::And: *out = static_cast<T>(ua & ub); break;
    case ir::BinaryKind::Or: *out = static_cast<T>(ua | ub); break;
    case ir::BinaryKind::Xor: *out = static_cast<T>(ua ^ ub); break;
    case ir::BinaryKind::Shl:
      *out = ub >= static_cast<uint64_t>(bits) ? T(0) : wrap_bits<T>(ua << ub, bits);
      break;
    case ir::BinaryKind::Shr:
      *out = ub >= static_cast<uint64_t>(bits) ? T(0) : static_cast<T>(ua >> ub);
      break;
  }
  return Status::ok();
}

}  // namespace

// spec/ops/binary.md: result[i] = lhs[i] <kind> rhs[i]
Status binary_kernel(KernelCtx& cx, Loops loops) {
  const Tensor& lhs = cx.inputs[0]->tensor();
  const Tensor& rhs = cx.inputs[1]->tensor();
  const auto kind = ir::attrs<ir::Op::Binary>(cx.node).kind;
  if (lhs.dtype != rhs.dtype || lhs.shape != rhs.shape)
    return internal_error("ref: binary operands differ in dtype or shape");
  Tensor& result = result_tensor(cx, lhs.dtype, lhs.shape);
  PLUMB_RETURN_IF_ERROR(check_result(result, lhs.dtype, lhs.shape, "binary"));
  const int64_t n = lhs.numel();
  const int bits = ir::dtype_bits(lhs.dtype);
  return visit_dtype(lhs.dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    const T* a = lhs.as<T>();
    const T* b = rhs.as<T>();
    T* y = result.as<T>();
    if constexpr (std::is_same_v<T, bool>) {  // and, or, xor (binary.C4)
      for (int64_t i = 0; i < n; ++i)
        y[i] = kind == ir::BinaryKind::And  ? (a[i] && b[i])
               : kind == ir::BinaryKind::Or ? (a[i] || b[i])
                                            : (a[i] != b[i]);
    } else if constexpr (std::is_integral_v<T>) {
      for (int64_t i = 0; i < n; ++i) PLUMB_RETURN_IF_ERROR(binary_int<T>(kind, a[i], b[i], bits, &y[i]));
    } else if constexpr (is_float_storage_v<T>) {
      if constexpr (std::is_floating_point_v<T>) {
        if (loops == Loops::kVectorized) {
#if PLUMB_REF_COMPACT
          // One scalar loop (issue 18): the lanes of binary_same_type's loops, NaN choice included.
          for (int64_t i = 0; i < n; ++i) y[i] = binary_lane(kind, a[i], b[i]);
#else
          binary_same_type<T>(kind, a, b, y, n, cx.threads);
#endif
          return Status::ok();
        }
      }
      for (int64_t i = 0; i < n; ++i) y[i] = store<T>(binary_float(kind, load(a[i]), load(b[i])));
    } else {
      return internal_error("ref: binary on a string tensor");
    }
    return Status::ok();
  });
}

namespace {

template <typename V>
bool compare_values(ir::CompareKind kind, const V& a, const V& b) {
  switch (kind) {
    case ir::CompareKind::Eq: return a == b;
    case ir::CompareKind::Ne: return !(a == b);  // NaN != NaN is true
    case ir::CompareKind::Lt: return a < b;
    case ir::CompareKind::Le: return a <= b;
    case ir::CompareKind::Gt: return a > b;
    case ir::CompareKind::Ge: return a >= b;
  }
  return false;
}

// compare over arithmetic storage types (floats, integers; bool as its bytes): one vectorized
// loop per kind.
template <typename T>
void compare_same_type(ir::CompareKind kind, const T* a, const T* b, bool* y, int64_t n, int threads) {
  for_ranges(threads, n, [&](int64_t lo, int64_t hi) {
    const T *as = a + lo, *bs = b + lo;
    bool* ys = y + lo;
    const int64_t m = hi - lo;
    switch (kind) {
      case ir::CompareKind::Eq: return simd::map(as, bs, ys, m, [](T x, T z) { return x == z; });
      case ir::CompareKind::Ne: return simd::map(as, bs, ys, m, [](T x, T z) { return !(x == z); });
      case ir::CompareKind::Lt: return simd::map(as, bs, ys, m, [](T x, T z) { return x < z; });
      case ir::CompareKind::Le: return simd::map(as, bs, ys, m, [](T x, T z) { return x <= z; });
      case ir::CompareKind::Gt: return simd::map(as, bs, ys, m, [](T x, T z) { return x > z; });
      case ir::CompareKind::Ge: return simd::map(as, bs, ys, m, [](T x, T z) { return x >= z; });
    }
  });
}

// The unsigned integer as wide as T: select's predicate widened to the lanes of its operands.
template <typename T>
using LaneMask = std::conditional_t<
    sizeof(T) == 8, uint64_t,
    std::conditional_t<sizeof(T) == 4, uint32_t, std::conditional_t<sizeof(T) == 2, uint16_t, uint8_t>>>;

}  // namespace

// spec/ops/compare.md: result[i] = lhs[i] <kind> rhs[i]
Status compare_kernel(KernelCtx& cx, Loops loops) {
  const Tensor& lhs = cx.inputs[0]->tensor();
  const Tensor& rhs = cx.inputs[1]->tensor();
  const auto kind = ir::attrs<ir::Op::Compare>(cx.node).kind;
  if (lhs.dtype != rhs.dtype || lhs.shape != rhs.shape)
    return internal_error("ref: compare operands differ in dtype or shape");
  Tensor& result = result_tensor(cx, DType::Bool, lhs.shape);
  PLUMB_RETURN_IF_ERROR(check_result(result, DType::Bool, lhs.shape, "compare"));
  const int64_t n = lhs.numel();
  bool* y = result.as<bool>();
  return visit_dtype(lhs.dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string>) {
      for (int64_t i = 0; i < n; ++i) y[i] = compare_values(kind, lhs.strings()[i], rhs.strings()[i]);
    } else {
      const T* a = lhs.as<T>();
      const T* b = rhs.as<T>();
#if PLUMB_REF_COMPACT
      // One comparison per kind of dtype (issue 18): floats widened to f64, signed integers and
      // bools to i64, unsigned ones to u64, all exactly, so every result is the same. It is already
      // one element at a time on one thread: both loop choices run it.
      (void)loops;
      using W = std::conditional_t<
          is_float_storage_v<T>, double,
          std::conditional_t<std::is_unsigned_v<T> && !std::is_same_v<T, bool>, uint64_t, int64_t>>;
      auto widen = [](const T& x) {
        if constexpr (is_narrow_float_v<T>)
          return to_f64(x);
        else
          return static_cast<W>(x);
      };
      for (int64_t i = 0; i < n; ++i) y[i] = compare_values<W>(kind, widen(a[i]), widen(b[i]));
#else
      if constexpr (std::is_arithmetic_v<T>) {
        if (loops == Loops::kVectorized) {
          if constexpr (std::is_same_v<T, bool>)
            compare_same_type(kind, simd::bytes(a), simd::bytes(b), y, n, cx.threads);
          else
            compare_same_type(kind, a, b, y, n, cx.threads);
          return Status::ok();
        }
      }
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (is_narrow_float_v<T>)
          y[i] = compare_values(kind, to_f64(a[i]), to_f64(b[i]));
        else
          y[i] = compare_values(kind, a[i], b[i]);
      }
#endif
    }
    return Status::ok();
  });
}

// spec/ops/select.md: result[i] = pred[i] ? on_true[i] : on_false[i]
Status select_kernel(KernelCtx& cx, Loops loops) {
  const Tensor& pred = cx.inputs[0]->tensor();
  const Tensor& on_true = cx.inputs[1]->tensor();
  const Tensor& on_false = cx.inputs[2]->tensor();
  if (pred.shape != on_true.shape || on_true.shape != on_false.shape || on_true.dtype != on_false.dtype)
    return internal_error("ref: select operands differ in dtype or shape");
  Tensor& result = result_tensor(cx, on_true.dtype, on_true.shape);
  PLUMB_RETURN_IF_ERROR(check_result(result, on_true.dtype, on_true.shape, "select"));
  const int64_t n = pred.numel();
  const bool* p = pred.as<bool>();
  // By element size (dispatch.h visit_width): a select moves bits, so one loop per size serves
  // every dtype, and bools (bytes 0 or 1) take the vectorized loop too.
  return visit_width(on_true.dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string>) {
      for (int64_t i = 0; i < n; ++i)
        result.strings()[i] = p[i] ? on_true.strings()[i] : on_false.strings()[i];
    } else {
      const T* t = on_true.as<T>();
      const T* f = on_false.as<T>();
      T* y = result.as<T>();
      if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
        if (loops == Loops::kVectorized) {
          // One vectorized loop: the predicate's byte widened to a lane of T, both operands read.
          const uint8_t* pb = simd::bytes(p);
          for_ranges(cx.threads, n, [&](int64_t lo, int64_t hi) {
            simd::with_widest([&] {
              PLUMB_REF_SIMD_LOOP
              for (int64_t i = lo; i < hi; ++i) {
                const T on = t[i], off = f[i];
                const LaneMask<T> take = pb[i];
                y[i] = take != 0 ? on : off;
              }
            });
          });
          return Status::ok();
        }
      }
      for (int64_t i = 0; i < n; ++i) y[i] = p[i] ? t[i] : f[i];
    }
    return Status::ok();
  });
}

template <>
Status kernel<ir::Op::Unary>(KernelCtx& cx) {
  return unary_kernel(cx, Loops::kVectorized);
}
template <>
Status kernel<ir::Op::Binary>(KernelCtx& cx) {
  return binary_kernel(cx, Loops::kVectorized);
}
template <>
Status kernel<ir::Op::Compare>(KernelCtx& cx) {
  return compare_kernel(cx, Loops::kVectorized);
}
template <>
Status kernel<ir::Op::Select>(KernelCtx& cx) {
  return select_kernel(cx, Loops::kVectorized);
}

}  // namespace plumb::rt::ref
