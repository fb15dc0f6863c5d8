#include "ir/constant_values.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "ir/infer.h"

namespace plumb::ir {

namespace {

bool is_integer_dtype(DType dt) { return static_cast<int>(dt) < kNumDTypes && is_int(dt); }

// Element `i` of a little-endian integer array of `bits` bits each (packed low bits first when
// bits < 8), sign-extended when `is_signed`. The caller has checked that the bytes are there.
uint64_t read_raw(const uint8_t* data, int bits, uint64_t i) {
  if (bits < 8) {
    const uint64_t bit = i * static_cast<uint64_t>(bits);
    return (data[bit / 8] >> (bit % 8)) & ((1u << bits) - 1u);
  }
  const int bytes = bits / 8;
  uint64_t v = 0;
  for (int b = 0; b < bytes; ++b) v |= static_cast<uint64_t>(data[i * bytes + b]) << (8 * b);
  return v;
}

int64_t sign_extend(uint64_t raw, int bits) {
  if (bits >= 64) return static_cast<int64_t>(raw);
  const uint64_t sign = uint64_t{1} << (bits - 1);
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  raw &= mask;
  return static_cast<int64_t>((raw ^ sign) - sign);  // two's complement, no UB
}

}  // namespace

std::optional<std::vector<int64_t>> constant_int_values(const ConstantData& c) {
  const Type& t = c.type;
  if (t.kind != TypeKind::Tensor || !t.ranked || !is_integer_dtype(t.dtype)) return std::nullopt;
  if (t.shape.size() > static_cast<size_t>(kMaxRank)) return std::nullopt;
  const int64_t n = shape_num_elements(t.shape);
  if (n < 0 || n > kMaxKnownValues) return std::nullopt;
  const int bits = dtype_bits(t.dtype);
  if (c.size != dtype_storage_bytes(t.dtype, static_cast<uint64_t>(n))) return std::nullopt;
  if (n > 0 && c.data == nullptr) return std::nullopt;
  std::vector<int64_t> out(static_cast<size_t>(n));
  const bool is_signed = is_signed_int(t.dtype);
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t raw = read_raw(c.data, bits, static_cast<uint64_t>(i));
    if (is_signed) {
      out[i] = sign_extend(raw, bits);
    } else {
      if (raw > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
      out[i] = static_cast<int64_t>(raw);
    }
  }
  return out;
}

Expected<std::vector<uint8_t>> encode_int_values(DType dt, const std::vector<int64_t>& values) {
  if (static_cast<int>(dt) >= kNumDTypes || !(is_int(dt) || is_bool(dt)))
    return unsupported("encode_int_values: " + std::string(dtype_name(dt)) + " is not an integer dtype");
  const int bits = dtype_bits(dt);
  std::vector<uint8_t> out(dtype_storage_bytes(dt, values.size()), 0);
  for (size_t i = 0; i < values.size(); ++i) {
    uint64_t raw = static_cast<uint64_t>(values[i]);
    if (is_bool(dt)) raw = values[i] != 0 ? 1 : 0;
    if (bits < 8) {
      const uint64_t bit = i * static_cast<uint64_t>(bits);
      out[bit / 8] |= static_cast<uint8_t>((raw & ((1u << bits) - 1u)) << (bit % 8));
    } else {
      for (int b = 0; b < bits / 8; ++b) out[i * (bits / 8) + b] = static_cast<uint8_t>(raw >> (8 * b));
    }
  }
  return out;
}

Expected<std::vector<uint8_t>> encode_float_values(DType dt, const std::vector<double>& values) {
  if (dt != DType::F32 && dt != DType::F64)
    return unsupported("encode_float_values: only f32 and f64, not " + std::string(dtype_name(dt)));
  const size_t width = dt == DType::F32 ? 4 : 8;
  std::vector<uint8_t> out(values.size() * width);
  for (size_t i = 0; i < values.size(); ++i) {
    uint64_t bits = 0;
    if (dt == DType::F32) {
      // IEEE round to nearest even; finite values past the f32 range round to +-inf or +-max
      // explicitly (the plain conversion of an out-of-range double is undefined in C++).
      const double v = values[i];
      const double kOverflow = 0x1.ffffffp127;  // FLT_MAX + half an ulp: ties go to inf
      float f;
      if (std::isfinite(v) && std::fabs(v) >= kOverflow)
        f = v > 0 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
      else if (std::isfinite(v) && std::fabs(v) > std::numeric_limits<float>::max())
        f = v > 0 ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max();
      else
        f = static_cast<float>(v);
      uint32_t b32;
      std::memcpy(&b32, &f, 4);
      bits = b32;
    } else {
      std::memcpy(&bits, &values[i], 8);
    }
    for (size_t b = 0; b < width; ++b) out[i * width + b] = static_cast<uint8_t>(bits >> (8 * b));
  }
  return out;
}

// graph.V2: why `t` is not a well-formed type, or "" when it is.
std::string type_problem(const Type& t, int depth) {
  if (depth > kMaxTypeDepth) return strfmt("type nested deeper than %d", kMaxTypeDepth);
  if (static_cast<int>(t.kind) > static_cast<int>(TypeKind::Map))
    return strfmt("type kind code %d out of range", static_cast<int>(t.kind));
  if (static_cast<int>(t.dtype) >= kNumDTypes)
    return strfmt("dtype code %d out of range", static_cast<int>(t.dtype));
  if (t.kind != TypeKind::Tensor) {
    if (!t.elem) return "container type without an element type";
    return type_problem(*t.elem, depth + 1);
  }
  if (!t.ranked) return t.shape.empty() ? "" : "unranked tensor type with dims";
  if (t.rank() > kMaxRank)
    return strfmt("rank %lld exceeds the limit %lld", (long long)t.rank(), (long long)kMaxRank);
  int64_t static_elems = 1;
  for (const Dim& d : t.shape) {
    if (d.size < 0 && d.size != kDynamic) return strfmt("dim %lld is negative", (long long)d.size);
    if (d.is_static() && !d.sym.empty()) return "static dim " + std::to_string(d.size) + " has a name";
    if (!d.is_static() || d.size == 0) continue;
    if (static_elems > kMaxElements / d.size)
      return "type " + type_to_string(t) + " has more than 2^40 elements";
    static_elems *= d.size;
  }
  return "";
}

// graph.V4: a string constant is, per element, a little-endian u32 byte length then the bytes,
// and the last element ends exactly at the end of the data.
static std::string string_constant_problem(const ConstantData& c, int64_t numel) {
  uint64_t pos = 0;
  for (int64_t k = 0; k < numel; ++k) {
    if (c.size - pos < 4)
      return strfmt("string element %lld: length prefix past the end of the data", (long long)k);
    const uint8_t* p = c.data + pos;
    const uint64_t len = uint64_t{p[0]} | uint64_t{p[1]} << 8 | uint64_t{p[2]} << 16 | uint64_t{p[3]} << 24;
    pos += 4;
    if (c.size - pos < len)
      return strfmt("string element %lld: %llu bytes past the end of the data", (long long)k,
                    (unsigned long long)len);
    pos += len;
  }
  if (pos != c.size)
    return strfmt("%llu bytes after the last string element", (unsigned long long)(c.size - pos));
  return "";
}

std::string constant_problem(const ConstantData& c) {
  const std::string why = type_problem(c.type);
  if (!why.empty()) return why;
  if (c.type.kind != TypeKind::Tensor || !c.type.ranked || !shape_is_static(c.type.shape))
    return "type " + type_to_string(c.type) + " is not a static tensor type";
  if (c.size > 0 && c.data == nullptr) return "no data";
  const int64_t numel = shape_num_elements(c.type.shape);
  if (is_string(c.type.dtype)) return string_constant_problem(c, numel);
  const uint64_t need = dtype_storage_bytes(c.type.dtype, static_cast<uint64_t>(numel));
  if (c.size != need)
    return strfmt("%s needs %llu bytes, the data has %llu", type_to_string(c.type).c_str(),
                  (unsigned long long)need, (unsigned long long)c.size);
  return "";
}

}  // namespace plumb::ir
