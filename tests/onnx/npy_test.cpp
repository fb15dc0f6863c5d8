// .npy / .npz reading and writing.
#include "frontends/onnx/npy.h"

#include <gtest/gtest.h>

#include <google/protobuf/io/gzip_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace plumb::onnx {
namespace {

using Bytes = std::vector<uint8_t>;

// A .npy v1.0 file as numpy writes it: header padded with spaces to a multiple of 64, then '\n'.
std::string npy(const std::string& dict, const std::string& data) {
  std::string h = dict;
  while ((10 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(h.size() & 0xFF));
  out.push_back(static_cast<char>(h.size() >> 8));
  return out + h + data;
}

TEST(Npy, ReadsInt32) {
  auto t = parse_npy(npy("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }",
                         std::string("\x01\0\0\0\x02\0\0\0\xff\xff\xff\xff", 12)),
                     "a");
  ASSERT_TRUE(t) << t.status().to_string();
  EXPECT_EQ(t->dtype, ir::DType::I32);
  EXPECT_EQ(t->dims, (std::vector<int64_t>{3}));
  EXPECT_EQ(t->bytes(), (Bytes{1, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}));
}

TEST(Npy, BigEndianIsSwapped) {
  auto t = parse_npy(
      npy("{'descr': '>i2', 'fortran_order': False, 'shape': (1, 2), }", std::string("\x01\x02\x00\x03", 4)));
  ASSERT_TRUE(t) << t.status().to_string();
  EXPECT_EQ(t->dtype, ir::DType::I16);
  EXPECT_EQ(t->dims, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(t->bytes(), (Bytes{0x02, 0x01, 0x03, 0x00}));
}

TEST(Npy, ReadsScalarBoolAndHalf) {
  auto s =
      parse_npy(npy("{'descr': '<f2', 'fortran_order': False, 'shape': (), }", std::string("\x00\x3c", 2)));
  ASSERT_TRUE(s) << s.status().to_string();
  EXPECT_EQ(s->dtype, ir::DType::F16);
  EXPECT_TRUE(s->dims.empty());
  auto b =
      parse_npy(npy("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", std::string("\x01\x00", 2)));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->dtype, ir::DType::Bool);
}

TEST(Npy, UnicodeStrings) {
  // '<U2' ["hé", "x"]: UTF-32LE, padded with NULs
  std::string data("h\0\0\0\xe9\0\0\0x\0\0\0\0\0\0\0", 16);
  auto t = parse_npy(npy("{'descr': '<U2', 'fortran_order': False, 'shape': (2,), }", data));
  ASSERT_TRUE(t) << t.status().to_string();
  EXPECT_EQ(*t->strings(), (std::vector<std::string>{"h\xc3\xa9", "x"}));
  auto back = serialize_npy(*t);
  ASSERT_TRUE(back);
  EXPECT_NE(back->find("'<U2'"), std::string::npos);
  EXPECT_EQ(back->substr(back->size() - 16), data);
}

TEST(Npy, RoundTripEveryNumpyDtype) {
  for (auto dt :
       {ir::DType::Bool, ir::DType::I8, ir::DType::I16, ir::DType::I32, ir::DType::I64, ir::DType::U8,
        ir::DType::U16, ir::DType::U32, ir::DType::U64, ir::DType::F16, ir::DType::F32, ir::DType::F64}) {
    std::vector<uint8_t> bytes(ir::dtype_storage_bytes(dt, 6));
    for (size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = static_cast<uint8_t>(dt == ir::DType::Bool ? i % 2 : i * 7);
    Tensor t = Tensor::owned("x", dt, {2, 3}, bytes);
    auto s = serialize_npy(t);
    ASSERT_TRUE(s) << ir::dtype_name(dt);
    EXPECT_EQ((s->size() - bytes.size()) % 64, 0u);  // header aligned as numpy aligns it
    auto r = parse_npy(*s, "x");
    ASSERT_TRUE(r) << r.status().to_string();
    EXPECT_EQ(r->dtype, dt);
    EXPECT_EQ(r->dims, t.dims);
    EXPECT_EQ(r->bytes(), bytes);
  }
  EXPECT_EQ(serialize_npy(Tensor::owned("b", ir::DType::BF16, {1}, {0, 0})).status().code(),
            ErrorCode::kUnsupported);
}

TEST(Npy, MalformedIsInvalidInput) {
  const std::string good =
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", std::string(8, '\0'));
  for (size_t cut = 0; cut < good.size(); ++cut) EXPECT_FALSE(parse_npy(good.substr(0, cut))) << cut;
  // A huge claimed shape with 8 bytes of data: refused before allocating.
  auto big = parse_npy(
      npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000,), }", std::string(8, '\0')));
  ASSERT_FALSE(big);
  EXPECT_EQ(big.status().code(), ErrorCode::kInvalidInput);
  // Zero-width strings: 2^56 elements in no data bytes (a fuzz finding: tests/fuzz/regressions/).
  auto zero_width =
      parse_npy(npy("{'descr': '<U0', 'fortran_order': False, 'shape': (77777777777777488,), }", ""));
  ASSERT_FALSE(zero_width);
  EXPECT_EQ(zero_width.status().code(), ErrorCode::kInvalidInput);
  EXPECT_NE(zero_width.status().message().find("zero-width"), std::string::npos);
  auto finding =
      read_file_bytes(std::string(PLUMB_SOURCE_DIR) + "/tests/fuzz/regressions/npy_zero_width_strings.npy");
  ASSERT_TRUE(finding);
  EXPECT_EQ(parse_npy(*finding).status().code(), ErrorCode::kInvalidInput);
  EXPECT_EQ(parse_npy(npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", std::string(8, '\0')))
                .status()
                .code(),
            ErrorCode::kUnsupported);
  EXPECT_EQ(parse_npy(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 1), }", std::string(8, '\0')))
                .status()
                .code(),
            ErrorCode::kUnsupported);
}

TEST(Npz, Crc32KnownValue) { EXPECT_EQ(crc32("123456789", 9), 0xCBF43926u); }

TEST(Npz, StoredRoundTrip) {
  std::vector<Tensor> ts = {Tensor::owned("a", ir::DType::I64, {1}, {5, 0, 0, 0, 0, 0, 0, 0}),
                            Tensor::from_strings("b", {2}, {"p", "qr"})};
  auto z = serialize_npz(ts);
  ASSERT_TRUE(z) << z.status().to_string();
  EXPECT_EQ(z->substr(0, 4), std::string("PK\x03\x04", 4));
  auto r = parse_npz(*z);
  ASSERT_TRUE(r) << r.status().to_string();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].name, "a");
  EXPECT_EQ((*r)[0].bytes(), ts[0].bytes());
  EXPECT_EQ((*r)[1].name, "b");
  EXPECT_EQ(*(*r)[1].strings(), (std::vector<std::string>{"p", "qr"}));
  // Corrupting a data byte fails the CRC.
  std::string bad = *z;
  bad[bad.find("\x05\0\0\0", 0, 4)] = 6;
  EXPECT_FALSE(parse_npz(bad));
  for (size_t cut = 0; cut < z->size(); cut += 7) EXPECT_FALSE(parse_npz(z->substr(0, cut))) << cut;
}

void put(std::string& b, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// The fields a zip entry's local header and its central directory record share, from the flags on:
// no flags, method 8 (deflate), time and date 0, the CRC-32, the deflated and inflated sizes, the
// name's length.
void put_entry(std::string& z, uint32_t crc, uint64_t deflated, uint64_t inflated, size_t name_size) {
  put(z, 0, 2);
  put(z, 8, 2);
  put(z, 0, 4);
  put(z, crc, 4);
  put(z, deflated, 4);
  put(z, inflated, 4);
  put(z, name_size, 2);
}

// A one-entry .npz ("v.npy") holding `body` deflated (numpy.savez_compressed, zlib's deflate); its headers
// claim `claimed` bytes inflated
// (-1: the true size). *cd is where the central directory starts.
std::string deflated_npz(const std::string& body, int64_t claimed, size_t* cd_at) {
  std::string gz;
  {
    google::protobuf::io::StringOutputStream so(&gz);
    google::protobuf::io::GzipOutputStream zo(&so);
    void* buf;
    int n;
    EXPECT_TRUE(zo.Next(&buf, &n));
    EXPECT_GE(n, static_cast<int>(body.size()));
    std::memcpy(buf, body.data(), body.size());
    zo.BackUp(n - static_cast<int>(body.size()));
    EXPECT_TRUE(zo.Close());
  }
  const std::string raw = gz.substr(10, gz.size() - 18);  // strip the gzip header and trailer
  const uint32_t crc = crc32(body.data(), body.size());
  const std::string name = "v.npy";
  const uint64_t inflated = claimed < 0 ? body.size() : static_cast<uint64_t>(claimed);
  std::string z;
  put(z, 0x04034b50, 4);
  put(z, 20, 2);
  put_entry(z, crc, raw.size(), inflated, name.size());
  put(z, 0, 2);
  z += name + raw;
  const size_t cd = z.size();
  put(z, 0x02014b50, 4);
  put(z, 20, 2);
  put(z, 20, 2);
  put_entry(z, crc, raw.size(), inflated, name.size());
  put(z, 0, 6);
  put(z, 0, 2);
  put(z, 0, 4);
  put(z, 0, 4);
  z += name;
  const size_t cd_size = z.size() - cd;
  put(z, 0x06054b50, 4);
  put(z, 0, 4);
  put(z, 1, 2);
  put(z, 1, 2);
  put(z, cd_size, 4);
  put(z, cd, 4);
  put(z, 0, 2);
  *cd_at = cd;
  return z;
}

TEST(Npz, ReadsDeflatedEntry) {
  const std::string body =
      npy("{'descr': '<u2', 'fortran_order': False, 'shape': (4,), }", std::string("\1\0\2\0\3\0\4\0", 8));
  size_t cd = 0;
  const std::string z = deflated_npz(body, -1, &cd);
  auto r = parse_npz(z);
  ASSERT_TRUE(r) << r.status().to_string();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].name, "v");
  EXPECT_EQ((*r)[0].dtype, ir::DType::U16);
  EXPECT_EQ((*r)[0].bytes(), (Bytes{1, 0, 2, 0, 3, 0, 4, 0}));
  // A wrong CRC in the directory is caught by zlib's gzip trailer check.
  std::string bad = z;
  bad[cd + 16] ^= 1;
  EXPECT_FALSE(parse_npz(bad));
}

// Issue 23's hostile .npz: an entry of a few bytes that claims 4 GiB - 16 inflated is refused before
// anything is inflated (deflate expands at most 1032:1); a claim within the ratio that the stream
// does not reach is a corrupt entry.
TEST(Npz, ClaimPastDeflatesRatioIsRefused) {
  const std::string body = npy("{'descr': '<u1', 'fortran_order': False, 'shape': (4,), }", "abcd");
  size_t cd = 0;
  auto r = parse_npz(deflated_npz(body, 0xFFFFFFF0, &cd));
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().to_string().find("claims 4294967280 bytes inflated from"), std::string::npos)
      << r.status().to_string();
  r = parse_npz(deflated_npz(body, 4096, &cd));
  ASSERT_FALSE(r);
  EXPECT_NE(r.status().to_string().find("is corrupt"), std::string::npos) << r.status().to_string();
}

}  // namespace
}  // namespace plumb::onnx
