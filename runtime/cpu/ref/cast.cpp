// Reference kernels of cast and bitcast: spec/ops/cast.md, spec/ops/bitcast.md, spec/numerics.md.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "runtime/cpu/ref/dispatch.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cpu/ref/loops.h"
#include "runtime/cpu/ref/parallel.h"
#include "runtime/cpu/ref/round_wrap.h"
#include "runtime/cpu/ref/simd.h"

namespace plumb::rt::ref {

namespace {

using ir::DType;

struct CastOpts {
  bool saturate;
  Rounding rounding;
};

// A double -> float dtype T, rounded once (cast.md: the saturate and round attributes).
template <typename T>
T narrow_float(double d, const CastOpts& o) {
  if constexpr (std::is_same_v<T, double>)
    return d;
  else if constexpr (std::is_same_v<T, float>)
    return static_cast<float>(d);  // RNE, overflow -> inf
  else if constexpr (std::is_same_v<T, f16>)
    return to_f16(d);
  else if constexpr (std::is_same_v<T, bf16>)
    return to_bf16(d);
  else if constexpr (std::is_same_v<T, f8e4m3fn>)
    return to_f8e4m3fn(d, o.saturate);
  else if constexpr (std::is_same_v<T, f8e4m3fnuz>)
    return to_f8e4m3fnuz(d, o.saturate);
  else if constexpr (std::is_same_v<T, f8e5m2>)
    return to_f8e5m2(d, o.saturate);
  else if constexpr (std::is_same_v<T, f8e5m2fnuz>)
    return to_f8e5m2fnuz(d, o.saturate);
  else if constexpr (std::is_same_v<T, f8e8m0>)
    return to_f8e8m0(d, o.saturate, o.rounding);
  else
    return to_f4e2m1(d, true);
}

template <typename T>
double widen(T x) {
  if constexpr (is_narrow_float_v<T>)
    return to_f64(x);
  else
    return static_cast<double>(x);
}

// An integer as a double that rounds correctly once more: exact below 2^53, else rounded to odd
// at 53 bits (so a second, narrower RNE rounding is the correctly rounded result).
double int_to_double_odd(bool negative, uint64_t magnitude) {
  uint64_t m = magnitude;
  int shift = 0;
  while ((m >> 53) != 0) {
    shift += 1;
    const bool lost = (m & 1) != 0;
    m >>= 1;
    if (lost) m |= 1;
  }
  const double d = std::ldexp(static_cast<double>(m), shift);
  return negative ? -d : d;
}

// The exact value of an integer of storage type S: sign and magnitude.
template <typename S>
void int_parts(S x, bool* negative, uint64_t* magnitude) {
  if constexpr (std::is_signed_v<S>) {
    *negative = x < 0;
    *magnitude =
        x < 0 ? uint64_t{0} - static_cast<uint64_t>(static_cast<int64_t>(x)) : static_cast<uint64_t>(x);
  } else {
    *negative = false;
    *magnitude = static_cast<uint64_t>(x);
  }
}

// Integer of `bits` bits -> float T.
template <typename T>
T int_to_float(bool negative, uint64_t magnitude, const CastOpts& o) {
  if constexpr (std::is_same_v<T, double>) {
    const double d = static_cast<double>(magnitude);  // one RNE rounding
    return negative ? -d : d;
  } else {
    return narrow_float<T>(int_to_double_odd(negative, magnitude), o);
  }
}

// float value -> integer dtype D of `bits` bits: truncate toward zero; NaN, inf or out of range
// is cast.R1.
template <typename D>
Status float_to_int(double v, int bits, D* out) {
  const bool is_signed = std::is_signed_v<D>;
  const double t = std::trunc(v);
  const double lo = is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
  const double hi_excl = is_signed ? std::ldexp(1.0, bits - 1) : std::ldexp(1.0, bits);
  if (std::isnan(v) || !(t >= lo && t < hi_excl))
    return runtime_error("cast.R1", strfmt("%.17g is out of range of the integer result", v));
  if constexpr (std::is_signed_v<D>)
    *out = static_cast<D>(static_cast<int64_t>(t));
  else
    *out = static_cast<D>(static_cast<uint64_t>(t));
  return Status::ok();
}

// ---- strings (spec/ops/cast.md "Strings") ----------------------------------------------------

bool iequals(const std::string& a, const char* b) {
  if (a.size() != std::strlen(b)) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// A decimal integer literal: optional sign, at least one digit, nothing else.
bool parse_integer(const std::string& s, bool* negative, uint64_t* magnitude) {
  size_t i = 0;
  *negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) *negative = s[i++] == '-';
  if (i == s.size()) return false;
  uint64_t m = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    if (m > (UINT64_MAX - digit) / 10) return false;  // too long: parsed as a float instead
    m = m * 10 + digit;
  }
  *magnitude = m;
  return true;
}

// A float literal (strtod syntax: decimal or scientific, "inf", "infinity", "nan", any case,
// optional sign), the whole string; else cast.R2.
Status parse_double(const std::string& s, double* out) {
  if (iequals(s, "nan") || iequals(s, "+nan") || iequals(s, "-nan")) {
    *out = std::nan("");
    return Status::ok();
  }
  const char* b = s.c_str();
  char* end = nullptr;
  if (!s.empty() && !std::isspace(static_cast<unsigned char>(s[0]))) {
    errno = 0;
    const double v = std::strtod(b, &end);
    if (end == b + s.size() && std::strchr(b, 'x') == nullptr && std::strchr(b, 'X') == nullptr &&
        std::strchr(b, '(') == nullptr) {
      *out = v;  // overflow gives +-inf, underflow a denormal or 0 (strtod rounds to nearest)
      return Status::ok();
    }
  }
  return runtime_error("cast.R2", "string \"" + s + "\" is not a number");
}

// numpy's str() of a float: the shortest decimal that rounds back to the same value of the
// source dtype, positional when 1e-4 <= |x| < 1e16 (with at least one fractional digit), else
// scientific with a two-digit exponent; "nan", "inf", "-inf".
// v is the widened value of the source dtype S, and round_trip(back) = widen(S(back)) (one function
// for every S, issue 18: only round_trip is per dtype).
std::string format_float(double v, double (*round_trip)(double)) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  auto round_trips = [&](double back) { return round_trip(back) == v; };
  // For each digit count, the nearest decimal first, then its neighbour on the other side of v:
  // at a power of two the values below are closer together than those above, so the nearest
  // decimal can miss while the other one (still of that length) rounds back, and numpy picks it
  // (f16 0.015625 prints as 0.01563).
  std::string mant;  // significant digits, the first non-zero
  int exp10 = 0;     // the decimal exponent of the first digit
  for (int digits = 1; digits <= 17; ++digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, std::fabs(v));
    std::string m;
    const char* p = buf;
    for (; *p != 'e'; ++p)
      if (*p != '.') m.push_back(*p);
    const int e = std::atoi(p + 1);
    const double near = std::strtod(buf, nullptr);
    if (round_trips(std::copysign(near, v))) {
      mant = m;
      exp10 = e;
      break;
    }
    const uint64_t n = std::stoull(m);
    const uint64_t other = near < std::fabs(v) ? n + 1 : n - 1;
    if (other == 0) continue;
    const int scale = e - (digits - 1);  // value = digits * 10^scale
    const std::string o = std::to_string(other);
    if (round_trips(std::copysign(std::strtod((o + "e" + std::to_string(scale)).c_str(), nullptr), v))) {
      mant = o;
      exp10 = scale + static_cast<int>(o.size()) - 1;
      break;
    }
  }
  const bool neg = std::signbit(v);
  while (mant.size() > 1 && mant.back() == '0') mant.pop_back();
  std::string s = neg ? "-" : "";
  const double a = std::fabs(v);
  if (a >= 1e-4 && a < 1e16) {
    if (exp10 < 0) {
      s += "0." + std::string(static_cast<size_t>(-exp10 - 1), '0') + mant;
    } else {
      const size_t int_digits = static_cast<size_t>(exp10) + 1;
      if (mant.size() <= int_digits) {
        s += mant + std::string(int_digits - mant.size(), '0') + ".0";
      } else {
        s += mant.substr(0, int_digits) + "." + mant.substr(int_digits);
      }
    }
  } else {
    s += mant.substr(0, 1);
    if (mant.size() > 1) s += "." + mant.substr(1);
    char e[16];
    std::snprintf(e, sizeof e, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    s += e;
  }
  return s;
}

// back rounded to the float dtype S and widened again: an exact comparison with a value of S
// (f64: back itself; f32: float(back), as compared in f32).
template <typename S>
double round_trip(double back) {
  if constexpr (std::is_same_v<S, double>)
    return back;
  else if constexpr (std::is_same_v<S, float>)
    return static_cast<float>(back);
  else
    return widen(narrow_float<S>(back, CastOpts{false, Rounding::kNearestEven}));
}

template <typename S>
std::string to_string_value(S x) {
  if constexpr (std::is_same_v<S, bool>)
    return x ? "True" : "False";
  else if constexpr (std::is_integral_v<S> && std::is_signed_v<S>)
    return std::to_string(static_cast<long long>(x));
  else if constexpr (std::is_integral_v<S>)
    return std::to_string(static_cast<unsigned long long>(x));
  else
    return format_float(widen(x), &round_trip<S>);
}

// string -> D
template <typename D>
Status from_string(const std::string& s, int bits, const CastOpts& o, D* out) {
  if constexpr (std::is_same_v<D, bool>) {
    if (iequals(s, "true")) return *out = true, Status::ok();
    if (iequals(s, "false")) return *out = false, Status::ok();
    double v;
    PLUMB_RETURN_IF_ERROR(parse_double(s, &v));
    *out = v != 0;  // NaN -> true
    return Status::ok();
  } else if constexpr (std::is_integral_v<D>) {
    bool negative;
    uint64_t magnitude;
    if (parse_integer(s, &negative, &magnitude)) {
      const uint64_t limit = std::is_signed_v<D>
                                 ? (uint64_t{1} << (bits - 1)) - (negative ? 0 : 1)
                                 : (negative ? 0 : (bits == 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1));
      if (magnitude > limit)
        return runtime_error("cast.R1", "\"" + s + "\" is out of range of the integer result");
      *out = wrap_bits<D>(negative ? uint64_t{0} - magnitude : magnitude, bits);
      return Status::ok();
    }
    double v;
    PLUMB_RETURN_IF_ERROR(parse_double(s, &v));
    return float_to_int<D>(v, bits, out);
  } else {
    double v;
    PLUMB_RETURN_IF_ERROR(parse_double(s, &v));
    *out = narrow_float<D>(v, o);
    return Status::ok();
  }
}

// One element S -> D (neither a string).
template <typename S, typename D>
Status convert(S x, int dst_bits, const CastOpts& o, D* out) {
  if constexpr (std::is_same_v<D, bool>) {
    if constexpr (std::is_integral_v<S>)
      *out = x != 0;
    else
      *out = widen(x) != 0;  // NaN -> true (NaN != 0)
  } else if constexpr (std::is_same_v<S, bool>) {
    if constexpr (std::is_integral_v<D>)
      *out = x ? D(1) : D(0);
    else
      *out = narrow_float<D>(x ? 1.0 : 0.0, o);
  } else if constexpr (std::is_integral_v<S> && std::is_integral_v<D>) {
    *out = wrap_bits<D>(static_cast<uint64_t>(x), dst_bits);  // wraps (two's complement)
  } else if constexpr (std::is_integral_v<S>) {
    bool negative;
    uint64_t magnitude;
    int_parts(x, &negative, &magnitude);
    *out = int_to_float<D>(negative, magnitude, o);
  } else if constexpr (std::is_integral_v<D>) {
    return float_to_int<D>(widen(x), dst_bits, out);
  } else {
    *out = narrow_float<D>(widen(x), o);
  }
  return Status::ok();
}

// The pairs whose convert() is the C++ conversion itself, whatever saturate and round say:
// f32 and f64 to f64 (exact; f64 to f64 is a copy, as precise mode's casts to f32 are), f64 to
// f32 (narrow_float: nearest even, overflow to inf), integers of up to 32 bits to f64 and of up
// to 16 bits to f32 (exact). Not f32 to f32: convert() goes through f64, which quiets a signaling
// NaN. Their loops vectorize (simd::map).
template <typename S, typename D>
constexpr bool kPlainConversion =
    !std::is_same_v<S, bool> && std::is_arithmetic_v<S> &&
    ((std::is_same_v<D, double> && (std::is_floating_point_v<S> || sizeof(S) <= 4)) ||
     (std::is_same_v<D, float> && (std::is_same_v<S, double> || (std::is_integral_v<S> && sizeof(S) <= 2))));

#if PLUMB_REF_COMPACT
// An element's exact value, the compact cast's intermediate: an integer (bool: 0 or 1) as sign and
// magnitude, a float widened to double (exact for every float dtype).
struct Exact {
  bool is_float;
  bool negative;
  uint64_t magnitude;
  double f;
};

template <typename S>
void decode(const S* x, int64_t n, Exact* out) {
  for (int64_t i = 0; i < n; ++i) {
    Exact& e = out[i];
    e = Exact{false, false, 0, 0.0};
    if constexpr (std::is_same_v<S, bool>)
      e.magnitude = x[i] ? 1 : 0;
    else if constexpr (std::is_integral_v<S>)
      int_parts(x[i], &e.negative, &e.magnitude);
    else
      e.is_float = true, e.f = widen(x[i]);
  }
}

// convert()'s cases from the exact value: a bool source is the integer 0 or 1 (x ? 1 : 0 to an
// integer, int_to_float's exact 1.0 or +0 to a float, x != 0 to bool); the plain conversions
// (kPlainConversion) are these same roundings.
template <typename D>
Status encode(const Exact* in, int64_t n, int dst_bits, const CastOpts& o, D* y) {
  for (int64_t i = 0; i < n; ++i) {
    const Exact& e = in[i];
    if constexpr (std::is_same_v<D, bool>) {
      y[i] = e.is_float ? e.f != 0 : e.magnitude != 0;  // NaN -> true
    } else if constexpr (std::is_integral_v<D>) {
      if (e.is_float)
        PLUMB_RETURN_IF_ERROR(float_to_int<D>(e.f, dst_bits, &y[i]));
      else
        y[i] = wrap_bits<D>(e.negative ? uint64_t{0} - e.magnitude : e.magnitude, dst_bits);
    } else {
      y[i] = e.is_float ? narrow_float<D>(e.f, o) : int_to_float<D>(e.negative, e.magnitude, o);
    }
  }
  return Status::ok();
}
#endif

Rounding rounding_of(ir::RoundMode code) {
  if (code == ir::RoundMode::Up) return Rounding::kUp;
  if (code == ir::RoundMode::Down) return Rounding::kDown;
  return Rounding::kNearestEven;
}

Tensor& result_tensor(KernelCtx& cx, DType dt, const std::vector<int64_t>& shape) {
  RtValue* out = cx.outputs[0];
  if (!out->is_tensor() || out->tensor().data == nullptr) *out = Tensor::allocate(dt, shape);
  return out->tensor();
}

}  // namespace

// spec/ops/cast.md: result[i] = convert(operand[i], to). The result buffer's dtype is `to`, or f64
// for a float `to` in precise mode (the executor widens floats): then no rounding to `to` happens.
Status cast_kernel(KernelCtx& cx, Loops loops) {
  const Tensor& operand = cx.inputs[0]->tensor();
  const ir::CastAttrs a = ir::attrs<ir::Op::Cast>(cx.node);
  const CastOpts opts{a.saturate, rounding_of(a.round)};
  Tensor& result = result_tensor(cx, a.to, operand.shape);
  if (result.shape != operand.shape)
    return internal_error("ref: cast result buffer shape differs from the operand");
  const int64_t n = operand.numel();
  const int dst_bits = ir::dtype_bits(result.dtype);
  // Strings: per dtype on the other side only; not compiled where an op list leaves strings out.
  if constexpr (!dtype_built("string")) {
    // (run_kernel refuses a string tensor before this kernel sees it)
  } else if (operand.dtype == DType::String && result.dtype == DType::String) {
    for (int64_t i = 0; i < n; ++i) result.strings()[i] = operand.strings()[i];
    return Status::ok();
  } else if (operand.dtype == DType::String) {
    return visit_dtype(result.dtype, [&](auto dtag) -> Status {
      using D = typename decltype(dtag)::type;
      if constexpr (!std::is_same_v<D, std::string>) {
        D* y = result.as<D>();
        for (int64_t i = 0; i < n; ++i)
          PLUMB_RETURN_IF_ERROR(from_string<D>(operand.strings()[i], dst_bits, opts, &y[i]));
      }
      return Status::ok();
    });
  } else if (result.dtype == DType::String) {
    return visit_dtype(operand.dtype, [&](auto stag) -> Status {
      using S = typename decltype(stag)::type;
      if constexpr (!std::is_same_v<S, std::string>) {
        const S* x = operand.as<S>();
        for (int64_t i = 0; i < n; ++i) result.strings()[i] = to_string_value(x[i]);
      }
      return Status::ok();
    });
  }
#if PLUMB_REF_COMPACT
  // One loop per dtype on each side instead of one per pair: a block of operand elements is
  // decoded to their exact values, then encoded to the result dtype, element by element as
  // convert() would (the first failing element is the one reported). Already one element at a
  // time on one thread: both loop choices run it.
  (void)loops;
  constexpr int64_t kBlock = 32;
  Exact block[kBlock];
  for (int64_t lo = 0; lo < n; lo += kBlock) {
    const int64_t m = std::min(kBlock, n - lo);
    visit_dtype(operand.dtype, [&](auto stag) {
      using S = typename decltype(stag)::type;
      if constexpr (!std::is_same_v<S, std::string>) decode(operand.as<S>() + lo, m, block);
    });
    PLUMB_RETURN_IF_ERROR(visit_dtype(result.dtype, [&](auto dtag) -> Status {
      using D = typename decltype(dtag)::type;
      if constexpr (std::is_same_v<D, std::string>)
        return Status::ok();
      else
        return encode(block, m, dst_bits, opts, result.as<D>() + lo);
    }));
  }
  return Status::ok();
#else
  return visit_dtype(operand.dtype, [&](auto stag) -> Status {
    using S = typename decltype(stag)::type;
    return visit_dtype(result.dtype, [&](auto dtag) -> Status {
      using D = typename decltype(dtag)::type;
      if constexpr (std::is_same_v<S, std::string> || std::is_same_v<D, std::string>) {
        return Status::ok();  // above
      } else {
        const S* x = operand.as<S>();
        D* y = result.as<D>();
        if constexpr (kPlainConversion<S, D>) {
          if (loops == Loops::kVectorized) {
            parallel_for(cx.threads, n, int64_t{1} << 16, [&](int64_t lo, int64_t hi) {
              simd::map(x + lo, y + lo, hi - lo, [](S v) { return static_cast<D>(v); });
            });
            return Status::ok();
          }
        } else if constexpr (std::is_same_v<S, bool> && std::is_floating_point_v<D>) {  // 1 or +0
          if (loops == Loops::kVectorized) {
            // (not simd::bytes(x), which takes only bool*: clang instantiates this branch for every S)
            simd::map(reinterpret_cast<const uint8_t*>(x), y, n, [](uint8_t v) { return static_cast<D>(v); });
            return Status::ok();
          }
        }
        for (int64_t i = 0; i < n; ++i) PLUMB_RETURN_IF_ERROR((convert<S, D>(x[i], dst_bits, opts, &y[i])));
        return Status::ok();
      }
    });
  });
#endif
}

template <>
Status kernel<ir::Op::Cast>(KernelCtx& cx) {
  return cast_kernel(cx, Loops::kVectorized);
}

namespace {

// The raw bits of element i of a non-string tensor (sub-byte: the low bits of its byte).
uint64_t raw_bits(const Tensor& t, int64_t i, int bits) {
  const int64_t bytes = runtime_elem_bytes(t.dtype);
  uint64_t v = 0;
  std::memcpy(&v, static_cast<const uint8_t*>(t.data) + i * bytes,
              static_cast<size_t>(bytes));  // little-endian
  return bits < 64 ? v & ((uint64_t{1} << bits) - 1) : v;
}

}  // namespace

// spec/ops/bitcast.md: result[i] = the element of dtype `to` with the bits of operand[i].
template <>
Status kernel<ir::Op::Bitcast>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  const DType to = ir::attrs<ir::Op::Bitcast>(cx.node).to;
  const int bits = ir::dtype_bits(to);
  Tensor& result = result_tensor(cx, to, operand.shape);
  const int64_t n = operand.numel();
  // Precise mode: the executor narrows a widened float operand back to its declared dtype before
  // a bitcast and widens a float result after it (runtime/executor.cpp make_precise_graph), so the
  // kernel always sees the declared dtypes.
  if (ir::dtype_bits(operand.dtype) != bits || result.dtype != to)
    return internal_error("ref: bitcast operand or result buffer does not have the declared dtypes");
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t v = raw_bits(operand, i, bits);
    if (to == DType::Bool && v > 1)
      return runtime_error("bitcast.R1",
                           strfmt("byte %llu is not a bool (0 or 1)", static_cast<unsigned long long>(v)));
    uint64_t w = v;
    if (ir::is_signed_int(to) && bits < 8 && (v >> (bits - 1)) != 0)
      w |= ~((uint64_t{1} << bits) - 1);  // sign-extend
    const int64_t bytes = runtime_elem_bytes(to);
    std::memcpy(static_cast<uint8_t*>(result.data) + i * bytes, &w, static_cast<size_t>(bytes));
  }
  return Status::ok();
}

}  // namespace plumb::rt::ref
