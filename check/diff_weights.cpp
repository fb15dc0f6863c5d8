#include "check/diff_weights.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ir/narrow_float.h"
#include "ir/status.h"

namespace plumb::check {

namespace {

bool same_element(double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); }

// x rounded to `dt` (nullopt: it does not fit, or overflows to inf from a finite value).
std::optional<double> rounded(ir::DType dt, double x) {
  if (std::isnan(x)) return x;
  const std::optional<uint64_t> bits = ir::double_to_float_bits(dt, x);
  if (!bits) return std::nullopt;
  const double r = ir::float_bits_to_double(dt, *bits);
  if (std::isinf(r) && !std::isinf(x)) return std::nullopt;
  return r;
}

// Both tensors equal once rounded to `dt` (the elements that already agree need no check).
bool equal_after_rounding(ir::DType dt, const std::vector<double>& a, const std::vector<double>& b) {
  for (size_t k = 0; k < a.size(); ++k) {
    if (same_element(a[k], b[k])) continue;
    const std::optional<double> ra = rounded(dt, a[k]), rb = rounded(dt, b[k]);
    if (!ra || !rb || !same_element(*ra, *rb)) return false;
  }
  return true;
}

std::string list(const std::vector<int64_t>& v, size_t most) {
  std::string s;
  for (size_t k = 0; k < v.size() && k < most; ++k) s += (k ? "," : "") + std::to_string(v[k]);
  if (v.size() > most) s += strfmt(",... (%zu)", v.size());
  return s;
}

}  // namespace

std::optional<std::vector<double>> float_constant_values(const ir::ConstantData& c) {
  const ir::DType dt = c.type.dtype;
  if (!c.type.is_tensor() || !ir::is_float(dt) || !ir::shape_is_static(c.type.shape)) return std::nullopt;
  const int bits = ir::float_bits_width(dt);
  if (bits < 8) return std::nullopt;
  const uint64_t n = static_cast<uint64_t>(ir::shape_num_elements(c.type.shape));
  const uint64_t width = static_cast<uint64_t>(bits / 8);
  if (c.size != n * width || (n > 0 && !c.data)) return std::nullopt;
  std::vector<double> out(n);
  for (uint64_t k = 0; k < n; ++k) {
    uint64_t pattern = 0;
    std::memcpy(&pattern, c.data + k * width, width);  // little-endian (spec/numerics.md)
    out[k] = ir::float_bits_to_double(dt, pattern);
  }
  return out;
}

std::optional<WeightDiff> diff_weights(const ir::ConstantData& a, const ir::ConstantData& b) {
  if (a.type != b.type) return std::nullopt;
  const auto va = float_constant_values(a), vb = float_constant_values(b);
  if (!va || !vb || va->size() != vb->size()) return std::nullopt;
  WeightDiff d;
  d.elements = static_cast<int64_t>(va->size());
  std::vector<int64_t> dims;
  for (const ir::Dim& x : a.type.shape) dims.push_back(x.size);
  for (size_t k = 0; k < dims.size() && d.axis < 0; ++k)
    if (dims[k] > 1) d.axis = static_cast<int>(k);
  int64_t inner = 1;  // elements per step along the leading axis
  if (d.axis >= 0) {
    d.slices = dims[d.axis];
    for (size_t k = static_cast<size_t>(d.axis) + 1; k < dims.size(); ++k) inner *= dims[k];
  }
  std::vector<bool> slice_differs(static_cast<size_t>(d.slices), false);
  bool have_scale = true;
  double scale = 0;
  for (size_t k = 0; k < va->size(); ++k) {
    const double x = (*va)[k], y = (*vb)[k];
    if (same_element(x, y)) continue;
    ++d.differ;
    const double abs = std::fabs(y - x);
    d.max_abs = std::isnan(abs) ? abs : std::max(d.max_abs, abs);
    d.max_rel = std::max(d.max_rel, x == 0 ? INFINITY : abs / std::fabs(x));
    if (d.axis >= 0) slice_differs[static_cast<size_t>(static_cast<int64_t>(k) / inner % d.slices)] = true;
    if (x == 0 || !std::isfinite(x) || !std::isfinite(y)) {
      have_scale = false;
    } else if (scale == 0) {
      scale = y / x;
    } else if (std::fabs(y / x - scale) > 1e-5 * std::fabs(scale)) {  // f32 rounding of a scaled value: 6e-8
      have_scale = false;
    }
  }
  if (have_scale) d.scale = scale;
  for (int64_t s = 0; s < d.slices; ++s)
    if (slice_differs[static_cast<size_t>(s)]) d.slices_differ.push_back(s);
  if (d.differ > 0) {
    if (a.type.dtype == ir::DType::F64 && equal_after_rounding(ir::DType::F32, *va, *vb))
      d.loss = "f32";
    else if (equal_after_rounding(ir::DType::F16, *va, *vb))
      d.loss = "f16";
    else if (equal_after_rounding(ir::DType::BF16, *va, *vb))
      d.loss = "bf16";
    else if ((d.quant = find_quantization(*va, *vb, dims)))
      d.loss = d.quant->dtype;
  }
  return d;
}

std::string WeightDiff::describe() const {
  std::string s = loss.empty()
                      ? "real change"
                      : "precision loss (equal after rounding to " + (quant ? quant->describe() : loss) + ")";
  s += strfmt(": %lld of %lld elements differ", static_cast<long long>(differ),
              static_cast<long long>(elements));
  if (axis >= 0 && !slices_differ.empty() && static_cast<int64_t>(slices_differ.size()) < slices)
    s += strfmt(" (slice%s %s of %lld along axis %d)", slices_differ.size() > 1 ? "s" : "",
                list(slices_differ, 4).c_str(), static_cast<long long>(slices), axis);
  if (loss.empty() && scale != 0) s += strfmt(", scaled by %.6g", scale);
  s += strfmt(", max abs diff %.3g, max rel diff %.3g", max_abs, max_rel);
  return s;
}

}  // namespace plumb::check
