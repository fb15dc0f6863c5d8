// The tests' backend, "test" (tests/ only, never shipped): it proves the backend interface's
// partition, fallback, copy and scratch paths on real graphs. It claims maximal runs of
// elementwise nodes (unary, binary, compare, select, cast; constant nodes may sit inside a run)
// and runs them with the ref kernels, so its results must equal ref's bit for bit.
//
// Its memory is a "device": blocks of its own allocator whose bytes are stored XOR-scrambled, so
// that a value the executor forgot to copy, a device buffer handed to a host kernel, or a device
// result returned without its copy back gives wrong bytes instead of passing silently. A span's
// run checks that every buffer it is given is its own device memory, unscrambles its inputs into
// its scratch, runs its nodes there (intermediates in scratch too), and scrambles its results into
// the output buffers.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/backend.h"

namespace plumb::rt::test {

constexpr uint8_t kScramble = 0xA5;  // device byte = host byte ^ kScramble

// The test device's memory. Blocks are tracked so a span can tell its own memory from anything
// else; the counters let unit tests see what the executor copied.
class ScrambledAllocator final : public Allocator {
 public:
  Device device() const override { return Device::kDevice; }
  Expected<std::shared_ptr<uint8_t>> allocate(int64_t bytes) override;
  Status copy_from_host(const void* host_src, void* dst, int64_t bytes, Stream* stream) override;
  Status copy_to_host(const void* src, void* host_dst, int64_t bytes, Stream* stream) override;
  // True when [p, p + bytes) lies in one live block of this allocator.
  bool owns(const void* p, int64_t bytes) const;

  std::atomic<int64_t> copies_to_device{0}, copies_to_host{0}, allocations{0};

 private:
  struct Blocks {
    std::mutex mu;
    std::vector<std::pair<const uint8_t*, int64_t>> live;
  };
  std::shared_ptr<Blocks> blocks_ = std::make_shared<Blocks>();
};

struct TestBackendOptions {
  // Claim every top-level node as one span (to see the executor refuse host-only claims).
  bool claim_everything = false;
  // compile declines a span whose scratch would exceed this (a device's memory limit).
  int64_t max_scratch_bytes = int64_t{1} << 32;
};

class TestBackend final : public Backend {
 public:
  explicit TestBackend(TestBackendOptions options = {}) : options_(options) {}
  std::string_view name() const override { return "test"; }
  Allocator& allocator() override { return allocator_; }
  std::vector<Claim> partition(const ir::Graph& g, NumericMode mode) const override;
  Expected<std::unique_ptr<PreparedGraph>> prepare(const ir::Graph& g, const std::vector<NodeSpan>& claimed,
                                                   const PrepareOptions& options) override;
  const ScrambledAllocator& device_memory() const { return allocator_; }

 private:
  TestBackendOptions options_;
  ScrambledAllocator allocator_;
};

// Its BackendEntry factory ("test").
std::unique_ptr<Backend> make_backend();

}  // namespace plumb::rt::test
