// ir/constant_values.h: decoding and encoding constants of every integer and packed dtype.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "ir/constant_values.h"
#include "ir/infer.h"

namespace plumb::ir {
namespace {

// ---- constant decoding (ir/constant_values.h) ---------------------------------------------------------

TEST(ConstantValues, DecodesLittleEndianAndPackedTypes) {
  auto decode = [](DType dt, std::vector<int64_t> dims, std::vector<uint8_t> bytes) {
    return constant_int_values(ConstantData::owned(Type::tensor(dt, static_shape(dims)), std::move(bytes)));
  };
  EXPECT_EQ(decode(DType::I16, {2}, {0x34, 0x12, 0xfe, 0xff}), (std::vector<int64_t>{0x1234, -2}));
  EXPECT_EQ(decode(DType::U16, {1}, {0xfe, 0xff}), (std::vector<int64_t>{65534}));
  // i4 [1, 2, 3, -1]: low nibble first.
  EXPECT_EQ(decode(DType::I4, {4}, {0x21, 0xf3}), (std::vector<int64_t>{1, 2, 3, -1}));
  EXPECT_EQ(decode(DType::U4, {3}, {0x21, 0xf3}), (std::vector<int64_t>{1, 2, 3}));
  // i2 [1, -2, -1, 0] = 0b00'11'10'01
  EXPECT_EQ(decode(DType::I2, {4}, {0x39}), (std::vector<int64_t>{1, -2, -1, 0}));
  EXPECT_EQ(decode(DType::I64, {}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}),
            (std::vector<int64_t>{-1}));
  // Not integer, wrong size, too big for int64, too many: unknown.
  EXPECT_FALSE(decode(DType::F32, {1}, {0, 0, 0, 0}).has_value());
  EXPECT_FALSE(decode(DType::I32, {2}, {0, 0, 0, 0}).has_value());
  EXPECT_FALSE(decode(DType::U64, {}, {0, 0, 0, 0, 0, 0, 0, 0x80}).has_value());
  EXPECT_FALSE(
      decode(DType::I8, {kMaxKnownValues + 1}, std::vector<uint8_t>(kMaxKnownValues + 1)).has_value());
}

TEST(ConstantValues, EncodeRoundTrips) {
  Expected<std::vector<uint8_t>> b = encode_int_values(DType::I4, {1, -2, 7, -8, 3});
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(*b, (std::vector<uint8_t>{0xe1, 0x87, 0x03}));
  Expected<std::vector<uint8_t>> w = encode_int_values(DType::I8, {300});  // wraps to 44
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(*w, (std::vector<uint8_t>{44}));
  Expected<std::vector<uint8_t>> f = encode_float_values(DType::F32, {1.0, 1e300});
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(*f, (std::vector<uint8_t>{0, 0, 0x80, 0x3f, 0, 0, 0x80, 0x7f}));  // 1.0f, +inf
  EXPECT_FALSE(encode_int_values(DType::F32, {1}).has_value());
  EXPECT_FALSE(encode_float_values(DType::F16, {1}).has_value());
}

}  // namespace
}  // namespace plumb::ir
