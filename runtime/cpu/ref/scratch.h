// Kernel scratch (issue 18: no heap allocation during a run of a static-shaped plan). A ref kernel's
// temporaries (packed operands, accumulators, index tables) come from NodeCall::scratch: a slice of
// the arena that the schedule reserved for the node, as big as ref::scratch_bytes said for the
// node's types. Scratch hands out that slice in 64-byte aligned pieces; a request past its end (a
// node run outside a plan: a region's node, a dynamic one, a unit test) comes from the heap, so a
// wrong size costs allocations, never a wrong result.
//
// Each kernel with temporaries has one function that makes all its requests, templated on the
// taker: Scratch at run time, ScratchSize at plan time, so the size asked for is the size taken.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "ir/graph.h"
#include "runtime/node_call.h"

namespace plumb::rt::ref {

constexpr int64_t kScratchAlign = 64;

// Bytes one request of `n` elements of T takes (at least one element, rounded to the alignment).
template <typename T>
constexpr int64_t scratch_piece(int64_t n) {
  const int64_t bytes = std::max<int64_t>(n, 1) * static_cast<int64_t>(sizeof(T));
  return (bytes + kScratchAlign - 1) / kScratchAlign * kScratchAlign;
}

// Plan time: adds up the requests (take returns null: nothing may be written).
class ScratchSize {
 public:
  template <typename T>
  T* take(int64_t n) {
    bytes_ += scratch_piece<T>(n);
    return nullptr;
  }
  int64_t bytes() const { return bytes_; }

 private:
  int64_t bytes_ = 0;
};

// Run time: pieces of the node's scratch, then of the heap. Elements are not zero-filled (every
// kernel writes an element before it reads it); types with a default constructor get it.
class Scratch {
 public:
  Scratch(uint8_t* base, int64_t bytes) : base_(base), cap_(base ? bytes : 0) {}
  explicit Scratch(const NodeCall& cx) : Scratch(cx.scratch, cx.scratch_bytes) {}
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  template <typename T>
  T* take(int64_t n) {
    static_assert(std::is_trivially_destructible_v<T>, "scratch is released without destructors");
    const int64_t bytes = scratch_piece<T>(n);
    uint8_t* p = nullptr;
    if (used_ + bytes <= cap_) {
      p = base_ + used_;
      used_ += bytes;
    } else {
      heap_.push_back(std::unique_ptr<uint8_t[]>(new uint8_t[static_cast<size_t>(bytes + kScratchAlign)]));
      const auto at = reinterpret_cast<uintptr_t>(heap_.back().get());
      p = heap_.back().get() + (kScratchAlign - at % kScratchAlign) % kScratchAlign;
    }
    T* t = reinterpret_cast<T*>(p);
    if constexpr (!std::is_trivially_default_constructible_v<T>)
      for (int64_t i = 0; i < n; ++i) new (t + i) T();
    return t;
  }

 private:
  uint8_t* base_ = nullptr;
  int64_t cap_ = 0, used_ = 0;
  std::vector<std::unique_ptr<uint8_t[]>> heap_;  // requests past the planned scratch
};

// What a kernel's size function sees: the node, its operand and result types (static), and the
// threads it may use (per-thread temporaries).
struct ScratchQuery {
  const ir::Node& node;
  std::vector<const ir::Type*> inputs, outputs;
  int threads = 1;
};

// The bytes of scratch the node's kernel takes for these types (0 for most ops), in
// runtime/cpu/ref/kernels.cpp (dispatching to the functions below, of the kernels' files).
int64_t scratch_bytes(const ScratchQuery& q);

int64_t conv_scratch_bytes(const ScratchQuery& q);
int64_t matmul_scratch_bytes(const ScratchQuery& q);
int64_t pool_scratch_bytes(const ScratchQuery& q);
int64_t reduce_scratch_bytes(const ScratchQuery& q);
int64_t gather_scratch_bytes(const ScratchQuery& q);
int64_t pad_scratch_bytes(const ScratchQuery& q);

// The static dims of a type (for the size functions).
inline std::vector<int64_t> static_dims(const ir::Type& t) {
  std::vector<int64_t> d;
  for (const ir::Dim& x : t.shape) d.push_back(x.size);
  return d;
}

}  // namespace plumb::rt::ref
