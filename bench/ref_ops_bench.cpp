// Google Benchmark: ref kernels (spec/ops/*.md): contraction and window ops, and the baseline
// figures for elementwise, reduction and gather kernels.
// Counters: FLOP/s (2 per multiply-add) and result items per second.
// BM_baseline_*: the same matmul, conv, pool and max on the kernels before issue 17
// (tests/ref_baseline/, bit-identical results), single threaded; BM_ref_* take the thread count as their
// argument
// (/1, /2, ...).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "ir/infer.h"
#include "runtime/cpu/ref/kernel.h"
#if PLUMB_HAVE_REF_BASELINE
#include "tests/ref_baseline/baseline_kernels.h"
#endif

namespace plumb::rt {
namespace {

Tensor filled(std::vector<int64_t> shape) {
  Tensor t = Tensor::allocate(ir::DType::F32, std::move(shape));
  float* p = t.as<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>((i * 37) % 101) * 0.01f - 0.5f;
  return t;
}

using Kernel = Status (*)(ref::KernelCtx&);

// Runs the kernel of `node` (ref's, or `kernel`) over `inputs` into a preallocated result of
// `result_shape`, on `threads` threads.
void run_loop(benchmark::State& state, const ir::Node& node, std::vector<RtValue> inputs,
              std::vector<int64_t> result_shape, double flops_per_run, int threads = 1,
              Kernel kernel = nullptr) {
  std::vector<RtValue> outputs{Tensor::allocate(ir::DType::F32, result_shape)};
  ref::KernelCtx cx{node, {}, {}, NumericMode::kNative};
  cx.threads = threads;
  for (auto& v : inputs) cx.inputs.push_back(&v);
  cx.outputs.push_back(&outputs[0]);
  for (auto _ : state) {
    Status st = kernel ? kernel(cx) : ref::run_kernel(cx);
    if (!st.is_ok()) {
      state.SkipWithError(st.to_string().c_str());
      return;
    }
    benchmark::DoNotOptimize(outputs[0].tensor().data);
  }
  const int64_t items = outputs[0].tensor().numel();
  state.counters["FLOP/s"] = benchmark::Counter(flops_per_run * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
  state.SetItemsProcessed(items * state.iterations());
}

void matmul_f32(benchmark::State& state, int64_t n, int threads, Kernel kernel = nullptr) {
  ir::Node node;
  node.op = ir::Op::MatMul;
  node.attrs.push_back(ir::Attr{"to", ir::DType::F32});
  run_loop(state, node, {filled({n, n}), filled({n, n})}, {n, n}, 2.0 * n * n * n, threads, kernel);
}

void BM_ref_matmul_f32_256(benchmark::State& state) {
  matmul_f32(state, 256, static_cast<int>(state.range(0)));
}
void BM_ref_matmul_f32_1024(benchmark::State& state) {
  matmul_f32(state, 1024, static_cast<int>(state.range(0)));
}

// A 2-D f32 conv node: stride 1, pads 1 (a 3x3 conv keeps the size).
ir::Node conv3x3_node(int64_t groups) {
  ir::Node node;
  node.op = ir::Op::Conv;
  node.attrs = {{"to", ir::DType::F32},
                {"strides", std::vector<int64_t>{1, 1}},
                {"dilations", std::vector<int64_t>{1, 1}},
                {"lhs_dilations", std::vector<int64_t>{1, 1}},
                {"pads_low", std::vector<int64_t>{1, 1}},
                {"pads_high", std::vector<int64_t>{1, 1}},
                {"groups", groups}};
  return node;
}

// 3x3 conv, 64 -> 64 channels, 56x56, pads 1 (a ResNet stage-1 layer), batch 1.
void conv3x3_f32_56x56x64(benchmark::State& state, int threads, Kernel kernel = nullptr) {
  const ir::Node node = conv3x3_node(1);
  run_loop(state, node, {filled({1, 64, 56, 56}), filled({64, 64, 3, 3})}, {1, 64, 56, 56},
           2.0 * 56 * 56 * 64 * 64 * 9, threads, kernel);
}
void BM_ref_conv3x3_f32_56x56x64(benchmark::State& state) {
  conv3x3_f32_56x56x64(state, static_cast<int>(state.range(0)));
}

// Depthwise 3x3 conv, 32 channels, 112x112, pads 1 (a MobileNetV2 block), batch 1.
void depthwise3x3_f32_112x112x32(benchmark::State& state, int threads, Kernel kernel = nullptr) {
  const ir::Node node = conv3x3_node(32);
  run_loop(state, node, {filled({1, 32, 112, 112}), filled({32, 1, 3, 3})}, {1, 32, 112, 112},
           2.0 * 112 * 112 * 32 * 9, threads, kernel);
}
void BM_ref_depthwise3x3_f32_112x112x32(benchmark::State& state) {
  depthwise3x3_f32_112x112x32(state, static_cast<int>(state.range(0)));
}

// 3x3 max pool, stride 2, pads 1, over 64 channels of 112x112 (ResNet's stem), batch 1.
void maxpool3x3s2_f32_112x112x64(benchmark::State& state, Kernel kernel = nullptr) {
  ir::Node node;
  node.op = ir::Op::Pool;
  node.attrs = {
      {"kind", ir::EnumValue{ir::PoolKind::Max}},     {"window", std::vector<int64_t>{1, 1, 3, 3}},
      {"strides", std::vector<int64_t>{1, 1, 2, 2}},  {"dilations", std::vector<int64_t>{1, 1, 1, 1}},
      {"pads_low", std::vector<int64_t>{0, 0, 1, 1}}, {"pads_high", std::vector<int64_t>{0, 0, 1, 1}}};
  run_loop(state, node, {filled({1, 64, 112, 112})}, {1, 64, 56, 56}, 56.0 * 56 * 64 * 9, 1, kernel);
}
void BM_ref_maxpool3x3s2_f32_112x112x64(benchmark::State& state) { maxpool3x3s2_f32_112x112x64(state); }

// Elementwise max over 1M f32 elements (Clip's lower bound).
void max_f32_1M(benchmark::State& state, Kernel kernel = nullptr) {
  ir::Node node;
  node.op = ir::Op::Binary;
  node.attrs = {{"kind", ir::EnumValue{ir::BinaryKind::Max}}};
  run_loop(state, node, {filled({1024, 1024}), filled({1024, 1024})}, {1024, 1024}, 1024.0 * 1024, 1, kernel);
}
void BM_ref_max_f32_1M(benchmark::State& state) { max_f32_1M(state); }

#if PLUMB_HAVE_REF_BASELINE
void BM_baseline_depthwise3x3_f32_112x112x32(benchmark::State& state) {
  depthwise3x3_f32_112x112x32(state, 1, ref_baseline::conv);
}
void BM_baseline_maxpool3x3s2_f32_112x112x64(benchmark::State& state) {
  maxpool3x3s2_f32_112x112x64(state, ref_baseline::pool);
}
void BM_baseline_max_f32_1M(benchmark::State& state) { max_f32_1M(state, ref_baseline::binary); }
BENCHMARK(BM_baseline_depthwise3x3_f32_112x112x32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_baseline_maxpool3x3s2_f32_112x112x64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_baseline_max_f32_1M)->Unit(benchmark::kMillisecond);
#endif
BENCHMARK(BM_ref_depthwise3x3_f32_112x112x32)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ref_maxpool3x3s2_f32_112x112x64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ref_max_f32_1M)->Unit(benchmark::kMillisecond);

#if PLUMB_HAVE_REF_BASELINE
void BM_baseline_matmul_f32_256(benchmark::State& state) { matmul_f32(state, 256, 1, ref_baseline::matmul); }
void BM_baseline_matmul_f32_1024(benchmark::State& state) {
  matmul_f32(state, 1024, 1, ref_baseline::matmul);
}
void BM_baseline_conv3x3_f32_56x56x64(benchmark::State& state) {
  conv3x3_f32_56x56x64(state, 1, ref_baseline::conv);
}
BENCHMARK(BM_baseline_matmul_f32_256)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_baseline_matmul_f32_1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_baseline_conv3x3_f32_56x56x64)->Unit(benchmark::kMillisecond);
#endif

// Elementwise over 1M f32 elements (one FLOP per element).
void BM_ref_add_f32_1M(benchmark::State& state) {
  ir::Node node;
  node.op = ir::Op::Binary;
  node.attrs = {{"kind", ir::EnumValue{ir::BinaryKind::Add}}};
  run_loop(state, node, {filled({1024, 1024}), filled({1024, 1024})}, {1024, 1024}, 1024.0 * 1024);
}

void BM_ref_exp_f32_1M(benchmark::State& state) {
  ir::Node node;
  node.op = ir::Op::Unary;
  node.attrs = {{"kind", ir::EnumValue{ir::UnaryKind::Exp}}};
  run_loop(state, node, {filled({1024, 1024})}, {1024, 1024}, 1024.0 * 1024);
}

// Row sums of a 1024x1024 f32 matrix (sequential f32 accumulation, spec/ops/reduce.md).
void BM_ref_reduce_sum_f32_1024x1024_axis1(benchmark::State& state) {
  ir::Node node;
  node.op = ir::Op::Reduce;
  node.attrs = {{"kind", ir::EnumValue{ir::ReduceKind::Sum}}, {"axes", std::vector<int64_t>{1}}};
  run_loop(state, node, {filled({1024, 1024})}, {1024}, 1024.0 * 1024);
}

// An embedding-style lookup: 1024 rows of 256 f32 out of a 4096-row table.
void BM_ref_gather_f32_1024x256_from_4096(benchmark::State& state) {
  ir::Node node;
  node.op = ir::Op::Gather;
  node.attrs = {
      {"kind", ir::EnumValue{ir::GatherKind::Axis}}, {"axis", int64_t{0}}, {"batch_dims", int64_t{0}}};
  Tensor idx = Tensor::allocate(ir::DType::I64, {1024});
  for (int64_t i = 0; i < 1024; ++i) idx.as<int64_t>()[i] = (i * 2654435761LL) % 4096;
  run_loop(state, node, {filled({4096, 256}), idx}, {1024, 256}, 0.0);
}

BENCHMARK(BM_ref_matmul_f32_256)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ref_matmul_f32_1024)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ref_conv3x3_f32_56x56x64)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ref_add_f32_1M)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ref_exp_f32_1M)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ref_reduce_sum_f32_1024x1024_axis1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ref_gather_f32_1024x256_from_4096)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace plumb::rt

BENCHMARK_MAIN();
