// The cuda backend's kernels against ref, on a GPU. Every test here needs one: on a machine
// without (the build machines, CI) each is skipped with the device's reason (GTEST_SKIP: listed
// as skipped, never a silent pass). tools/device_check.sh runs them where a GPU is lent.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ir/builder.h"
#include "runtime/cuda/cuda_backend.h"
#include "runtime/session.h"
#include "tests/backends/run_on_backend.h"

namespace plumb::rt {
namespace {

using ir::BinaryKind;
using ir::Builder;
using ir::DType;
using ir::Type;
using testing::run_on_backend;

#define SKIP_WITHOUT_GPU()                           \
  do {                                               \
    const Status dev = cuda::device_status();        \
    if (!dev.is_ok()) GTEST_SKIP() << dev.message(); \
  } while (0)

bool computed_float(DType dt) {
  return dt == DType::F16 || dt == DType::BF16 || dt == DType::F32 || dt == DType::F64;
}

// Pseudo-random bits (every float pattern: NaN, inf, denormals, -0), bool as 0/1; or, with
// `small`, floats in [-1, 1).
Tensor random_tensor(DType dt, std::vector<int64_t> dims, uint32_t seed, bool small = false) {
  Tensor t = Tensor::allocate(dt, std::move(dims));
  auto* p = t.as<uint8_t>();
  uint32_t s = seed * 2654435761u + 7;
  for (int64_t i = 0; i < t.nbytes(); ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = static_cast<uint8_t>(s >> 24);
  }
  if (dt == DType::Bool)
    for (int64_t i = 0; i < t.numel(); ++i) p[i] &= 1;
  if (small && (dt == DType::F32 || dt == DType::F64)) {
    for (int64_t i = 0; i < t.numel(); ++i) {
      s = s * 1664525u + 1013904223u;
      const double v = static_cast<double>(s >> 8) / static_cast<double>(1 << 23) - 1.0;
      if (dt == DType::F32)
        t.as<float>()[i] = static_cast<float>(v);
      else
        t.as<double>()[i] = v;
    }
  }
  return t;
}

// Bit-identical, NaN matching any NaN (the Exact class).
void expect_exact(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.dtype, b.dtype) << what;
  ASSERT_EQ(a.shape, b.shape) << what;
  const int64_t w = runtime_elem_bytes(a.dtype);
  int bad = 0;
  for (int64_t i = 0; i < a.numel() && bad < 5; ++i) {
    const auto* x = a.as<uint8_t>() + i * w;
    const auto* y = b.as<uint8_t>() + i * w;
    if (std::memcmp(x, y, static_cast<size_t>(w)) == 0) continue;
    if (computed_float(a.dtype)) {
      double u = 0, v = 0;
      if (a.dtype == DType::F32) {
        u = a.as<float>()[i];
        v = b.as<float>()[i];
      } else if (a.dtype == DType::F64) {
        u = a.as<double>()[i];
        v = b.as<double>()[i];
      } else {  // f16/bf16: NaN when the exponent is all ones and the mantissa is not zero
        uint16_t p, q;
        std::memcpy(&p, x, 2);
        std::memcpy(&q, y, 2);
        const uint16_t exp = a.dtype == DType::F16 ? 0x7C00 : 0x7F80;
        const bool pn = (p & exp) == exp && (p & ~exp & 0x7FFF), qn = (q & exp) == exp && (q & ~exp & 0x7FFF);
        if (pn && qn) continue;
      }
      if (std::isnan(u) && std::isnan(v)) continue;
    }
    ADD_FAILURE() << what << ": element " << i << " differs";
    ++bad;
  }
}

// One node on cuda and on ref, every result compared exactly; and cuda really ran it.
void same_as_ref(const ir::Graph& g, const std::vector<Tensor>& in, const std::string& what) {
  std::string dispatch;
  const auto c = run_on_backend(g, "cuda", in, &dispatch);
  const auto r = run_on_backend(g, "ref", in);
  ASSERT_EQ(c.size(), r.size()) << what;
  EXPECT_NE(dispatch.find("cuda span"), std::string::npos) << what << ":\n" << dispatch;
  for (size_t k = 0; k < c.size(); ++k) expect_exact(c[k].tensor(), r[k].tensor(), what);
}

const DType kDtypes[] = {DType::F16, DType::BF16, DType::F32, DType::F64,
                         DType::I8,  DType::I32,  DType::U16, DType::U64};

TEST(CudaGpu, UnaryMatchesRef) {
  SKIP_WITHOUT_GPU();
  for (DType dt : {DType::F16, DType::BF16, DType::F32, DType::F64})
    for (ir::UnaryKind k : {ir::UnaryKind::Neg, ir::UnaryKind::Abs, ir::UnaryKind::Sign, ir::UnaryKind::Floor,
                            ir::UnaryKind::Ceil, ir::UnaryKind::Round, ir::UnaryKind::Sqrt}) {
      ir::Graph g;
      Builder b(g);
      b.output(b.unary(k, b.input(Type::tensor(dt, {1000}), "x")), "y");
      same_as_ref(g, {random_tensor(dt, {1000}, 1)}, std::string(ir::dtype_name(dt)));
    }
  for (DType dt : {DType::I8, DType::I64, DType::U32})
    for (ir::UnaryKind k : {ir::UnaryKind::Sign, ir::UnaryKind::Not}) {
      ir::Graph g;
      Builder b(g);
      b.output(b.unary(k, b.input(Type::tensor(dt, {257}), "x")), "y");
      same_as_ref(g, {random_tensor(dt, {257}, 2)}, std::string(ir::dtype_name(dt)));
    }
}

TEST(CudaGpu, BinaryAndCompareMatchRef) {
  SKIP_WITHOUT_GPU();
  for (DType dt : kDtypes) {
    const bool f = computed_float(dt);
    std::vector<BinaryKind> kinds = {BinaryKind::Add, BinaryKind::Sub, BinaryKind::Mul, BinaryKind::Max,
                                     BinaryKind::Min};
    if (f) kinds.insert(kinds.end(), {BinaryKind::Div, BinaryKind::Rem});
    if (!f) kinds.insert(kinds.end(), {BinaryKind::And, BinaryKind::Xor});
    for (BinaryKind k : kinds) {
      ir::Graph g;
      Builder b(g);
      auto x = b.input(Type::tensor(dt, {3, 333}), "x");
      auto y = b.input(Type::tensor(dt, {3, 333}), "y");
      b.output(b.binary(k, x, y), "z");
      b.output(b.compare(ir::CompareKind::Le, x, y), "c");
      same_as_ref(g, {random_tensor(dt, {3, 333}, 3), random_tensor(dt, {3, 333}, 4)},
                  std::string(ir::dtype_name(dt)));
    }
  }
}

TEST(CudaGpu, CastsMatchRef) {
  SKIP_WITHOUT_GPU();
  const DType all[] = {DType::Bool, DType::I8,   DType::I64, DType::U32,
                       DType::F16,  DType::BF16, DType::F32, DType::F64};
  for (DType from : all)
    for (DType to : all) {
      if (computed_float(from) && !computed_float(to) && to != DType::Bool) continue;  // declined: cast.R1
      if (from == DType::I64 && to == DType::BF16) continue;                           // declined
      ir::Graph g;
      Builder b(g);
      b.output(b.cast(b.input(Type::tensor(from, {999}), "x"), to), "y");
      same_as_ref(g, {random_tensor(from, {999}, 5)},
                  std::string(ir::dtype_name(from)) + " -> " + std::string(ir::dtype_name(to)));
    }
}

TEST(CudaGpu, ReduceSelectAndLayoutMatchRef) {
  SKIP_WITHOUT_GPU();
  for (DType dt : kDtypes)
    for (ir::ReduceKind k :
         {ir::ReduceKind::Sum, ir::ReduceKind::Prod, ir::ReduceKind::Max, ir::ReduceKind::Min}) {
      ir::Graph g;
      Builder b(g);
      auto x = b.input(Type::tensor(dt, {4, 5, 6}), "x");
      b.output(b.reduce(k, x, {0, 2}), "a");
      b.output(b.reduce(k, x, {}), "b");
      b.output(b.reduce(k, x, {0, 1, 2}), "c");
      same_as_ref(g, {random_tensor(dt, {4, 5, 6}, 6, true)}, std::string(ir::dtype_name(dt)));
    }
  ir::Graph g;
  Builder b(g);
  auto c = b.input(Type::tensor(DType::Bool, {2, 3, 4}), "c");
  auto x = b.input(Type::tensor(DType::F16, {2, 3, 4}), "x");
  auto y = b.input(Type::tensor(DType::F16, {2, 3, 4}), "y");
  auto s = b.select(c, x, y);
  auto t = b.transpose(s, {2, 0, 1});
  auto r = b.reshape(t, b.shape_const({4, 6}));
  auto v = b.input(Type::tensor(DType::F16, {4, 1}), "v");
  auto w = b.broadcast(v, b.shape_const({4, 3}), {0, 1});
  b.output(b.concat({r, w, r}, 1), "z");
  same_as_ref(g,
              {random_tensor(DType::Bool, {2, 3, 4}, 7), random_tensor(DType::F16, {2, 3, 4}, 8),
               random_tensor(DType::F16, {2, 3, 4}, 9), random_tensor(DType::F16, {4, 1}, 10)},
              "select/transpose/reshape/broadcast/concat");
}

TEST(CudaGpu, PlainMatmulIsTheSpecLoop) {
  SKIP_WITHOUT_GPU();
  for (auto [dt, to] : {std::pair{DType::F16, DType::F32}, std::pair{DType::BF16, DType::BF16},
                        std::pair{DType::I8, DType::I32}, std::pair{DType::U64, DType::U64}}) {
    ir::Graph g;
    Builder b(g);
    auto x = b.input(Type::tensor(dt, {2, 17, 33}), "x");
    auto y = b.input(Type::tensor(dt, {2, 33, 9}), "y");
    b.output(b.matmul(x, y, to), "z");
    same_as_ref(g, {random_tensor(dt, {2, 17, 33}, 11), random_tensor(dt, {2, 33, 9}, 12)},
                std::string(ir::dtype_name(dt)));
  }
}

// f32 matmul on cuBLAS: within the DotProduct bound of ref's result (|r - ref| <= 2 n eps s,
// both within n eps s of the exact value), never -0, and two runs bit-identical.
TEST(CudaGpu, CublasMatmulWithinDotProductAndDeterministic) {
  SKIP_WITHOUT_GPU();
  const int64_t M = 64, K = 300, N = 48;
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {M, K}), "x");
  auto y = b.input(Type::tensor(DType::F32, {K, N}), "y");
  b.output(b.matmul(x, y, DType::F32), "z");
  const std::vector<Tensor> in = {random_tensor(DType::F32, {M, K}, 13, true),
                                  random_tensor(DType::F32, {K, N}, 14, true)};
  const auto c1 = run_on_backend(g, "cuda", in);
  const auto c2 = run_on_backend(g, "cuda", in);
  const auto r = run_on_backend(g, "ref", in);
  ASSERT_EQ(c1.size(), 1u);
  ASSERT_EQ(r.size(), 1u);
  expect_exact(c1[0].tensor(), c2[0].tensor(), "two cuda runs");
  const float* a = in[0].as<float>();
  const float* w = in[1].as<float>();
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += std::fabs(double(a[m * K + k])) * std::fabs(double(w[k * N + n]));
      const float got = c1[0].tensor().as<float>()[m * N + n], want = r[0].tensor().as<float>()[m * N + n];
      EXPECT_LE(std::fabs(double(got) - double(want)), 2 * K * 0x1p-24 * s + 0x1p-23 * std::fabs(want))
          << m << "," << n;
      EXPECT_FALSE(got == 0 && std::signbit(got)) << "-0 at " << m << "," << n;
    }
}

// Operands with inf/NaN or products near FLT_MAX: the guard sends the span to the spec's loop,
// so the special values are ref's exactly.
TEST(CudaGpu, GuardedMatmulSpecialValuesAreRefs) {
  SKIP_WITHOUT_GPU();
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {3, 40}), "x");
  auto y = b.input(Type::tensor(DType::F32, {40, 5}), "y");
  b.output(b.matmul(x, y, DType::F32), "z");
  Tensor a = random_tensor(DType::F32, {3, 40}, 15, true), w = random_tensor(DType::F32, {40, 5}, 16, true);
  a.as<float>()[3] = 3e38f;
  w.as<float>()[3 * 5 + 1] = 3e38f;
  a.as<float>()[41] = INFINITY;
  w.as<float>()[7] = -0.0f;
  same_as_ref(g, {a, w}, "guarded f32 matmul");
}

TEST(CudaGpu, DeclinedNodesRunOnRefWithCopies) {
  SKIP_WITHOUT_GPU();
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::I32, {64}), "x");
  auto y = b.input(Type::tensor(DType::I32, {64}), "y");
  auto s = b.binary(BinaryKind::Add, x, y);        // cuda
  auto q = b.binary(BinaryKind::Div, s, y);        // ref (binary.R1)
  b.output(b.binary(BinaryKind::Mul, q, s), "z");  // cuda
  Tensor yt = random_tensor(DType::I32, {64}, 18);
  for (int64_t i = 0; i < 64; ++i) yt.as<int32_t>()[i] |= 1;  // no division by zero
  same_as_ref(g, {random_tensor(DType::I32, {64}, 17), yt}, "mixed cuda/ref");
}

ir::ConvAttrs conv_attrs(DType to, int64_t groups) {
  ir::ConvAttrs a;
  a.to = to;
  a.strides = {2, 1};
  a.dilations = {1, 2};
  a.lhs_dilations = {1, 1};
  a.pads_low = {1, 2};
  a.pads_high = {0, 1};
  a.groups = groups;
  return a;
}

TEST(CudaGpu, ConvSpecLoopMatchesRefExactly) {
  SKIP_WITHOUT_GPU();
  for (auto [dt, to] : {std::pair{DType::F16, DType::F32}, std::pair{DType::BF16, DType::BF16},
                        std::pair{DType::I8, DType::I32}}) {
    ir::Graph g;
    Builder b(g);
    auto x = b.input(Type::tensor(dt, {2, 4, 9, 8}), "x");
    auto w = b.input(Type::tensor(dt, {6, 2, 3, 3}), "w");
    b.output(b.conv(conv_attrs(to, 2), x, w), "y");
    same_as_ref(g, {random_tensor(dt, {2, 4, 9, 8}, 21), random_tensor(dt, {6, 2, 3, 3}, 22)},
                std::string(ir::dtype_name(dt)));
  }
}

TEST(CudaGpu, ConvF32Im2colWithinDotProductAndGuarded) {
  SKIP_WITHOUT_GPU();
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {2, 4, 9, 8}), "x");
  auto w = b.input(Type::tensor(DType::F32, {6, 2, 3, 3}), "w");
  b.output(b.conv(conv_attrs(DType::F32, 2), x, w), "y");
  const std::vector<Tensor> in = {random_tensor(DType::F32, {2, 4, 9, 8}, 23, true),
                                  random_tensor(DType::F32, {6, 2, 3, 3}, 24, true)};
  const auto c1 = run_on_backend(g, "cuda", in), c2 = run_on_backend(g, "cuda", in),
             r = run_on_backend(g, "ref", in);
  ASSERT_EQ(c1.size(), 1u);
  ASSERT_EQ(r.size(), 1u);
  expect_exact(c1[0].tensor(), c2[0].tensor(), "two cuda runs");
  // |x|, |w| < 1 and 2 * 9 terms: |r - ref| <= 2 * 18 * eps * 18
  const Tensor& ct = c1[0].tensor();
  const Tensor& rt = r[0].tensor();
  for (int64_t i = 0; i < ct.numel(); ++i)
    EXPECT_LE(std::fabs(double(ct.as<float>()[i]) - double(rt.as<float>()[i])), 2 * 18 * 0x1p-24 * 18) << i;
  // A NaN weight: the guard runs the spec's loop, so which results are NaN (the terms that the
  // padding skips contribute none) is ref's exactly.
  Tensor wn = random_tensor(DType::F32, {6, 2, 3, 3}, 24, true);
  wn.as<float>()[0] = NAN;
  same_as_ref(g, {in[0], wn}, "conv with a NaN weight");
}

TEST(CudaGpu, PoolMatchesRefExactly) {
  SKIP_WITHOUT_GPU();
  for (DType dt : {DType::F16, DType::F32, DType::F64, DType::I32, DType::U8}) {
    for (ir::PoolKind k : {ir::PoolKind::Max, ir::PoolKind::Sum}) {
      ir::Graph g;
      Builder b(g);
      auto x = b.input(Type::tensor(dt, {2, 3, 8, 7}), "x");
      ir::PoolAttrs a;
      a.kind = k;
      a.window = {1, 1, 3, 2};
      a.strides = {1, 1, 2, 2};
      a.dilations = {1, 1, 1, 2};
      a.pads_low = {0, 0, 1, 1};
      a.pads_high = {0, 0, 1, 0};
      const auto outs = b.pool(a, x, k == ir::PoolKind::Max ? 2 : 1);
      for (size_t i = 0; i < outs.size(); ++i) b.output(outs[i], "y" + std::to_string(i));
      same_as_ref(g, {random_tensor(dt, {2, 3, 8, 7}, 25)}, std::string(ir::dtype_name(dt)));
    }
  }
}

TEST(CudaGpu, SliceAndPadMatchRef) {
  SKIP_WITHOUT_GPU();
  for (ir::PadMode mode :
       {ir::PadMode::Constant, ir::PadMode::Reflect, ir::PadMode::Edge, ir::PadMode::Wrap}) {
    ir::Graph g;
    Builder b(g);
    auto x = b.input(Type::tensor(DType::F32, {4, 6, 5}), "x");
    auto s = b.slice(x, b.const_ints(DType::I64, {3}, {3, 1, 0}), b.const_ints(DType::I64, {3}, {2, 3, 5}),
                     b.const_ints(DType::I64, {3}, {-2, 2, 1}));
    auto p = b.pad(s, b.const_ints(DType::I64, {3}, {1, 2, 0}), b.const_ints(DType::I64, {3}, {1, 0, 4}),
                   b.scalar_float(DType::F32, -7.5), mode);
    b.output(p, "y");
    same_as_ref(g, {random_tensor(DType::F32, {4, 6, 5}, 31)}, "slice + pad");
  }
}

TEST(CudaGpu, GatherMatchesRefAndReportsRefsError) {
  SKIP_WITHOUT_GPU();
  for (DType it : {DType::I32, DType::I64}) {
    ir::Graph g;
    Builder b(g);
    auto x = b.input(Type::tensor(DType::BF16, {3, 5, 4}), "x");
    auto i = b.input(Type::tensor(it, {2, 3}), "i");
    b.output(b.gather(ir::GatherKind::Axis, x, i, 1), "y");
    Tensor idx = Tensor::allocate(it, {2, 3});
    for (int64_t k = 0; k < 6; ++k) {
      if (it == DType::I32)
        idx.as<int32_t>()[k] = static_cast<int32_t>((k * 3) % 5);
      else
        idx.as<int64_t>()[k] = (k * 3) % 5;
    }
    same_as_ref(g, {random_tensor(DType::BF16, {3, 5, 4}, 41), idx}, "gather");
    // index 5 of an extent of 5: gather.R1, with ref's words
    if (it == DType::I32)
      idx.as<int32_t>()[4] = 5;
    else
      idx.as<int64_t>()[4] = 5;
    const std::vector<Tensor> in = {random_tensor(DType::BF16, {3, 5, 4}, 41), idx};
    Status errs[2];
    const char* names[2] = {"cuda", "ref"};
    for (int k = 0; k < 2; ++k) {
      SessionOptions o;
      o.backend = names[k];
      auto s = Session::create(g, o);
      ASSERT_TRUE(s.has_value()) << s.status().to_string();
      for (size_t j = 0; j < in.size(); ++j) ASSERT_TRUE((*s)->set_input(j, RtValue(in[j])).is_ok());
      errs[k] = (*s)->run();
    }
    EXPECT_FALSE(errs[0].is_ok());
    EXPECT_EQ(errs[0].to_string(), errs[1].to_string());
  }
}

}  // namespace
}  // namespace plumb::rt
