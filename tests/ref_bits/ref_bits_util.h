// Helpers of the ref_bits tests (issue 17): operands with special values, the comparison (bit
// for bit but for NaN payloads, which the spec leaves open), and the run of one node on the
// baseline kernel (tests/ref_baseline) and on ref at 1, 2 and 3 threads.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "runtime/cpu/ref/float_formats.h"
#include "tests/ref/kernel_test_util.h"
#include "tests/ref_baseline/baseline_kernels.h"

namespace plumb::rt::ref_bits {

using Ints = std::vector<int64_t>;

// Mostly modest values of mixed sign and magnitude (so that sums round), with the special ones
// sprinkled in: NaNs of both signs and with payloads, +-inf, -0, subnormals.
inline double pick(std::mt19937_64& rng, bool specials) {
  const uint64_t r = rng();
  if (specials) {
    switch (r % 97) {
      case 0: return std::numeric_limits<double>::quiet_NaN();
      case 1: return std::numeric_limits<double>::infinity();
      case 2: return -std::numeric_limits<double>::infinity();
      case 3: return -0.0;
      case 4: return 1e-40;  // subnormal in f32
      case 5: return -std::numeric_limits<double>::quiet_NaN();
      case 6: {  // a NaN with a payload: which operand's NaN a result carries shows
        uint64_t bits = 0x7ff8000000000000ull | (r >> 12 & 0xfff) << 29;
        double x;
        std::memcpy(&x, &bits, sizeof x);
        return x;
      }
      default: break;
    }
  }
  const double mant = static_cast<double>(static_cast<int64_t>((r >> 8) % 20001) - 10000) / 997.0;
  return std::ldexp(mant, static_cast<int>((r >> 40) % 9) - 4);
}

inline Tensor random_tensor(ir::DType dt, Ints shape, uint64_t seed, bool specials) {
  std::mt19937_64 rng(seed);
  Tensor t = Tensor::allocate(dt, std::move(shape));
  const int64_t n = t.numel();
  switch (dt) {
    case ir::DType::F32:
      for (int64_t i = 0; i < n; ++i) t.as<float>()[i] = static_cast<float>(pick(rng, specials));
      break;
    case ir::DType::F64:
      for (int64_t i = 0; i < n; ++i)
        t.as<double>()[i] = pick(rng, specials) * (1 + 1e-9 * static_cast<double>(i % 7));
      break;
    case ir::DType::F16:
      for (int64_t i = 0; i < n; ++i) t.as<f16>()[i] = to_f16(pick(rng, specials));
      break;
    case ir::DType::BF16:
      for (int64_t i = 0; i < n; ++i) t.as<bf16>()[i] = to_bf16(pick(rng, specials));
      break;
    default: {  // integers: any bits
      auto* p = static_cast<uint8_t*>(t.data);
      for (int64_t i = 0; i < static_cast<int64_t>(t.nbytes()); ++i) p[i] = static_cast<uint8_t>(rng());
    }
  }
  return t;
}

// Bit for bit, except that any NaN equals any NaN: which operand's NaN an operation with two NaN
// operands returns is not specified (spec/numerics.md), and the baseline kernels' choice is the
// compiler's (a Debug ASan build and a Release build of the same loop pick differently).
template <typename T, typename IsNan>
bool same_values_of(const Tensor& a, const Tensor& b, IsNan is_nan) {
  const T* x = a.as<T>();
  const T* y = b.as<T>();
  for (int64_t i = 0; i < a.numel(); ++i) {
    if (is_nan(x[i]) && is_nan(y[i])) continue;
    if (std::memcmp(&x[i], &y[i], sizeof(T)) != 0) return false;
  }
  return true;
}

inline bool same_values(const Tensor& a, const Tensor& b) {
  if (a.dtype != b.dtype || a.shape != b.shape || a.nbytes() != b.nbytes()) return false;
  switch (a.dtype) {
    case ir::DType::F32: return same_values_of<float>(a, b, [](float v) { return std::isnan(v); });
    case ir::DType::F64: return same_values_of<double>(a, b, [](double v) { return std::isnan(v); });
    case ir::DType::F16: return same_values_of<f16>(a, b, [](f16 v) { return std::isnan(to_f64(v)); });
    case ir::DType::BF16: return same_values_of<bf16>(a, b, [](bf16 v) { return std::isnan(to_f64(v)); });
    default: return std::memcmp(a.data, b.data, static_cast<size_t>(a.nbytes())) == 0;
  }
}

// Runs `base` (the attributes and inputs) on the baseline kernel and on ref at 1, 2, 3 threads.
inline void expect_same_bits(const KernelRun& base, ir::Op op, const std::string& what) {
  KernelRun old = base;
  const KernelResult want = old.kernel(ref_baseline::kernel_of(op)).run();
  ASSERT_TRUE(want.status.is_ok()) << what << ": " << want.status.to_string();
  for (int threads : {1, 2, 3}) {
    KernelRun now = base;
    const KernelResult got = now.threads(threads).run();
    ASSERT_TRUE(got.status.is_ok()) << what << ": " << got.status.to_string();
    EXPECT_TRUE(same_values(got.out(0), want.out(0))) << what << " at " << threads << " threads: bits differ";
  }
}

}  // namespace plumb::rt::ref_bits
