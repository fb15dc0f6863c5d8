#include "ir/narrow_float.h"

#include <cmath>
#include <cstring>

namespace plumb::ir {

namespace {

// How a binary format spends its top exponent: IEEE (inf and NaNs), FN (no inf; the all-ones
// pattern of each sign is NaN), FNUZ (no inf, no -0; the pattern "-0" is the only NaN), or
// Plain (every pattern finite: f4e2m1).
enum class Special { Ieee, Fn, Fnuz, Plain };
struct Format {
  int ebits, mbits, bias;
  Special special;
};

std::optional<Format> format_of(DType dt) {
  switch (dt) {
    case DType::F4E2M1: return Format{2, 1, 1, Special::Plain};
    case DType::F8E4M3FN: return Format{4, 3, 7, Special::Fn};
    case DType::F8E4M3FNUZ: return Format{4, 3, 8, Special::Fnuz};
    case DType::F8E5M2: return Format{5, 2, 15, Special::Ieee};
    case DType::F8E5M2FNUZ: return Format{5, 2, 16, Special::Fnuz};
    case DType::F16: return Format{5, 10, 15, Special::Ieee};
    case DType::BF16: return Format{8, 7, 127, Special::Ieee};
    case DType::F32: return Format{8, 23, 127, Special::Ieee};
    default: return std::nullopt;
  }
}

double decode(const Format& f, uint64_t bits) {
  const uint64_t emax = (uint64_t{1} << f.ebits) - 1, mmax = (uint64_t{1} << f.mbits) - 1;
  const bool neg = (bits >> (f.ebits + f.mbits)) & 1;
  const uint64_t e = (bits >> f.mbits) & emax, m = bits & mmax;
  if (f.special == Special::Ieee && e == emax) return m ? std::nan("") : (neg ? -HUGE_VAL : HUGE_VAL);
  if (f.special == Special::Fn && e == emax && m == mmax) return std::nan("");
  if (f.special == Special::Fnuz && neg && e == 0 && m == 0) return std::nan("");
  double v = e == 0 ? std::ldexp(static_cast<double>(m), 1 - f.bias - f.mbits)
                    : std::ldexp(static_cast<double>(m + mmax + 1), static_cast<int>(e) - f.bias - f.mbits);
  return neg ? -v : v;
}

uint64_t nan_bits(const Format& f) {
  const uint64_t emax = (uint64_t{1} << f.ebits) - 1, mmax = (uint64_t{1} << f.mbits) - 1;
  switch (f.special) {
    case Special::Ieee: return (emax << f.mbits) | (uint64_t{1} << (f.mbits - 1));
    case Special::Fn: return (emax << f.mbits) | mmax;
    case Special::Fnuz: return uint64_t{1} << (f.ebits + f.mbits);
    case Special::Plain: break;
  }
  return 0;
}

// Round to nearest integer, ties to even, without depending on the FP environment.
double round_half_even(double n) {
  double fl = std::floor(n);
  double diff = n - fl;
  if (diff > 0.5 || (diff == 0.5 && std::fmod(fl, 2.0) != 0.0)) fl += 1.0;
  return fl;
}

std::optional<uint64_t> encode(const Format& f, double x) {
  const uint64_t emax = (uint64_t{1} << f.ebits) - 1, mmax = (uint64_t{1} << f.mbits) - 1;
  const uint64_t sign_bit = uint64_t{1} << (f.ebits + f.mbits);
  if (std::isnan(x)) {
    if (f.special == Special::Plain) return std::nullopt;
    return nan_bits(f);
  }
  const bool neg = std::signbit(x);
  const uint64_t sign = neg ? sign_bit : 0;
  if (std::isinf(x)) {
    if (f.special != Special::Ieee) return std::nullopt;
    return sign | (emax << f.mbits);
  }
  const double a = std::fabs(x);
  if (a == 0) return f.special == Special::Fnuz ? 0 : sign;
  int ex = 0;
  std::frexp(a, &ex);  // a in [2^(ex-1), 2^ex)
  int e_unb = ex - 1;
  const int emin = 1 - f.bias;
  if (e_unb < emin) e_unb = emin;
  double r = round_half_even(std::ldexp(a, f.mbits - e_unb));  // the significand in quanta
  const double full = std::ldexp(1.0, f.mbits + 1), hidden = std::ldexp(1.0, f.mbits);
  if (r >= full) {
    r /= 2;
    ++e_unb;
  }
  uint64_t efield = 0, m = 0;
  if (r < hidden) {  // subnormal (or zero after rounding)
    m = static_cast<uint64_t>(r);
  } else {
    const int64_t ef = static_cast<int64_t>(e_unb) + f.bias;
    if (ef > static_cast<int64_t>(emax))
      efield = emax + 1;  // overflow, caught below
    else
      efield = static_cast<uint64_t>(ef);
    m = static_cast<uint64_t>(r - hidden);
  }
  bool overflow = false;
  switch (f.special) {
    case Special::Ieee: overflow = efield >= emax; break;
    case Special::Fn: overflow = efield > emax || (efield == emax && m == mmax); break;
    case Special::Fnuz:
    case Special::Plain: overflow = efield > emax; break;
  }
  if (overflow) {
    if (f.special == Special::Ieee) return sign | (emax << f.mbits);
    return std::nullopt;
  }
  if (efield == 0 && m == 0 && f.special == Special::Fnuz) return 0;
  return sign | (efield << f.mbits) | m;
}

}  // namespace

int float_bits_width(DType dt) { return dtype_bits(dt); }

double float_bits_to_double(DType dt, uint64_t bits) {
  if (dt == DType::F64) {
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  if (dt == DType::F8E8M0) {
    bits &= 0xff;
    if (bits == 0xff) return std::nan("");
    return std::ldexp(1.0, static_cast<int>(bits) - 127);
  }
  auto f = format_of(dt);
  if (!f) return std::nan("");
  const int width = 1 + f->ebits + f->mbits;
  return decode(*f, bits & ((uint64_t{1} << width) - 1));
}

std::optional<uint64_t> double_to_float_bits(DType dt, double x) {
  if (dt == DType::F64) {
    if (std::isnan(x)) return uint64_t{0x7ff8000000000000};
    uint64_t b;
    std::memcpy(&b, &x, 8);
    return b;
  }
  if (dt == DType::F8E8M0) {
    if (std::isnan(x)) return uint64_t{0xff};
    if (!(x > 0) || std::isinf(x)) return std::nullopt;
    int ex = 0;
    const double frac = std::frexp(x, &ex);
    if (frac != 0.5) return std::nullopt;  // only powers of two
    const int e = ex - 1 + 127;
    if (e < 0 || e > 254) return std::nullopt;
    return static_cast<uint64_t>(e);
  }
  auto f = format_of(dt);
  if (!f) return std::nullopt;
  return encode(*f, x);
}

std::optional<uint64_t> canonical_nan_bits(DType dt) {
  if (dt == DType::F64) return uint64_t{0x7ff8000000000000};
  if (dt == DType::F8E8M0) return uint64_t{0xff};
  auto f = format_of(dt);
  if (!f || f->special == Special::Plain) return std::nullopt;
  return nan_bits(*f);
}

}  // namespace plumb::ir
