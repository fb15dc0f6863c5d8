// Run-time values: dense tensors with static shapes, and the ONNX container values.
//
// Storage format (the contract every backend and kernel shares):
// - row-major, contiguous, no strides or offsets;
// - each dtype in its own bit format (f16/bf16/f8 kinds as their raw bits, spec/numerics.md);
// - sub-byte dtypes (i2 u2 i4 u4 f4e2m1) take ONE BYTE PER ELEMENT at run time, holding the
//   value's bits in the low bits (signed ones sign-extended to the byte); they are packed only in
//   files (.plumb constants, TensorProto), and the loaders unpack them;
// - bool is one byte, 0 or 1;
// - string tensors hold an array of std::string.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "ir/type.h"

namespace plumb::rt {

// Where a tensor's bytes are: host memory, or the memory of the session's device backend
// (runtime/backend.h Allocator). Host code (the ref kernels, bind_inputs, conditions, outputs)
// only ever sees kHost tensors: the executor copies at span borders.
enum class Device : uint8_t { kHost, kDevice };

// Bytes one element takes at run time (0 for string: elements are std::string objects).
int64_t runtime_elem_bytes(ir::DType dt);

struct Tensor {
  ir::DType dtype = ir::DType::F32;
  std::vector<int64_t> shape;
  std::shared_ptr<void> storage;  // keeps `data` alive (an arena, a heap block, a mapped file)
  void* data = nullptr;           // numel * runtime_elem_bytes, or std::string[numel] for strings
  Device device = Device::kHost;  // kDevice: `data` is the backend's memory (not host-readable)

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t numel() const;
  int64_t nbytes() const { return numel() * runtime_elem_bytes(dtype); }
  template <typename T>
  T* as() {
    return static_cast<T*>(data);
  }
  template <typename T>
  const T* as() const {
    return static_cast<const T*>(data);
  }
  std::string* strings() { return static_cast<std::string*>(data); }
  const std::string* strings() const { return static_cast<const std::string*>(data); }

  // A new heap-owned tensor, zero-filled (strings empty).
  static Tensor allocate(ir::DType dt, std::vector<int64_t> shape);
};

struct RtValue;

struct MapValue {
  Tensor keys;    // 1-D
  Tensor values;  // 1-D, same length
};
struct SequenceValue {
  ir::Type elem_type;  // the declared element type (may have symbolic dims / be unranked)
  std::vector<Tensor> items;
  std::vector<MapValue> maps;  // the elements instead of `items` when elem_type is a map type
};
struct OptionalValue {
  ir::Type elem_type;
  std::shared_ptr<RtValue> value;  // null: the optional is empty
};

struct RtValue : std::variant<Tensor, SequenceValue, OptionalValue, MapValue> {
  using variant::variant;
  bool is_tensor() const { return index() == 0; }
  Tensor& tensor() { return std::get<Tensor>(*this); }
  const Tensor& tensor() const { return std::get<Tensor>(*this); }
};

// The run-time type of a value (static shapes), for checks and messages.
ir::Type type_of(const RtValue& v);

}  // namespace plumb::rt
