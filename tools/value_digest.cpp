#include "tools/value_digest.h"

#include <cstdio>

namespace plumb::cli {
namespace {

uint64_t fold(uint64_t h, const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

uint64_t fold_int(uint64_t h, int64_t x) { return fold(h, &x, sizeof x); }

uint64_t digest_tensor(const rt::Tensor& t, uint64_t h) {
  h = fold_int(h, static_cast<int64_t>(t.dtype));
  h = fold_int(h, t.rank());
  for (int64_t d : t.shape) h = fold_int(h, d);
  if (!t.data) return h;
  if (t.dtype == ir::DType::String) {
    for (int64_t i = 0; i < t.numel(); ++i) {
      const std::string& s = t.strings()[i];
      h = fold_int(h, static_cast<int64_t>(s.size()));
      h = fold(h, s.data(), s.size());
    }
    return h;
  }
  return fold(h, t.data, static_cast<size_t>(t.nbytes()));
}

}  // namespace

uint64_t digest_value(const rt::RtValue& v, uint64_t h) {
  h = fold_int(h, static_cast<int64_t>(v.index()));
  if (const auto* t = std::get_if<rt::Tensor>(&v)) return digest_tensor(*t, h);
  if (const auto* s = std::get_if<rt::SequenceValue>(&v)) {
    h = fold_int(h, static_cast<int64_t>(s->items.size() + s->maps.size()));
    for (const rt::Tensor& item : s->items) h = digest_tensor(item, h);
    for (const rt::MapValue& m : s->maps) h = digest_tensor(m.values, digest_tensor(m.keys, h));
    return h;
  }
  if (const auto* o = std::get_if<rt::OptionalValue>(&v))
    return o->value ? digest_value(*o->value, fold_int(h, 1)) : fold_int(h, 0);
  const auto& m = std::get<rt::MapValue>(v);
  return digest_tensor(m.values, digest_tensor(m.keys, h));
}

std::string digest_hex(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace plumb::cli
