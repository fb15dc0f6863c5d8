// The statistics of `--tolerance auto` (bound.h): the squared deviations the stochastic runs
// collect, the per-tensor noise bound decided from them, and the noise of fed expected values.
// The stochastic graph those runs execute is built in stochastic_graph.cpp.
#include "check/bound.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "check/eval.h"
#include "runtime/cpu/ref/dispatch.h"
#include "runtime/cpu/ref/float_formats.h"

namespace plumb::check {

void add_squared_deviation(const rt::RtValue& sample, const rt::RtValue& center, rt::RtValue& sumsq) {
  if (!sample.is_tensor() || !center.is_tensor()) return;
  const rt::Tensor& a = sample.tensor();
  const rt::Tensor& b = center.tensor();
  if (a.dtype != ir::DType::F64 || b.dtype != ir::DType::F64 || a.shape != b.shape) return;
  // A default RtValue is an empty-shaped tensor with no data: test the data too (rank 0 results).
  if (!sumsq.is_tensor() || sumsq.tensor().data == nullptr || sumsq.tensor().dtype != ir::DType::F64 ||
      sumsq.tensor().shape != a.shape) {
    sumsq = rt::RtValue(rt::Tensor::allocate(ir::DType::F64, a.shape));
    std::fill_n(sumsq.tensor().as<double>(), a.numel(), 0.0);
  }
  double* s = sumsq.tensor().as<double>();
  const double* x = a.as<double>();
  const double* y = b.as<double>();
  const int64_t n = a.numel();  // (numel() is a product over the shape: not per element)
  for (int64_t i = 0; i < n; ++i) {
    const double d = x[i] - y[i];
    if (std::isfinite(d)) s[i] += d * d;
  }
}

std::vector<double> noise_variance(const NoiseSamples& s, int64_t n) {
  if (s.runs <= 0 || !s.sumsq || !s.sumsq->is_tensor()) return {};
  const rt::Tensor& t = s.sumsq->tensor();
  if (!t.data || t.dtype != ir::DType::F64 || t.numel() != n) return {};
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = t.as<double>()[i] / s.runs;
  return v;
}

rt::RtValue perturbed_input(const rt::RtValue& x, const std::vector<double>& var, uint64_t seed) {
  if (!x.is_tensor() || !x.tensor().data || !ir::is_float(x.tensor().dtype)) return x;
  const rt::Tensor& t = x.tensor();
  const ir::DType dt = t.dtype;
  const double u = eps_of(dt) / 2;
  rt::Tensor out = rt::Tensor::allocate(dt, t.shape);
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  rt::visit_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T> || rt::is_narrow_float_v<T>) {
      const int64_t n = t.numel();  // (numel() is a product over the shape: not per element)
      for (int64_t i = 0; i < n; ++i) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;  // xorshift64
        const double z = (static_cast<double>(state >> 11) * 0x1p-53 * 2 - 1) * std::sqrt(3.0);
        double v;
        if constexpr (rt::is_narrow_float_v<T>)
          v = rt::to_f64(t.as<T>()[i]);
        else
          v = static_cast<double>(t.as<T>()[i]);
        const double own = i < static_cast<int64_t>(var.size()) && std::isfinite(var[i]) ? var[i] : 0.0;
        const double moved = std::isfinite(v) ? v + std::sqrt(own + 4 * u * u * v * v / 3) * z : v;
        if constexpr (std::is_same_v<T, float>)
          out.as<T>()[i] = static_cast<float>(moved);
        else if constexpr (std::is_same_v<T, double>)
          out.as<T>()[i] = moved;
        else if constexpr (std::is_same_v<T, rt::f16>)
          out.as<T>()[i] = rt::to_f16(moved);
        else if constexpr (std::is_same_v<T, rt::bf16>)
          out.as<T>()[i] = rt::to_bf16(moved);
        else
          out.as<T>()[i] = t.as<T>()[i];  // the 8- and 4-bit floats: unchanged
      }
    }
  });
  return rt::RtValue(std::move(out));
}

double t_quantile_1e4(int dof) {
  // Student's t, P(|T| > t) = 1e-4 (upper 0.99995 point), dof 1..30; the normal point beyond.
  static constexpr double kT[] = {6366.2, 100.14, 28.000, 15.544, 11.178, 9.0823, 7.8846, 7.1200,
                                  6.5937, 6.2111, 5.9212, 5.6945, 5.5125, 5.3634, 5.2391, 5.1339,
                                  5.0438, 4.9660, 4.8978, 4.8373, 4.7838, 4.7356, 4.6924, 4.6532,
                                  4.6178, 4.5852, 4.5555, 4.5280, 4.5027, 4.4791};
  if (dof < 1) return std::numeric_limits<double>::infinity();
  if (dof <= 30) return kT[dof - 1];
  return 3.8906;
}

NoiseBound noise_bound(const std::vector<double>& r, const std::vector<NoiseSamples>& sets) {
  NoiseBound b;
  const size_t n = r.size();
  std::vector<double> var(n, 0.0);
  for (const NoiseSamples& s : sets) {
    b.set_rms.push_back(0);
    if (s.runs <= 0 || !s.sumsq || !s.sumsq->is_tensor()) continue;
    const rt::Tensor& t = s.sumsq->tensor();
    if (!t.data || t.dtype != ir::DType::F64 || static_cast<size_t>(t.numel()) != n) continue;
    b.samples = b.samples == 0 ? s.runs : std::min(b.samples, s.runs);
    double sum = 0;
    for (size_t i = 0; i < n; ++i) {
      const double v = t.as<double>()[i] / s.runs;
      var[i] += v;
      sum += v;
    }
    b.set_rms.back() = n ? std::sqrt(sum / static_cast<double>(n)) : 0;
  }
  if (!b.available()) return b;
  b.z_element = t_quantile_1e4(b.samples);
  // S^2 pools N*K squared deviations (the pooled-variance degrees of freedom): for a scalar the
  // aggregate test is the element test, for large tensors the normal point.
  const double dof = static_cast<double>(b.samples) * static_cast<double>(n);
  b.z_aggregate = t_quantile_1e4(dof > 1e6 ? 1000000 : static_cast<int>(dof));
  double total = 0, mag = 0;
  for (size_t i = 0; i < n; ++i) {
    total += var[i];
    if (std::isfinite(r[i])) mag += r[i] * r[i];
  }
  const double mean = n ? total / static_cast<double>(n) : 0;
  const double kappa2 = mag > 0 ? total / mag : 0;
  b.sigma_rms = std::sqrt(mean);
  b.scale.resize(n);
  bool any_nonzero = false, all_admitted = true;
  for (size_t i = 0; i < n; ++i) {
    const double ri = std::isfinite(r[i]) ? r[i] : 0;
    b.scale[i] = std::sqrt(var[i] + mean + kappa2 * ri * ri);
    if (ri != 0) {
      any_nonzero = true;
      if (std::fabs(ri) > b.z_element * b.scale[i]) all_admitted = false;
    }
  }
  b.all_zero_admitted = any_nonzero && all_admitted && b.sigma_rms > 0;
  return b;
}

BoundRatio bound_ratio(const NoiseBound& b, const std::vector<double>& r, const std::vector<double>& x) {
  BoundRatio q;
  const double inf = std::numeric_limits<double>::infinity();
  double ss = 0;
  size_t n = 0;
  for (size_t i = 0; i < r.size() && i < x.size(); ++i) {
    if (!std::isfinite(r[i]) || !std::isfinite(x[i])) continue;  // special values compare exactly
    const double d = std::fabs(x[i] - r[i]);
    ss += d * d;
    ++n;
    if (d == 0) continue;
    const double allowed = b.z_element * (i < b.scale.size() ? b.scale[i] : 0);
    q.element = std::max(q.element, allowed > 0 ? d / allowed : inf);
  }
  if (n > 0 && ss > 0) {
    const double allowed = b.z_aggregate * b.sigma_rms;
    const double rms = std::sqrt(ss / static_cast<double>(n));
    q.aggregate = allowed > 0 ? rms / allowed : inf;
  }
  return q;
}

}  // namespace plumb::check
