// The cuda backend's host side of the device: the one-line statuses of CUDA and cuBLAS errors,
// a session's stream (with its cuBLAS handle), and the allocator of device memory over the caching
// pool (memory_pool.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "ir/status.h"
#include "runtime/backend.h"
#include "runtime/cuda/memory_pool.h"

namespace plumb::rt::cuda {

constexpr int64_t kAlign = 256;  // cudaMalloc's alignment; every scratch slot keeps it
inline int64_t aligned(int64_t b) { return (b + kAlign - 1) / kAlign * kAlign; }

// ok for success, else the one line "cuda: <what>: <the library's message>".
Status cuda_status(cudaError_t e, std::string_view what);
Status blas_status(cublasStatus_t e, std::string_view what);

class CudaStream final : public Stream {
 public:
  ~CudaStream() override {
    if (blas) cublasDestroy(blas);
    if (stream) {
      (void)cudaStreamSynchronize(stream);
      (void)cudaStreamDestroy(stream);
    }
  }
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
};

struct PoolState;  // device.cpp

// Zero-filled blocks of device memory from a caching pool; copies on a session's stream.
class CudaAllocator final : public Allocator {
 public:
  CudaAllocator();
  Device device() const override { return Device::kDevice; }
  Expected<std::shared_ptr<uint8_t>> allocate(int64_t bytes) override;
  Status copy_from_host(const void* host_src, void* dst, int64_t bytes, Stream* stream) override;
  Status copy_to_host(const void* src, void* host_dst, int64_t bytes, Stream* stream) override;
  PoolStats stats() const;

 private:
  std::shared_ptr<PoolState> state_;
};

}  // namespace plumb::rt::cuda
