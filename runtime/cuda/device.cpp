#include "runtime/cuda/device.h"

#include <string>

namespace plumb::rt::cuda {

// The message is made only for an error: a span's run allocates nothing on the host.
Status cuda_status(cudaError_t e, std::string_view what) {
  if (e == cudaSuccess) return Status::ok();
  return runtime_error("", "cuda: " + std::string(what) + ": " + cudaGetErrorString(e));
}

Status blas_status(cublasStatus_t e, std::string_view what) {
  if (e == CUBLAS_STATUS_SUCCESS) return Status::ok();
  return runtime_error("", "cuda: " + std::string(what) + ": " + cublasGetStatusString(e));
}

class DeviceMemory final : public RawMemory {
 public:
  Expected<void*> alloc(int64_t bytes) override {
    void* p = nullptr;
    const cudaError_t e = cudaMalloc(&p, static_cast<size_t>(bytes));
    if (e != cudaSuccess) {
      (void)cudaGetLastError();  // an out-of-memory is not sticky: clear it for the retry
      return runtime_error("", strfmt("cuda: cannot allocate %lld bytes of device memory: %s",
                                      static_cast<long long>(bytes), cudaGetErrorString(e)));
    }
    return p;
  }
  void free(void* p) override { (void)cudaFree(p); }
};

// The pool and its raw memory, shared by the allocator and every block it handed out (a block
// may outlive the backend: a session's arena is dropped after it).
struct PoolState {
  DeviceMemory raw;
  CachingPool pool{raw};
};

namespace {

cudaStream_t stream_of(Stream* s) {
  auto* cs = dynamic_cast<CudaStream*>(s);
  return cs ? cs->stream : nullptr;  // null: the legacy default stream (constants, before a session has one)
}

}  // namespace

CudaAllocator::CudaAllocator() : state_(std::make_shared<PoolState>()) {}

Expected<std::shared_ptr<uint8_t>> CudaAllocator::allocate(int64_t bytes) {
  PLUMB_ASSIGN_OR_RETURN(void* p, state_->pool.take(bytes));
  // Zero-filled, as the interface promises; on the legacy default stream, which waits for the
  // sessions' (blocking) streams, so a reused block is not cleared under a running kernel.
  const cudaError_t e = cudaMemset(p, 0, static_cast<size_t>(bytes));
  if (e != cudaSuccess) {
    state_->pool.give_back(p, bytes);
    return cuda_status(e, "cudaMemset");
  }
  std::shared_ptr<PoolState> state = state_;
  return std::shared_ptr<uint8_t>(static_cast<uint8_t*>(p),
                                  [state, bytes](uint8_t* q) { state->pool.give_back(q, bytes); });
}

Status CudaAllocator::copy_from_host(const void* host_src, void* dst, int64_t bytes, Stream* stream) {
  if (bytes <= 0) return Status::ok();
  // From pageable memory the call returns once the source has been staged: the caller may
  // free it at once.
  return cuda_status(
      cudaMemcpyAsync(dst, host_src, static_cast<size_t>(bytes), cudaMemcpyHostToDevice, stream_of(stream)),
      "copy to the device");
}

Status CudaAllocator::copy_to_host(const void* src, void* host_dst, int64_t bytes, Stream* stream) {
  if (bytes <= 0) return Status::ok();
  cudaStream_t s = stream_of(stream);
  PLUMB_RETURN_IF_ERROR(
      cuda_status(cudaMemcpyAsync(host_dst, src, static_cast<size_t>(bytes), cudaMemcpyDeviceToHost, s),
                  "copy to the host"));
  // The host reads it next; an error of an earlier kernel on the stream surfaces here.
  return cuda_status(cudaStreamSynchronize(s), "a kernel before the copy to the host");
}

PoolStats CudaAllocator::stats() const { return state_->pool.stats(); }

}  // namespace plumb::rt::cuda
