#include "runtime/value.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace plumb::rt {

int64_t runtime_elem_bytes(ir::DType dt) {
  const int bits = ir::dtype_bits(dt);
  if (bits == 0) return 0;
  return bits < 8 ? 1 : bits / 8;
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Tensor Tensor::allocate(ir::DType dt, std::vector<int64_t> shape) {
  Tensor t;
  t.dtype = dt;
  t.shape = std::move(shape);
  const int64_t n = t.numel();
  if (dt == ir::DType::String) {
    auto block = std::shared_ptr<std::string[]>(new std::string[n > 0 ? n : 1]);
    t.data = block.get();
    t.storage = std::shared_ptr<void>(block, block.get());
    return t;
  }
  const int64_t bytes = n * runtime_elem_bytes(dt);
  auto block = std::shared_ptr<uint8_t[]>(new uint8_t[bytes > 0 ? bytes : 1]());
  t.data = block.get();
  t.storage = std::shared_ptr<void>(block, block.get());
  return t;
}

ir::Type type_of(const RtValue& v) {
  if (const auto* t = std::get_if<Tensor>(&v)) return ir::Type::tensor(t->dtype, ir::static_shape(t->shape));
  if (const auto* s = std::get_if<SequenceValue>(&v)) return ir::Type::sequence(s->elem_type);
  if (const auto* o = std::get_if<OptionalValue>(&v)) return ir::Type::optional(o->elem_type);
  const auto& m = std::get<MapValue>(v);
  return ir::Type::map(m.keys.dtype, ir::Type::tensor(m.values.dtype, {}));
}

}  // namespace plumb::rt
