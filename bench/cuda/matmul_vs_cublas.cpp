// cuda_matmul_bench [M N K] (default 4096^3): the cuda backend's matmul span against cuBLAS's own
// figure for the same product on the same GPU (issue 21: within 10% for f32). Times the compiled
// span's run() alone (operands already on the device, as between two spans of a model), and
// cuBLAS's plain call: f32 with cublasSgemm (the default math mode, and pedantic as the backend
// uses it), f16 -> f32 with cublasGemmEx (CUBLAS_COMPUTE_32F) against the backend's spec loop.
// Prints one JSON line per dtype. Without a GPU: the backend's one-line reason, exit 77.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "ir/builder.h"
#include "runtime/backend.h"
#include "runtime/partition.h"
#include "runtime/plan.h"
#include "runtime/schedule.h"

namespace {

using plumb::Expected;
using plumb::Status;
namespace rt = plumb::rt;
namespace ir = plumb::ir;

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Mean milliseconds of one call over `runs` calls after `warm` calls, the device idle around them.
template <typename F>
double time_ms(int warm, int runs, F&& f) {
  for (int i = 0; i < warm; ++i) f();
  cudaDeviceSynchronize();
  const double t0 = now_ms();
  for (int i = 0; i < runs; ++i) f();
  cudaDeviceSynchronize();
  return (now_ms() - t0) / runs;
}

struct Figures {
  double plumb_ms = 0, cublas_ms = 0, cublas_pedantic_ms = 0;
};

Expected<Figures> bench(ir::DType dt, ir::DType to, int64_t M, int64_t N, int64_t K, int runs) {
  ir::Graph g;
  ir::Builder b(g);
  auto x = b.input(ir::Type::tensor(dt, {M, K}), "x");
  auto y = b.input(ir::Type::tensor(dt, {K, N}), "y");
  b.output(b.matmul(x, y, to), "z");
  PLUMB_RETURN_IF_ERROR(b.status());
  PLUMB_ASSIGN_OR_RETURN(auto backend, rt::make_backend("cuda"));
  PLUMB_ASSIGN_OR_RETURN(rt::Partition part, rt::partition_graph(g, *backend, rt::NumericMode::kNative));
  PLUMB_ASSIGN_OR_RETURN(rt::Plan plan, rt::make_plan(g, {g.type_of(x), g.type_of(y)}));
  PLUMB_ASSIGN_OR_RETURN(rt::Schedule sched, rt::make_schedule(g, plan, part, int64_t{1} << 40));
  if (sched.spans.size() != 1 || !sched.spans[0].program)
    return plumb::internal_error("the matmul did not compile to one cuda span");
  rt::ScheduledSpan& span = sched.spans[0];
  PLUMB_ASSIGN_OR_RETURN(auto stream, backend->make_stream());
  rt::Allocator& mem = backend->allocator();
  auto device_tensor = [&](ir::DType d, std::vector<int64_t> shape) -> Expected<rt::RtValue> {
    rt::Tensor t;
    t.dtype = d;
    t.shape = std::move(shape);
    t.device = rt::Device::kDevice;
    PLUMB_ASSIGN_OR_RETURN(std::shared_ptr<uint8_t> p, mem.allocate(std::max<int64_t>(1, t.nbytes())));
    t.data = p.get();
    t.storage = p;
    // Values in [-1, 1) (f32 or f16 bits of them): no overflow, so the guard passes to cuBLAS.
    std::vector<uint8_t> host(static_cast<size_t>(t.nbytes()));
    uint32_t s = 12345;
    const int64_t w = rt::runtime_elem_bytes(d);
    for (int64_t i = 0; i < t.numel(); ++i) {
      s = s * 1664525u + 1013904223u;
      const float v = static_cast<float>(s >> 8) / static_cast<float>(1 << 23) - 1.0f;
      if (w == 4) {
        std::memcpy(&host[static_cast<size_t>(i * 4)], &v, 4);
      } else {  // f16: v rounded by truncation to 10 mantissa bits (any f16 value serves)
        uint32_t u;
        std::memcpy(&u, &v, 4);
        const uint32_t e = (u >> 23) & 0xff;
        uint16_t h = static_cast<uint16_t>((u >> 16) & 0x8000);
        if (e >= 113) h |= static_cast<uint16_t>(((e - 112) << 10) | ((u >> 13) & 0x3ff));
        std::memcpy(&host[static_cast<size_t>(i * 2)], &h, 2);
      }
    }
    PLUMB_RETURN_IF_ERROR(mem.copy_from_host(host.data(), t.data, t.nbytes(), stream.get()));
    return rt::RtValue(t);
  };
  PLUMB_ASSIGN_OR_RETURN(rt::RtValue a, device_tensor(dt, {M, K}));
  PLUMB_ASSIGN_OR_RETURN(rt::RtValue w, device_tensor(dt, {K, N}));
  PLUMB_ASSIGN_OR_RETURN(rt::RtValue c, device_tensor(to, {M, N}));
  PLUMB_ASSIGN_OR_RETURN(std::shared_ptr<uint8_t> scratch,
                         mem.allocate(std::max<int64_t>(1, span.scratch_bytes)));
  rt::SpanArgs args;
  args.inputs = {&a, &w};
  args.outputs = {&c};
  args.scratch = scratch.get();
  Status st = Status::ok();
  Figures f;
  f.plumb_ms = time_ms(2, runs, [&] {
    if (st.is_ok()) st = span.program->run(args, stream.get());
  });
  PLUMB_RETURN_IF_ERROR(st);

  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return plumb::internal_error("cublasCreate failed");
  const float one = 1, zero = 0;
  const void* A = a.tensor().data;
  const void* B = w.tensor().data;
  void* C = c.tensor().data;
  auto call = [&] {
    if (dt == ir::DType::F32)
      cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K),
                  &one, static_cast<const float*>(B), static_cast<int>(N), static_cast<const float*>(A),
                  static_cast<int>(K), &zero, static_cast<float*>(C), static_cast<int>(N));
    else
      cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(N), static_cast<int>(M), static_cast<int>(K),
                   &one, B, CUDA_R_16F, static_cast<int>(N), A, CUDA_R_16F, static_cast<int>(K), &zero, C,
                   CUDA_R_32F, static_cast<int>(N), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };
  f.cublas_ms = time_ms(2, runs, call);
  cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH);
  f.cublas_pedantic_ms = time_ms(2, runs, call);
  cublasDestroy(h);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t M = argc > 1 ? std::atoll(argv[1]) : 4096;
  const int64_t N = argc > 2 ? std::atoll(argv[2]) : 4096;
  const int64_t K = argc > 3 ? std::atoll(argv[3]) : 4096;
  if (M <= 0 || N <= 0 || K <= 0) {
    std::fprintf(stderr, "usage: cuda_matmul_bench [M N K] (positive sizes)\n");
    return 2;
  }
  int rc = 0;
  for (auto [dt, to, runs] :
       {std::tuple{ir::DType::F32, ir::DType::F32, 10}, std::tuple{ir::DType::F16, ir::DType::F32, 2}}) {
    Expected<Figures> f = bench(dt, to, M, N, K, runs);
    if (!f) {
      std::fprintf(stderr, "cuda_matmul_bench: %s\n", f.status().message().c_str());
      if (f.status().code() == plumb::ErrorCode::kUnsupported) return 77;
      rc = 1;
      continue;
    }
    const double flop = 2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
    std::printf(
        "{\"op\": \"matmul\", \"dtype\": \"%s\", \"M\": %lld, \"N\": %lld, \"K\": %lld, \"plumb_ms\": %.3f, "
        "\"plumb_tflops\": %.2f, \"cublas_ms\": %.3f, \"cublas_tflops\": %.2f, \"cublas_pedantic_ms\": %.3f, "
        "\"plumb_over_cublas\": %.3f}\n",
        std::string(ir::dtype_name(dt)).c_str(), static_cast<long long>(M), static_cast<long long>(N),
        static_cast<long long>(K), f->plumb_ms, flop / f->plumb_ms / 1e9, f->cublas_ms,
        flop / f->cublas_ms / 1e9, f->cublas_pedantic_ms, f->plumb_ms / f->cublas_ms);
  }
  return rc;
}
