// The narrow floating formats (spec/numerics.md "Narrow floats"): exact widening, and narrowing
// from double with ONE rounding (round to nearest, ties to even) and ONNX Cast's overflow rules.
#include "runtime/cpu/ref/float_formats.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace plumb::rt {

namespace {

// How a format spells its special values.
enum class Specials : uint8_t {
  kIeee,  // exponent all ones: inf (mantissa 0) or NaN (f16, bf16, f8e5m2)
  kFn,    // no inf; S.1111.111 is NaN (f8e4m3fn)
  kFnuz,  // no inf, no -0; 1.0000.000 is the only NaN (f8e4m3fnuz, f8e5m2fnuz)
  kNone,  // no inf, no NaN (f4e2m1)
};

struct Format {
  int ebits, mbits, bias;
  Specials specials;
  uint32_t nan_bits;  // the NaN this implementation produces (positive; sign added where kept)
};

constexpr Format kF16{5, 10, 15, Specials::kIeee, 0x7E00};
constexpr Format kBF16{8, 7, 127, Specials::kIeee, 0x7FC0};
constexpr Format kE4M3FN{4, 3, 7, Specials::kFn, 0x7F};
constexpr Format kE4M3FNUZ{4, 3, 8, Specials::kFnuz, 0x80};
constexpr Format kE5M2{5, 2, 15, Specials::kIeee, 0x7E};
constexpr Format kE5M2FNUZ{5, 2, 16, Specials::kFnuz, 0x80};
constexpr Format kE2M1{2, 1, 1, Specials::kNone, 0};

uint32_t sign_bit(const Format& f) { return 1u << (f.ebits + f.mbits); }
uint32_t exp_all_ones(const Format& f) { return (1u << f.ebits) - 1; }

double decode(const Format& f, uint32_t bits) {
  const uint32_t mmask = (1u << f.mbits) - 1;
  const uint32_t m = bits & mmask;
  const uint32_t e = (bits >> f.mbits) & exp_all_ones(f);
  const bool neg = (bits & sign_bit(f)) != 0;
  switch (f.specials) {
    case Specials::kIeee:
      if (e == exp_all_ones(f))
        return m == 0 ? (neg ? -HUGE_VAL : HUGE_VAL) : std::numeric_limits<double>::quiet_NaN();
      break;
    case Specials::kFn:
      if (e == exp_all_ones(f) && m == mmask) return std::numeric_limits<double>::quiet_NaN();
      break;
    case Specials::kFnuz:
      if (bits == sign_bit(f)) return std::numeric_limits<double>::quiet_NaN();
      break;
    case Specials::kNone: break;
  }
  double mag =
      e == 0 ? std::ldexp(static_cast<double>(m), 1 - f.bias - f.mbits)
             : std::ldexp(static_cast<double>(m + (1u << f.mbits)), static_cast<int>(e) - f.bias - f.mbits);
  return neg ? -mag : mag;
}

// The largest finite magnitude of the format.
double max_finite(const Format& f) {
  const uint32_t mmask = (1u << f.mbits) - 1;
  uint32_t e = exp_all_ones(f), m = mmask;
  if (f.specials == Specials::kIeee) e -= 1;  // exponent all ones is inf/NaN
  if (f.specials == Specials::kFn) m -= 1;    // S.1111.111 is NaN
  return std::ldexp(static_cast<double>(m + (1u << f.mbits)), static_cast<int>(e) - f.bias - f.mbits);
}

// Round a >= 0 to an integer, ties to even. a < 2^53, so floor and the difference are exact.
double round_half_even(double a) {
  const double fl = std::floor(a);
  const double diff = a - fl;
  if (diff > 0.5) return fl + 1;
  if (diff < 0.5) return fl;
  return std::fmod(fl, 2.0) == 0 ? fl : fl + 1;
}

// spec/numerics.md "Narrowing": round |x| once to the format's precision (exponent unbounded
// above), then handle overflow by the format's rule.
uint32_t encode(const Format& f, double x, bool saturate) {
  const uint32_t sign = std::signbit(x) ? sign_bit(f) : 0;
  const uint32_t max_bits = [&] {
    uint32_t e = exp_all_ones(f), m = (1u << f.mbits) - 1;
    if (f.specials == Specials::kIeee) e -= 1;
    if (f.specials == Specials::kFn) m -= 1;
    return (e << f.mbits) | m;
  }();
  const uint32_t inf_bits = exp_all_ones(f) << f.mbits;
  const bool fnuz = f.specials == Specials::kFnuz;
  if (std::isnan(x)) {
    if (f.specials == Specials::kNone) return max_bits;  // ONNX float4: NaN -> 6 (+max)
    return fnuz ? f.nan_bits : (f.nan_bits | sign);
  }
  const double a = std::fabs(x);
  // Overflow: inf, or the rounded magnitude above the largest finite value.
  auto overflow = [&]() -> uint32_t {
    if (f.specials == Specials::kNone || saturate) return sign | max_bits;
    if (f.specials == Specials::kIeee) return sign | inf_bits;
    return fnuz ? f.nan_bits : (f.nan_bits | sign);
  };
  if (std::isinf(a)) return overflow();
  if (a == 0) return fnuz ? 0 : sign;
  const int emin = 1 - f.bias;  // exponent of the smallest normal
  int e;
  std::frexp(a, &e);
  e -= 1;  // a = 1.xxx * 2^e
  if (e < emin) e = emin;
  const int qexp = e - f.mbits;  // the quantum (ulp) at this binade is 2^qexp
  const double n = round_half_even(std::ldexp(a, -qexp));
  const double r = std::ldexp(n, qexp);
  if (r > max_finite(f)) return overflow();
  if (r == 0) return fnuz ? 0 : sign;  // underflow to zero keeps the sign (fnuz: +0 only)
  int re;
  std::frexp(r, &re);
  re -= 1;
  if (re < emin) {  // subnormal: exponent field 0
    return sign | static_cast<uint32_t>(std::ldexp(r, f.mbits - emin));
  }
  const uint32_t mant = static_cast<uint32_t>(std::ldexp(r, f.mbits - re)) - (1u << f.mbits);
  return sign | (static_cast<uint32_t>(re + f.bias) << f.mbits) | mant;
}

}  // namespace

double to_f64(f16 x) { return decode(kF16, x.bits); }
double to_f64(bf16 x) { return decode(kBF16, x.bits); }
double to_f64(f8e4m3fn x) { return decode(kE4M3FN, x.bits); }
double to_f64(f8e4m3fnuz x) { return decode(kE4M3FNUZ, x.bits); }
double to_f64(f8e5m2 x) { return decode(kE5M2, x.bits); }
double to_f64(f8e5m2fnuz x) { return decode(kE5M2FNUZ, x.bits); }
double to_f64(f4e2m1 x) { return decode(kE2M1, x.bits & 0xF); }
double to_f64(f8e8m0 x) {
  if (x.bits == 0xFF) return std::numeric_limits<double>::quiet_NaN();
  return std::ldexp(1.0, static_cast<int>(x.bits) - 127);
}

// f16 and bf16 have inf: overflow always goes to inf (IEEE), there is no saturate.
f16 to_f16(double x) { return f16{static_cast<uint16_t>(encode(kF16, x, false))}; }
bf16 to_bf16(double x) { return bf16{static_cast<uint16_t>(encode(kBF16, x, false))}; }
f8e4m3fn to_f8e4m3fn(double x, bool saturate) {
  return f8e4m3fn{static_cast<uint8_t>(encode(kE4M3FN, x, saturate))};
}
f8e4m3fnuz to_f8e4m3fnuz(double x, bool saturate) {
  return f8e4m3fnuz{static_cast<uint8_t>(encode(kE4M3FNUZ, x, saturate))};
}
f8e5m2 to_f8e5m2(double x, bool saturate) { return f8e5m2{static_cast<uint8_t>(encode(kE5M2, x, saturate))}; }
f8e5m2fnuz to_f8e5m2fnuz(double x, bool saturate) {
  return f8e5m2fnuz{static_cast<uint8_t>(encode(kE5M2FNUZ, x, saturate))};
}
// ONNX float4 (docs/technical/float4.md): always saturating; `saturate` does not apply.
f4e2m1 to_f4e2m1(double x, bool /*saturate*/) { return f4e2m1{static_cast<uint8_t>(encode(kE2M1, x, true))}; }

// spec/numerics.md "f8e8m0": 2^(e-127), e = 0..254, 0xFF = NaN; no sign, no zero. The magnitude
// |x| = m * 2^k (1 <= m < 2) goes to 2^k (down), 2^(k+1) when m > 1 (up), or whichever is nearer
// with m == 1.5 going up (nearest_even; ONNX "nearest"). Outside [2^-127, 2^127]: saturate clamps,
// otherwise NaN; 0 and inf likewise (ONNX Cast table for float8e8m0).
f8e8m0 to_f8e8m0(double x, bool saturate, Rounding r) {
  constexpr uint8_t kNaN = 0xFF, kMax = 0xFE, kMin = 0x00;
  if (std::isnan(x)) return f8e8m0{kNaN};
  const double a = std::fabs(x);
  if (std::isinf(a)) return f8e8m0{saturate ? kMax : kNaN};
  if (a == 0) return f8e8m0{saturate ? kMin : kNaN};
  int k;
  const double m = std::frexp(a, &k) * 2;  // a = m * 2^(k-1), 1 <= m < 2
  k -= 1;
  if (m > 1) {
    if (r == Rounding::kUp || (r == Rounding::kNearestEven && m >= 1.5)) k += 1;
  }
  if (k > 127) return f8e8m0{saturate ? kMax : kNaN};
  if (k < -127) return f8e8m0{(saturate || r == Rounding::kUp) ? kMin : kNaN};  // `up` never underflows
  return f8e8m0{static_cast<uint8_t>(k + 127)};
}

}  // namespace plumb::rt
