// .npy / .npz reading and writing (see npy.h).
#include "frontends/onnx/npy.h"

#include <array>
#include <climits>
#include <cstring>
#include <fstream>
#include <new>

#include <google/protobuf/io/gzip_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace plumb::onnx {
namespace {

constexpr std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr std::array<uint32_t, 256> kCrcTable = make_crc_table();

uint64_t get_le(const std::string& b, uint64_t pos, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(b[pos + i])) << (8 * i);
  return v;
}
void put_le(std::string& b, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

Status bad_npy(const std::string& why) { return invalid_input("npy: " + why); }

// --- header dict: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } -----------------

struct NpyHeader {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
};

Expected<NpyHeader> parse_header(const std::string& h) {
  NpyHeader out;
  auto value_after = [&](const char* key) -> size_t {
    const std::string k1 = std::string("'") + key + "'";
    const std::string k2 = std::string("\"") + key + "\"";
    size_t p = h.find(k1);
    size_t klen = k1.size();
    if (p == std::string::npos) {
      p = h.find(k2);
      klen = k2.size();
    }
    if (p == std::string::npos) return std::string::npos;
    p = h.find(':', p + klen);
    if (p == std::string::npos) return p;
    ++p;
    while (p < h.size() && h[p] == ' ') ++p;
    return p;
  };
  size_t p = value_after("descr");
  if (p == std::string::npos || p >= h.size() || (h[p] != '\'' && h[p] != '"'))
    return bad_npy("header has no 'descr' string (structured dtypes are not supported)");
  const char q = h[p];
  const size_t e = h.find(q, p + 1);
  if (e == std::string::npos) return bad_npy("unterminated 'descr'");
  out.descr = h.substr(p + 1, e - p - 1);
  p = value_after("fortran_order");
  if (p == std::string::npos) return bad_npy("header has no 'fortran_order'");
  if (h.compare(p, 4, "True") == 0)
    out.fortran = true;
  else if (h.compare(p, 5, "False") != 0)
    return bad_npy("'fortran_order' is neither True nor False");
  p = value_after("shape");
  if (p == std::string::npos || p >= h.size() || h[p] != '(') return bad_npy("header has no 'shape' tuple");
  ++p;
  while (true) {
    while (p < h.size() && (h[p] == ' ' || h[p] == ',')) ++p;
    if (p >= h.size()) return bad_npy("unterminated 'shape'");
    if (h[p] == ')') break;
    int64_t v = 0;
    bool digits = false;
    while (p < h.size() && h[p] >= '0' && h[p] <= '9') {
      if (v > (INT64_MAX - 9) / 10) return bad_npy("dimension overflows");
      v = v * 10 + (h[p] - '0');
      ++p;
      digits = true;
    }
    if (p < h.size() && h[p] == 'L') ++p;  // Python 2 longs
    if (!digits) return bad_npy("malformed 'shape'");
    out.shape.push_back(v);
    if (out.shape.size() > 64) return bad_npy("rank over 64");
  }
  return out;
}

struct NpyDtype {
  ir::DType dtype = ir::DType::F32;
  int itemsize = 0;      // bytes per element in the file
  bool swap = false;     // big-endian data
  bool unicode = false;  // '<U<n>': itemsize = 4 * n
};

Expected<NpyDtype> parse_descr(const std::string& d) {
  if (d.size() < 2) return unsupported("npy: dtype '" + d + "' is not supported");
  const char order = d[0];
  if (order != '<' && order != '>' && order != '|' && order != '=')
    return unsupported("npy: dtype '" + d + "' is not supported");
  const char kind = d[1];
  int64_t n = 0;
  for (size_t i = 2; i < d.size(); ++i) {
    if (d[i] < '0' || d[i] > '9' || n > 1000000)
      return unsupported("npy: dtype '" + d + "' is not supported");
    n = n * 10 + (d[i] - '0');
  }
  NpyDtype out;
  out.swap = order == '>';
  if (kind == 'U') {
    // '<U0' has zero-width elements: any element count fits in no data bytes, so a header could
    // claim 2^62 of them. numpy writes '<U1' for empty strings, so no saved array has it.
    if (n == 0) return bad_npy("dtype '" + d + "' has zero-width elements");
    if (n > (1 << 24)) return unsupported("npy: dtype '" + d + "' is not supported");
    out.dtype = ir::DType::String;
    out.unicode = true;
    out.itemsize = static_cast<int>(4 * n);
    return out;
  }
  out.itemsize = static_cast<int>(n);
  bool ok = true;
  switch (kind) {
    case 'b':
      ok = n == 1;
      out.dtype = ir::DType::Bool;
      break;
    case 'i':
      out.dtype = n == 1 ? ir::DType::I8 : n == 2 ? ir::DType::I16 : n == 4 ? ir::DType::I32 : ir::DType::I64;
      ok = n == 1 || n == 2 || n == 4 || n == 8;
      break;
    case 'u':
      out.dtype = n == 1 ? ir::DType::U8 : n == 2 ? ir::DType::U16 : n == 4 ? ir::DType::U32 : ir::DType::U64;
      ok = n == 1 || n == 2 || n == 4 || n == 8;
      break;
    case 'f':
      out.dtype = n == 2 ? ir::DType::F16 : n == 4 ? ir::DType::F32 : ir::DType::F64;
      ok = n == 2 || n == 4 || n == 8;
      break;
    default: ok = false;
  }
  if (!ok) return unsupported("npy: dtype '" + d + "' is not supported");
  return out;
}

bool append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    if (cp >= 0xD800 && cp <= 0xDFFF) return false;
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x110000) {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    return false;
  }
  return true;
}

// UTF-8 -> code points; false on malformed input.
bool decode_utf8(const std::string& s, std::vector<uint32_t>& out) {
  out.clear();
  for (size_t i = 0; i < s.size();) {
    const uint8_t c = static_cast<uint8_t>(s[i]);
    int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (int k = 1; k < len; ++k) {
      const uint8_t cc = static_cast<uint8_t>(s[i + k]);
      if ((cc >> 6) != 2) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (cp == 0 || cp > 0x10FFFF) return false;  // NUL would be lost: numpy pads with NULs
    out.push_back(cp);
    i += len;
  }
  return true;
}

Expected<std::string> read_all(const std::string& path) {
  auto b = read_file_bytes(path, uint64_t{1} << 40);
  if (!b) return b.status();
  return b;
}

Status write_all(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status(ErrorCode::kInvalidInput, "cannot create file", "", path);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) return Status(ErrorCode::kInvalidInput, "cannot write file", "", path);
  return Status::ok();
}

std::string stem_of(const std::string& path) {
  size_t s = path.find_last_of('/');
  std::string base = s == std::string::npos ? path : path.substr(s + 1);
  if (base.size() > 4 && base.compare(base.size() - 4, 4, ".npy") == 0) base.resize(base.size() - 4);
  return base;
}

// Inflates a raw-deflate zip entry through protobuf's zlib-backed GzipInputStream, by wrapping it
// in a minimal gzip member whose trailer carries the entry's CRC-32 and size (zlib checks both).
// Deflate expands at most 1032:1 (a 258-byte match per 2 bits), so a larger claim is false and is
// refused before inflating anything: an entry claiming 100 GiB needs a 100 MB stream (issue 23). A
// claim within the ratio is inflated up to the claim, and running out of memory on the way is an
// error naming the entry.
constexpr uint64_t kMaxDeflateRatio = 1032;

Expected<std::string> inflate_entry(const std::string& raw, uint32_t crc, uint64_t usize,
                                    const std::string& what) {
  if (usize > raw.size() * kMaxDeflateRatio + 1024)
    return invalid_input(
        strfmt("npz: entry '%s' claims %llu bytes inflated from %zu: more than deflate can "
               "expand (%llu:1)",
               what.c_str(), (unsigned long long)usize, raw.size(), (unsigned long long)kMaxDeflateRatio));
  std::string gz("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10);
  gz += raw;
  put_le(gz, crc, 4);
  put_le(gz, usize & 0xFFFFFFFFu, 4);
  if (gz.size() > static_cast<size_t>(INT_MAX))
    return unsupported("npz: entry '" + what + "' over 2 GiB compressed");
  google::protobuf::io::ArrayInputStream in(gz.data(), static_cast<int>(gz.size()));
  google::protobuf::io::GzipInputStream z(&in, google::protobuf::io::GzipInputStream::GZIP);
  std::string out;
  const void* chunk = nullptr;
  int n = 0;
  try {
    while (z.Next(&chunk, &n)) {
      if (out.size() + static_cast<uint64_t>(n) > usize)
        return invalid_input("npz: entry '" + what + "' inflates past its declared size");
      out.append(static_cast<const char*>(chunk), static_cast<size_t>(n));
    }
  } catch (const std::bad_alloc&) {
    return invalid_input(strfmt("npz: entry '%s' inflates to %llu bytes: out of memory after %zu",
                                what.c_str(), (unsigned long long)usize, out.size()));
  }
  if (z.ZlibErrorCode() < 0 || out.size() != usize)
    return invalid_input("npz: entry '" + what + "' is corrupt (inflate failed or CRC/size mismatch)");
  return out;
}

}  // namespace

uint32_t crc32(const void* data, size_t size, uint32_t crc) {
  const auto* p = static_cast<const uint8_t*>(data);
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) crc = kCrcTable[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

Expected<Tensor> parse_npy(const std::string& b, const std::string& name) {
  if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) return bad_npy("not a .npy file (bad magic)");
  const int major = static_cast<uint8_t>(b[6]);
  uint64_t hlen = 0, hstart = 0;
  if (major == 1) {
    hlen = get_le(b, 8, 2);
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) return bad_npy("truncated header");
    hlen = get_le(b, 8, 4);
    hstart = 12;
  } else {
    return unsupported(strfmt("npy: format version %d is not supported", major));
  }
  if (hlen > b.size() - hstart) return bad_npy("truncated header");
  PLUMB_ASSIGN_OR_RETURN(NpyHeader h, parse_header(b.substr(hstart, hlen)));
  PLUMB_ASSIGN_OR_RETURN(NpyDtype dt, parse_descr(h.descr));
  PLUMB_ASSIGN_OR_RETURN(int64_t n, checked_num_elements(h.shape, "npy array"));
  if (h.fortran && h.shape.size() > 1) return unsupported("npy: fortran_order arrays are not supported");
  const uint64_t data_start = hstart + hlen;
  const uint64_t avail = b.size() - data_start;
  if (dt.itemsize > 0 && static_cast<uint64_t>(n) > avail / static_cast<uint64_t>(dt.itemsize))
    return bad_npy(strfmt("%lld elements of %d bytes claimed, the file has %llu data bytes", (long long)n,
                          dt.itemsize, (unsigned long long)avail));
  const uint64_t need = static_cast<uint64_t>(n) * static_cast<uint64_t>(dt.itemsize);
  if (need != avail)
    return bad_npy(strfmt("%llu data bytes expected, the file has %llu", (unsigned long long)need,
                          (unsigned long long)avail));
  const auto* src = reinterpret_cast<const uint8_t*>(b.data() + data_start);
  if (dt.unicode) {
    std::vector<std::string> strs;
    strs.reserve(static_cast<size_t>(n));
    const int chars = dt.itemsize / 4;
    for (int64_t i = 0; i < n; ++i) {
      std::string s;
      int len = chars;
      auto cp_at = [&](int k) {
        const uint8_t* q = src + i * dt.itemsize + 4 * k;
        return dt.swap ? (uint32_t(q[0]) << 24 | uint32_t(q[1]) << 16 | uint32_t(q[2]) << 8 | q[3])
                       : (uint32_t(q[3]) << 24 | uint32_t(q[2]) << 16 | uint32_t(q[1]) << 8 | q[0]);
      };
      while (len > 0 && cp_at(len - 1) == 0) --len;
      for (int k = 0; k < len; ++k)
        if (!append_utf8(s, cp_at(k)))
          return bad_npy(strfmt("invalid code point in string element %lld", (long long)i));
      strs.push_back(std::move(s));
    }
    return Tensor::from_strings(name, h.shape, strs);
  }
  std::vector<uint8_t> bytes(src, src + need);
  if (dt.swap && dt.itemsize > 1)
    for (uint64_t off = 0; off < need; off += dt.itemsize)
      std::reverse(bytes.begin() + off, bytes.begin() + off + dt.itemsize);
  return Tensor::owned(name, dt.dtype, h.shape, std::move(bytes));
}

Expected<std::string> serialize_npy(const Tensor& t) {
  std::string descr;
  std::string body;
  PLUMB_ASSIGN_OR_RETURN(int64_t n, checked_num_elements(t.dims, "tensor '" + t.name + "'"));
  if (t.dtype == ir::DType::String) {
    PLUMB_ASSIGN_OR_RETURN(auto strs, t.strings());
    std::vector<std::vector<uint32_t>> cps(strs.size());
    size_t width = 0;
    for (size_t i = 0; i < strs.size(); ++i) {
      if (!decode_utf8(strs[i], cps[i]))
        return invalid_input(
            strfmt("tensor '%s': string element %zu is not valid UTF-8 without NULs", t.name.c_str(), i));
      width = std::max(width, cps[i].size());
    }
    if (width == 0) width = 1;  // numpy's minimum '<U1'
    descr = "<U" + std::to_string(width);
    body.reserve(strs.size() * width * 4);
    for (const auto& c : cps)
      for (size_t k = 0; k < width; ++k) put_le(body, k < c.size() ? c[k] : 0, 4);
  } else {
    switch (t.dtype) {
      case ir::DType::Bool: descr = "|b1"; break;
      case ir::DType::I8: descr = "|i1"; break;
      case ir::DType::I16: descr = "<i2"; break;
      case ir::DType::I32: descr = "<i4"; break;
      case ir::DType::I64: descr = "<i8"; break;
      case ir::DType::U8: descr = "|u1"; break;
      case ir::DType::U16: descr = "<u2"; break;
      case ir::DType::U32: descr = "<u4"; break;
      case ir::DType::U64: descr = "<u8"; break;
      case ir::DType::F16: descr = "<f2"; break;
      case ir::DType::F32: descr = "<f4"; break;
      case ir::DType::F64: descr = "<f8"; break;
      default:
        return unsupported(strfmt("npy: numpy has no dtype for %s (tensor '%s')",
                                  std::string(ir::dtype_name(t.dtype)).c_str(), t.name.c_str()));
    }
    if (t.size != ir::dtype_storage_bytes(t.dtype, static_cast<uint64_t>(n)))
      return invalid_input("tensor '" + t.name + "': byte size does not match its dims");
    body.assign(reinterpret_cast<const char*>(t.data), t.size);
  }
  std::string shape = "(";
  for (size_t i = 0; i < t.dims.size(); ++i) shape += (i ? ", " : "") + std::to_string(t.dims[i]);
  if (t.dims.size() == 1) shape += ",";
  shape += ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const bool v2 = header.size() + 11 > 65535;
  const size_t prefix = v2 ? 12 : 10;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(v2 ? 2 : 1));
  out.push_back(0);
  put_le(out, header.size(), v2 ? 4 : 2);
  out += header;
  out += body;
  return out;
}

Expected<Tensor> read_npy(const std::string& path) {
  PLUMB_ASSIGN_OR_RETURN(std::string b, read_all(path));
  auto t = parse_npy(b, stem_of(path));
  if (!t) return place_in_file(t.status(), path);
  return t;
}

Status write_npy(const std::string& path, const Tensor& t) {
  auto b = serialize_npy(t);
  if (!b) return place_in_file(b.status(), path);
  return write_all(path, *b);
}

Expected<std::vector<Tensor>> parse_npz(const std::string& b) {
  // End of central directory: the last "PK\5\6" with room for its 22 bytes.
  if (b.size() < 22) return invalid_input("npz: not a zip archive (too short)");
  int64_t eocd = -1;
  const int64_t lowest = std::max<int64_t>(0, static_cast<int64_t>(b.size()) - 22 - 65535);
  for (int64_t p = static_cast<int64_t>(b.size()) - 22; p >= lowest; --p)
    if (get_le(b, p, 4) == 0x06054b50) {
      eocd = p;
      break;
    }
  if (eocd < 0) return invalid_input("npz: not a zip archive (no end of central directory)");
  uint64_t entries = get_le(b, eocd + 10, 2);
  uint64_t cd_size = get_le(b, eocd + 12, 4);
  uint64_t cd_off = get_le(b, eocd + 16, 4);
  if ((entries == 0xFFFF || cd_off == 0xFFFFFFFF || cd_size == 0xFFFFFFFF) && eocd >= 20 &&
      get_le(b, eocd - 20, 4) == 0x07064b50) {
    const uint64_t z64 = get_le(b, eocd - 20 + 8, 8);
    if (z64 > b.size() || b.size() - z64 < 56 || get_le(b, z64, 4) != 0x06064b50)
      return invalid_input("npz: bad ZIP64 end of central directory");
    entries = get_le(b, z64 + 32, 8);
    cd_size = get_le(b, z64 + 40, 8);
    cd_off = get_le(b, z64 + 48, 8);
  }
  if (cd_off > b.size() || cd_size > b.size() - cd_off)
    return invalid_input("npz: central directory out of range");
  if (entries > cd_size / 46)
    return invalid_input("npz: more entries claimed than the central directory holds");
  std::vector<Tensor> out;
  uint64_t p = cd_off;
  for (uint64_t e = 0; e < entries; ++e) {
    if (cd_off + cd_size - p < 46 || get_le(b, p, 4) != 0x02014b50)
      return invalid_input("npz: bad central directory entry");
    const uint64_t flags = get_le(b, p + 8, 2), method = get_le(b, p + 10, 2);
    const uint32_t crc = static_cast<uint32_t>(get_le(b, p + 16, 4));
    uint64_t csize = get_le(b, p + 20, 4), usize = get_le(b, p + 24, 4);
    const uint64_t nlen = get_le(b, p + 28, 2), elen = get_le(b, p + 30, 2), clen = get_le(b, p + 32, 2);
    uint64_t loff = get_le(b, p + 42, 4);
    if (cd_off + cd_size - p - 46 < nlen + elen + clen)
      return invalid_input("npz: bad central directory entry");
    const std::string fname = b.substr(p + 46, nlen);
    // ZIP64 extra field: the 64-bit values, in order, of the 32-bit fields that are 0xFFFFFFFF.
    for (uint64_t x = p + 46 + nlen; x + 4 <= p + 46 + nlen + elen;) {
      const uint64_t id = get_le(b, x, 2), sz = get_le(b, x + 2, 2);
      if (x + 4 + sz > p + 46 + nlen + elen) break;
      if (id == 1) {
        uint64_t q = x + 4;
        auto take = [&](uint64_t& field) {
          if (field == 0xFFFFFFFF && q + 8 <= x + 4 + sz) {
            field = get_le(b, q, 8);
            q += 8;
          }
        };
        take(usize);
        take(csize);
        take(loff);
      }
      x += 4 + sz;
    }
    p += 46 + nlen + elen + clen;
    if (flags & 1) return unsupported("npz: entry '" + fname + "' is encrypted");
    if (loff > b.size() || b.size() - loff < 30 || get_le(b, loff, 4) != 0x04034b50)
      return invalid_input("npz: entry '" + fname + "' has a bad local header");
    const uint64_t data = loff + 30 + get_le(b, loff + 26, 2) + get_le(b, loff + 28, 2);
    if (data > b.size() || csize > b.size() - data)
      return invalid_input("npz: entry '" + fname + "' is truncated");
    std::string raw = b.substr(data, csize);
    std::string content;
    if (method == 0) {
      if (csize != usize) return invalid_input("npz: stored entry '" + fname + "' has mismatched sizes");
      if (crc32(raw.data(), raw.size()) != crc)
        return invalid_input("npz: entry '" + fname + "' fails its CRC-32");
      content = std::move(raw);
    } else if (method == 8) {
      PLUMB_ASSIGN_OR_RETURN(content, inflate_entry(raw, crc, usize, fname));
    } else {
      return unsupported(
          strfmt("npz: entry '%s' uses compression method %llu (only stored and deflate are supported)",
                 fname.c_str(), (unsigned long long)method));
    }
    std::string name = fname;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0) name.resize(name.size() - 4);
    auto t = parse_npy(content, name);
    if (!t) return Status(t.status().code(), t.status().message(), "", "entry '" + fname + "'");
    out.push_back(std::move(*t));
  }
  return out;
}

Expected<std::string> serialize_npz(const std::vector<Tensor>& tensors) {
  std::string out, cd;
  for (size_t i = 0; i < tensors.size(); ++i) {
    PLUMB_ASSIGN_OR_RETURN(std::string body, serialize_npy(tensors[i]));
    const std::string fname =
        (tensors[i].name.empty() ? "arr_" + std::to_string(i) : tensors[i].name) + ".npy";
    if (body.size() >= 0xFFFFFFFFull || out.size() >= 0xFFFFFFFFull || fname.size() > 0xFFFF)
      return unsupported("npz: writing entries or archives over 4 GiB is not supported");
    const uint32_t crc = crc32(body.data(), body.size());
    const uint64_t loff = out.size();
    put_le(out, 0x04034b50, 4);
    put_le(out, 20, 2);    // version needed
    put_le(out, 0, 2);     // flags
    put_le(out, 0, 2);     // stored
    put_le(out, 0, 2);     // time
    put_le(out, 0x21, 2);  // date 1980-01-01
    put_le(out, crc, 4);
    put_le(out, body.size(), 4);
    put_le(out, body.size(), 4);
    put_le(out, fname.size(), 2);
    put_le(out, 0, 2);
    out += fname;
    out += body;
    put_le(cd, 0x02014b50, 4);
    put_le(cd, 20, 2);
    put_le(cd, 20, 2);
    put_le(cd, 0, 2);
    put_le(cd, 0, 2);
    put_le(cd, 0, 2);
    put_le(cd, 0x21, 2);
    put_le(cd, crc, 4);
    put_le(cd, body.size(), 4);
    put_le(cd, body.size(), 4);
    put_le(cd, fname.size(), 2);
    put_le(cd, 0, 2);
    put_le(cd, 0, 2);
    put_le(cd, 0, 2);
    put_le(cd, 0, 2);
    put_le(cd, 0, 4);
    put_le(cd, loff, 4);
    cd += fname;
  }
  if (tensors.size() >= 0xFFFF || out.size() >= 0xFFFFFFFFull)
    return unsupported("npz: writing archives over 4 GiB or 65535 entries is not supported");
  const uint64_t cd_off = out.size();
  out += cd;
  put_le(out, 0x06054b50, 4);
  put_le(out, 0, 2);
  put_le(out, 0, 2);
  put_le(out, tensors.size(), 2);
  put_le(out, tensors.size(), 2);
  put_le(out, cd.size(), 4);
  put_le(out, cd_off, 4);
  put_le(out, 0, 2);
  return out;
}

Expected<std::vector<Tensor>> read_npz(const std::string& path) {
  PLUMB_ASSIGN_OR_RETURN(std::string b, read_all(path));
  auto t = parse_npz(b);
  if (!t) return place_in_file(t.status(), path);
  return t;
}

Status write_npz(const std::string& path, const std::vector<Tensor>& tensors) {
  auto b = serialize_npz(tensors);
  if (!b) return place_in_file(b.status(), path);
  return write_all(path, *b);
}

}  // namespace plumb::onnx
