#include "check/diff_quant.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "ir/status.h"

namespace plumb::check {

namespace {

constexpr size_t kMaxLevels = 256;  // distinct values of an 8-bit grid
// Evidence. Generic values lie within kGridTolerance of a grid found from one of them by chance
// with odds of about 2e-4 each, and the grid is one of 255 candidates: a group of n distinct
// nonzero values fits by chance with odds 255 * (2e-4)^(n-1). A group needs 3 such values (one or
// two pin no grid: any a rounds to a grid fitted to a lone b within half of it), and the odds of
// all groups together must be below 1e-12 (a tensor needs 5 values; hand-written round numbers
// such as 0.1, 0.2, 0.3 do lie on a grid and are no quantization).
constexpr size_t kMinDistinct = 3;
constexpr double kLog10ChancePerGroup = 2.41;  // log10(255)
constexpr double kLog10ChancePerValue = -3.7;  // log10(2e-4)
constexpr double kMaxLog10Chance = -12;
// |b / s - k| allowed for b on the grid: b = f32(s * k) with |k| <= 255 and s itself estimated from
// an f32 value, so |b / s - k| <= 255 * 2 * 2^-24 = 3e-5.
constexpr double kGridTolerance = 1e-4;
// |a / s - k| allowed beyond 1/2: a / s computed in f32 by the quantizer, and s estimated here.
constexpr double kRoundTolerance = 1e-3;

// One group's grid: b = scale * k for integers k in [kmin, kmax]; scale 0 when b is all zero.
struct Grid {
  double scale = 0;
  int64_t kmin = 0, kmax = 0;
  size_t distinct = 0;  // distinct nonzero values of b
};

// log10 of the odds that the groups' values fit their grids by chance (see kMinDistinct).
double log10_chance(const std::vector<Grid>& grids) {
  double sum = 0;
  for (const Grid& g : grids)
    if (g.distinct > 0)
      sum += kLog10ChancePerGroup + kLog10ChancePerValue * static_cast<double>(g.distinct - 1);
  return sum;
}

// The grid of one group (b, and a rounding to it), or nullopt when there is none with the evidence
// the header asks for.
std::optional<Grid> fit_group(const std::vector<double>& a, const std::vector<double>& b) {
  std::set<double> distinct_values;  // of b, nonzero; more than kMaxLevels ends the search early
  for (double x : b) {
    if (!std::isfinite(x)) return std::nullopt;
    if (x != 0 && distinct_values.insert(x).second && distinct_values.size() > kMaxLevels)
      return std::nullopt;
  }
  if (distinct_values.empty()) {  // all zero: a must be too (no scale rounds a nonzero a to 0 for sure)
    for (double x : a)
      if (x != 0) return std::nullopt;
    return Grid{};
  }
  std::vector<double> values;  // distinct magnitudes, ascending
  for (double x : distinct_values) values.push_back(std::fabs(x));
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  const size_t distinct = distinct_values.size();
  if (distinct < kMinDistinct || distinct > kMaxLevels) return std::nullopt;
  // The largest s dividing every value: values[0] / n for the smallest n that fits. A larger n
  // only makes the grid finer (and the rounding test below stricter); past 255 levels per sign no
  // 8-bit grid holds the values.
  double scale = 0;
  for (int n = 1; n <= 255 && scale == 0; ++n) {
    const double s = values[0] / n;
    if (values.back() / s > 255.5) break;
    bool fits = true;
    for (size_t i = 1; i < values.size() && fits; ++i) {
      const double k = values[i] / s;
      fits = std::fabs(k - std::round(k)) <= kGridTolerance;
    }
    if (fits) scale = s;
  }
  if (scale == 0) return std::nullopt;
  double num = 0, den = 0;  // least squares through the origin: s = sum(|b| k) / sum(k^2)
  for (double x : values) {
    const double k = std::round(x / scale);
    num += x * k;
    den += k * k;
  }
  scale = num / den;
  Grid g{scale, 0, 0, distinct};
  for (size_t i = 0; i < b.size(); ++i) {
    const double kb = b[i] / scale;
    const double k = std::round(kb);
    if (std::fabs(kb - k) > kGridTolerance) return std::nullopt;
    if (!std::isfinite(a[i]) || std::fabs(a[i] / scale - k) > 0.5 + kRoundTolerance) return std::nullopt;
    g.kmin = std::min(g.kmin, static_cast<int64_t>(k));
    g.kmax = std::max(g.kmax, static_cast<int64_t>(k));
  }
  return g;
}

struct IntType {
  const char* name;
  int64_t lo, hi;  // its range
  bool has_zero_point;
};
constexpr IntType kTypes[] = {
    {"int4", -8, 7, false}, {"uint4", 0, 15, true}, {"int8", -128, 127, false}, {"uint8", 0, 255, true}};

// The zero point that puts [kmin, kmax] inside the type's range (the smallest), or nullopt.
std::optional<int64_t> zero_point(const IntType& t, const Grid& g) {
  if (!t.has_zero_point) {
    if (g.kmin < t.lo || g.kmax > t.hi) return std::nullopt;
    return 0;
  }
  const int64_t z = std::max<int64_t>(0, t.lo - g.kmin);
  if (z > t.hi || g.kmax + z > t.hi) return std::nullopt;
  return z;
}

// The first type (smallest first) that holds every group's grid.
std::optional<Quantization> as_quantization(const std::vector<Grid>& grids, int axis) {
  for (const IntType& t : kTypes) {
    Quantization q;
    q.dtype = t.name;
    q.axis = axis;
    for (const Grid& g : grids) {
      const std::optional<int64_t> z = zero_point(t, g);
      if (!z) break;
      q.scales.push_back(g.scale);
      q.zero_points.push_back(*z);
    }
    if (q.scales.size() == grids.size()) return q;
  }
  return std::nullopt;
}

// The grids of the slices along `axis` (every slice one group), or nullopt when one has none.
std::optional<std::vector<Grid>> fit_slices(const std::vector<double>& a, const std::vector<double>& b,
                                            const std::vector<int64_t>& dims, int axis) {
  int64_t inner = 1, outer = 1;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (static_cast<int>(k) < axis) outer *= dims[k];
    if (static_cast<int>(k) > axis) inner *= dims[k];
  }
  const int64_t extent = dims[static_cast<size_t>(axis)];
  std::vector<Grid> grids;
  std::vector<double> ga, gb;
  for (int64_t j = 0; j < extent; ++j) {
    ga.clear();
    gb.clear();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const size_t at = static_cast<size_t>((o * extent + j) * inner + i);
        ga.push_back(a[at]);
        gb.push_back(b[at]);
      }
    std::optional<Grid> g = fit_group(ga, gb);
    if (!g) return std::nullopt;
    grids.push_back(*g);
  }
  return grids;
}

// "0.001" or "0.001 to 0.002"
std::string range_text(double lo, double hi, const char* fmt) {
  return lo == hi ? strfmt(fmt, lo) : strfmt(fmt, lo) + " to " + strfmt(fmt, hi);
}

}  // namespace

std::optional<Quantization> find_quantization(const std::vector<double>& a, const std::vector<double>& b,
                                              const std::vector<int64_t>& dims) {
  if (a.size() != b.size() || a.empty()) return std::nullopt;
  if (std::optional<Grid> g = fit_group(a, b); g && log10_chance({*g}) <= kMaxLog10Chance)
    if (auto q = as_quantization({*g}, -1)) return q;
  for (size_t axis = 0; axis < dims.size(); ++axis) {
    if (dims[axis] <= 1) continue;
    if (auto grids = fit_slices(a, b, dims, static_cast<int>(axis));
        grids && log10_chance(*grids) <= kMaxLog10Chance)
      if (auto q = as_quantization(*grids, static_cast<int>(axis))) return q;
  }
  return std::nullopt;
}

std::string Quantization::describe() const {
  bool symmetric = dtype[0] == 'i';
  double lo = INFINITY, hi = 0;
  int64_t zlo = INT64_MAX, zhi = 0;
  for (size_t k = 0; k < scales.size(); ++k) {
    if (scales[k] == 0) continue;  // an all-zero slice: any scale
    lo = std::min(lo, scales[k]);
    hi = std::max(hi, scales[k]);
    zlo = std::min(zlo, zero_points[k]);
    zhi = std::max(zhi, zero_points[k]);
  }
  std::string s = dtype + (symmetric ? ", symmetric" : "");
  const bool many = axis >= 0;
  if (many) s += strfmt(", per axis %d: %zu", axis, scales.size());
  s += many ? " scales " : ", scale ";
  s += range_text(lo, hi, "%.6g");
  if (!symmetric)
    s += (zlo == zhi ? ", zero point " : ", zero points ") + range_text(double(zlo), double(zhi), "%.0f");
  return s;
}

}  // namespace plumb::check
