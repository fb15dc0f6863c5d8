#include "check/npy.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

namespace plumb::check {
namespace {

struct NpyType {
  char kind;  // b i u f
  int size;
  ir::DType dtype;
};
constexpr NpyType kTypes[] = {
    {'b', 1, ir::DType::Bool}, {'i', 1, ir::DType::I8},  {'i', 2, ir::DType::I16}, {'i', 4, ir::DType::I32},
    {'i', 8, ir::DType::I64},  {'u', 1, ir::DType::U8},  {'u', 2, ir::DType::U16}, {'u', 4, ir::DType::U32},
    {'u', 8, ir::DType::U64},  {'f', 2, ir::DType::F16}, {'f', 4, ir::DType::F32}, {'f', 8, ir::DType::F64},
};

Status bad(const std::string& why) { return invalid_input("not a valid .npy file: " + why); }

void skip_space(const std::string& h, size_t& i) {
  while (i < h.size() && (h[i] == ' ' || h[i] == '\t' || h[i] == '\n')) ++i;
}

// The value text after 'key': in the header dict.
bool find_value(const std::string& h, const char* key, size_t& pos) {
  const std::string k1 = std::string("'") + key + "'", k2 = std::string("\"") + key + "\"";
  size_t p = h.find(k1);
  if (p == std::string::npos) p = h.find(k2);
  if (p == std::string::npos) return false;
  p += k1.size();
  skip_space(h, p);
  if (p >= h.size() || h[p] != ':') return false;
  ++p;
  skip_space(h, p);
  pos = p;
  return true;
}

}  // namespace

Expected<rt::Tensor> parse_npy(const uint8_t* data, size_t size) {
  if (size < 10 || std::memcmp(data, "\x93NUMPY", 6) != 0) return bad("no \\x93NUMPY magic");
  const int major = data[6];
  size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = data[8] | (size_t{data[9]} << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) return bad("truncated header");
    header_len = data[8] | (size_t{data[9]} << 8) | (size_t{data[10]} << 16) | (size_t{data[11]} << 24);
    offset = 12;
  } else {
    return bad("format version " + std::to_string(major) + " is not 1, 2 or 3");
  }
  if (header_len > size - offset) return bad("truncated header");
  const std::string h(reinterpret_cast<const char*>(data + offset), header_len);
  offset += header_len;

  size_t p = 0;
  if (!find_value(h, "descr", p) || (h[p] != '\'' && h[p] != '"')) return bad("no 'descr'");
  const size_t q = h.find(h[p], p + 1);
  if (q == std::string::npos) return bad("unterminated 'descr'");
  const std::string descr = h.substr(p + 1, q - p - 1);
  if (descr.size() < 3) return unsupported("npy dtype '" + descr + "' is not supported");
  const char order = descr[0];
  const char kind = descr[1];
  const int item = std::atoi(descr.c_str() + 2);
  const NpyType* nt = nullptr;
  for (const NpyType& t : kTypes)
    if (t.kind == kind && t.size == item && std::to_string(item) == descr.substr(2)) nt = &t;
  if (!nt || (order != '<' && order != '>' && order != '|' && order != '='))
    return unsupported("npy dtype '" + descr + "' is not supported (numeric and bool only)");
  const bool swap = order == '>' && item > 1;

  if (!find_value(h, "fortran_order", p)) return bad("no 'fortran_order'");
  if (h.compare(p, 4, "True") == 0) return unsupported("npy files in Fortran order are not supported");
  if (h.compare(p, 5, "False") != 0) return bad("bad 'fortran_order'");

  if (!find_value(h, "shape", p) || h[p] != '(') return bad("no 'shape'");
  std::vector<int64_t> shape;
  ++p;
  uint64_t numel = 1;
  for (;;) {
    skip_space(h, p);
    if (p >= h.size()) return bad("unterminated 'shape'");
    if (h[p] == ')') break;
    if (h[p] < '0' || h[p] > '9') return bad("bad 'shape'");
    uint64_t d = 0;
    while (p < h.size() && h[p] >= '0' && h[p] <= '9') {
      d = d * 10 + static_cast<uint64_t>(h[p] - '0');
      if (d > kMaxNpyBytes) return bad("dimension too large");
      ++p;
    }
    shape.push_back(static_cast<int64_t>(d));
    if (d != 0 && numel > kMaxNpyBytes / d) return bad("shape too large");
    numel *= d;
    skip_space(h, p);
    if (p < h.size() && h[p] == ',') ++p;
    if (shape.size() > 64) return bad("rank above 64");
  }
  if (numel > kMaxNpyBytes / static_cast<uint64_t>(item)) return bad("data too large");
  const uint64_t bytes = numel * static_cast<uint64_t>(item);
  if (size - offset < bytes)
    return bad("data has " + std::to_string(size - offset) + " bytes, the header needs " +
               std::to_string(bytes));

  rt::Tensor t = rt::Tensor::allocate(nt->dtype, shape);
  auto* dst = static_cast<uint8_t*>(t.data);
  std::memcpy(dst, data + offset, bytes);
  if (swap)
    for (uint64_t i = 0; i < numel; ++i) std::reverse(dst + i * item, dst + (i + 1) * item);
  if (nt->dtype == ir::DType::Bool)
    for (uint64_t i = 0; i < numel; ++i) dst[i] = dst[i] ? 1 : 0;
  return t;
}

Expected<rt::Tensor> read_npy(const std::string& path) {
  // Errors name the file in their place, once (the CLI prints `plumb: FILE: reason`).
  auto fail = [&](const std::string& why) { return Status(ErrorCode::kInvalidInput, why, "", path); };
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return fail("cannot open file");
  if (std::fseek(f.get(), 0, SEEK_END) != 0) return fail("cannot read file");
  const long n = std::ftell(f.get());
  if (n < 0 || static_cast<uint64_t>(n) > kMaxNpyBytes) return fail("cannot read file (size)");
  std::fseek(f.get(), 0, SEEK_SET);
  std::vector<uint8_t> buf(static_cast<size_t>(n));
  if (n > 0 && std::fread(buf.data(), 1, buf.size(), f.get()) != buf.size()) return fail("cannot read file");
  auto t = parse_npy(buf.data(), buf.size());
  if (!t) return Status(t.status().code(), t.status().message(), t.status().label(), path);
  return t;
}

Expected<std::vector<uint8_t>> encode_npy(const rt::Tensor& t) {
  const NpyType* nt = nullptr;
  for (const NpyType& x : kTypes)
    if (x.dtype == t.dtype) nt = &x;
  if (!nt)
    return unsupported("a tensor of dtype " + std::string(ir::dtype_name(t.dtype)) + " has no .npy form");
  std::string h = "{'descr': '";
  h += nt->size == 1 ? '|' : '<';
  h += nt->kind + std::to_string(nt->size) + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < t.shape.size(); ++i)
    h += std::to_string(t.shape[i]) + (t.shape.size() == 1 || i + 1 < t.shape.size() ? ", " : "");
  if (t.shape.size() == 1) h.resize(h.size() - 1);  // "(3,)"
  h += "), }";
  // Pad with spaces and end with '\n' so the data starts at a multiple of 64.
  while ((10 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  out.push_back(static_cast<uint8_t>(h.size() & 0xFF));
  out.push_back(static_cast<uint8_t>(h.size() >> 8));
  out.insert(out.end(), h.begin(), h.end());
  const auto* src = static_cast<const uint8_t*>(t.data);
  if (t.nbytes() > 0) out.insert(out.end(), src, src + t.nbytes());
  return out;
}

Status write_npy(const std::string& path, const rt::Tensor& t) {
  PLUMB_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, encode_npy(t));
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!f) return invalid_input("cannot write " + path);
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f.get()) != bytes.size())
    return invalid_input("cannot write " + path);
  return Status::ok();
}

}  // namespace plumb::check
