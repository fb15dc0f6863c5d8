// Google Benchmark: the cpu backend's f32 matmul at 1024^3 (issue 16's acceptance: at least 75% of
// the core's f32 peak), through rt::Session as a model runs it, beside the peak it is measured
// against, in the same run:
//   BM_cpu_matmul_f32_1024/T        y = x @ w, w a constant (prepacked once in prepare), T threads;
//   BM_cpu_matmul_f32_1024_rhs/T    w a graph input (oneDNN reads it plain at run time);
//   BM_fma_peak_ymm/T, _zmm/T       the core's f32 FMA throughput: 12 independent FMA chains per
//                                   thread (more than latency x issue width on current x86 cores),
//                                   no memory traffic; its FLOP/s is the peak the fraction divides.
// Counters: FLOP/s (2 per multiply-add). The fraction of peak is BM_cpu_matmul's FLOP/s over
// BM_fma_peak's at the same thread count (the better of ymm and zmm), on the same machine in the
// same run, so the clock the cores ran at is the same in both.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "ir/builder.h"
#include "runtime/session.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PLUMB_BENCH_X86 1
#endif

namespace plumb::rt {
namespace {

std::vector<double> filled(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 37) % 101) * 0.01 - 0.5;
  return v;
}

void cpu_matmul(benchmark::State& state, int64_t n, bool constant_rhs) {
  ir::Graph g;
  ir::Builder b(g);
  const ir::Type t = ir::Type::tensor(ir::DType::F32, {n, n});
  const ir::ValueId x = b.input(t, "x");
  const ir::ValueId w =
      constant_rhs ? b.const_floats(ir::DType::F32, {n, n}, filled(n * n)) : b.input(t, "w");
  b.output(b.matmul(x, w, ir::DType::F32), "y");
  SessionOptions o;
  o.backend = "cpu";
  o.threads = static_cast<int>(state.range(0));
  std::string dispatch;
  o.on_schedule = [&dispatch](const std::string& s) { dispatch += s; };
  auto s = Session::create(std::move(g), o);
  if (!s) {
    state.SkipWithError(s.status().to_string().c_str());
    return;
  }
  Tensor in = Tensor::allocate(ir::DType::F32, {n, n});
  for (int64_t i = 0; i < in.numel(); ++i)
    in.as<float>()[i] = static_cast<float>((i * 17) % 89) * 0.01f - 0.4f;
  for (size_t k = 0; k < (constant_rhs ? 1u : 2u); ++k) {
    if (Status st = (*s)->set_input(k, RtValue(in)); !st.is_ok()) {
      state.SkipWithError(st.to_string().c_str());
      return;
    }
  }
  if (Status st = (*s)->run(); !st.is_ok()) {  // plans, prepacks and checks where it ran
    state.SkipWithError(st.to_string().c_str());
    return;
  }
  if (dispatch.find("cpu") == std::string::npos) {  // the figure must be oneDNN's, not ref's
    state.SkipWithError(("the matmul did not run on cpu: " + dispatch).c_str());
    return;
  }
  for (auto _ : state) {
    if (Status st = (*s)->run(); !st.is_ok()) {
      state.SkipWithError(st.to_string().c_str());
      return;
    }
  }
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * n * n * n * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
}

void BM_cpu_matmul_f32_1024(benchmark::State& state) { cpu_matmul(state, 1024, true); }
void BM_cpu_matmul_f32_1024_rhs(benchmark::State& state) { cpu_matmul(state, 1024, false); }

#if PLUMB_BENCH_X86
constexpr int64_t kFmaIters = int64_t{1} << 22;

// 12 chains of `iters` dependent FMAs each, written out so that every chain stays in a register
// (an array indexed in a loop is kept in memory at -O2); returns a sum so nothing is dropped.
#define PLUMB_FMA_CHAINS(V, SET1, FMA, ADD)                                             \
  V a0 = SET1(0.000f), a1 = SET1(0.001f), a2 = SET1(0.002f), a3 = SET1(0.003f);         \
  V a4 = SET1(0.004f), a5 = SET1(0.005f), a6 = SET1(0.006f), a7 = SET1(0.007f);         \
  V a8 = SET1(0.008f), a9 = SET1(0.009f), a10 = SET1(0.010f), a11 = SET1(0.011f);       \
  const V m = SET1(0.999999f), c = SET1(1e-7f);                                         \
  for (int64_t i = 0; i < iters; ++i) {                                                 \
    a0 = FMA(a0, m, c), a1 = FMA(a1, m, c), a2 = FMA(a2, m, c), a3 = FMA(a3, m, c);     \
    a4 = FMA(a4, m, c), a5 = FMA(a5, m, c), a6 = FMA(a6, m, c), a7 = FMA(a7, m, c);     \
    a8 = FMA(a8, m, c), a9 = FMA(a9, m, c), a10 = FMA(a10, m, c), a11 = FMA(a11, m, c); \
  }                                                                                     \
  const V s = ADD(ADD(ADD(ADD(a0, a1), ADD(a2, a3)), ADD(ADD(a4, a5), ADD(a6, a7))),    \
                  ADD(ADD(a8, a9), ADD(a10, a11)))

__attribute__((target("avx2,fma"))) float fma_chains_ymm(int64_t iters) {
  PLUMB_FMA_CHAINS(__m256, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_add_ps);
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0];
}

__attribute__((target("avx512f"))) float fma_chains_zmm(int64_t iters) {
  PLUMB_FMA_CHAINS(__m512, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_add_ps);
  float out[16];  // a store, not _mm512_reduce_add_ps (GCC 12 warns in its header)
  _mm512_storeu_ps(out, s);
  return out[0];
}
#undef PLUMB_FMA_CHAINS

// The chains on state.range(0) threads at once (one per core, as the matmul's threads are).
void fma_peak(benchmark::State& state, float (*chains)(int64_t), int lanes) {
  const int threads = static_cast<int>(state.range(0));
  for (auto _ : state) {
    std::vector<float> sink(threads);
    if (threads == 1) {  // on this thread, whose cpu time the 1-thread figure is
      sink[0] = chains(kFmaIters);
    } else {
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t) pool.emplace_back([&, t] { sink[t] = chains(kFmaIters); });
      for (std::thread& th : pool) th.join();
    }
    benchmark::DoNotOptimize(sink.data());
  }
  const double flops = 2.0 * lanes * 12 * static_cast<double>(kFmaIters) * threads;
  state.counters["FLOP/s"] =
      benchmark::Counter(flops * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_fma_peak_ymm(benchmark::State& state) {
  if (!__builtin_cpu_supports("fma") || !__builtin_cpu_supports("avx2")) {
    state.SkipWithError("no AVX2 FMA on this cpu");
    return;
  }
  fma_peak(state, fma_chains_ymm, 8);
}

void BM_fma_peak_zmm(benchmark::State& state) {
  if (!__builtin_cpu_supports("avx512f")) {
    state.SkipWithError("no AVX-512 on this cpu");
    return;
  }
  fma_peak(state, fma_chains_zmm, 16);
}

// At 1 thread the rates are per second of this thread's cpu time (the time it was not preempted:
// the figures stay comparable on a shared machine); at 2 threads per second of wall clock (the
// threads' time together), which other load on the cores inflates.
BENCHMARK(BM_fma_peak_ymm)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_fma_peak_zmm)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_fma_peak_ymm)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_fma_peak_zmm)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
#endif

BENCHMARK(BM_cpu_matmul_f32_1024)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cpu_matmul_f32_1024_rhs)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cpu_matmul_f32_1024)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cpu_matmul_f32_1024_rhs)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace plumb::rt

BENCHMARK_MAIN();
