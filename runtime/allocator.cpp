// Plain host memory (the allocator of every host backend), and uploads through any allocator.
#include <cstring>
#include <new>

#include "runtime/backend.h"

namespace plumb::rt {
namespace {

class HostAllocator final : public Allocator {
 public:
  Device device() const override { return Device::kHost; }
  Expected<std::shared_ptr<uint8_t>> allocate(int64_t bytes) override {
    if (bytes <= 0) return internal_error("host allocator: asked for a non-positive size");
    void* mem = ::operator new[](static_cast<size_t>(bytes), std::align_val_t(64), std::nothrow);
    if (!mem) return runtime_error("", strfmt("cannot allocate %lld bytes", (long long)bytes));
    std::memset(mem, 0, static_cast<size_t>(bytes));
    return std::shared_ptr<uint8_t>(static_cast<uint8_t*>(mem),
                                    [](uint8_t* p) { ::operator delete[](p, std::align_val_t(64)); });
  }
  Status copy_from_host(const void* host_src, void* dst, int64_t bytes, Stream*) override {
    std::memcpy(dst, host_src, static_cast<size_t>(bytes));
    return Status::ok();
  }
  Status copy_to_host(const void* src, void* host_dst, int64_t bytes, Stream*) override {
    std::memcpy(host_dst, src, static_cast<size_t>(bytes));
    return Status::ok();
  }
};

}  // namespace

Allocator& host_allocator() {
  static HostAllocator instance;  // stateless: shared by every backend, never mutated
  return instance;
}

Expected<Tensor> upload(const Tensor& host, Allocator& alloc, Stream* stream) {
  Tensor d;
  d.dtype = host.dtype;
  d.shape = host.shape;
  d.device = alloc.device();
  if (host.nbytes() > 0) {
    PLUMB_ASSIGN_OR_RETURN(std::shared_ptr<uint8_t> mem, alloc.allocate(host.nbytes()));
    PLUMB_RETURN_IF_ERROR(alloc.copy_from_host(host.data, mem.get(), host.nbytes(), stream));
    d.data = mem.get();
    d.storage = std::move(mem);
  }
  return d;
}

}  // namespace plumb::rt
