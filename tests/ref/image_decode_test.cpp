// ref kernel of image_decode and its decoders (runtime/cpu/ref/image_codecs/). BMP and PNM
// inputs are written by hand; the other formats are tiny files PIL encoded, with the pixels PIL
// decodes them to (tests/ref/image_codecs_data.h, from gen_image_codecs_data.py).
#include <gtest/gtest.h>

#include <string>

#include "runtime/cpu/ref/image_codecs/codec.h"
#include "tests/ref/image_codecs_data.h"
#include "tests/ref/kernel_test_util.h"

namespace plumb::rt {
namespace {

KernelRun decode(ir::PixelFormat format) {
  KernelRun k(ir::Op::ImageDecode);
  k.attr("format", ir::EnumValue{format});
  return k;
}

Tensor bytes_of(const std::vector<uint8_t>& b) {
  return make_tensor<uint8_t>({static_cast<int64_t>(b.size())}, b);
}
Tensor bytes_of(const std::string& s) { return bytes_of(std::vector<uint8_t>(s.begin(), s.end())); }

TEST(RefImageDecode, PnmColorToRgbBgrGray) {
  const std::string ppm = std::string("P6\n# c\n2 1\n255\n") + std::string("\xFF\x00\x00\x00\x00\xFF", 6);
  auto rgb = decode(ir::PixelFormat::Rgb).input(bytes_of(ppm)).run();
  ASSERT_TRUE(rgb.status.is_ok()) << rgb.status.to_string();
  EXPECT_EQ(rgb.out(0).shape, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(values<uint8_t>(rgb.out(0)), (std::vector<uint8_t>{255, 0, 0, 0, 0, 255}));
  auto bgr = decode(ir::PixelFormat::Bgr).input(bytes_of(ppm)).run();
  EXPECT_EQ(values<uint8_t>(bgr.out(0)), (std::vector<uint8_t>{0, 0, 255, 255, 0, 0}));
  auto gray = decode(ir::PixelFormat::Grayscale).input(bytes_of(ppm)).run();
  // (19595*255 + 32768) >> 16 = 76; (7471*255 + 32768) >> 16 = 29
  EXPECT_EQ(values<uint8_t>(gray.out(0)), (std::vector<uint8_t>{76, 29}));
}

TEST(RefImageDecode, PnmSamplesRescaledToMaxval) {
  // maxval 3: 0, 1, 2, 3 -> round(v * 255 / 3) = 0, 85, 170, 255
  auto r = decode(ir::PixelFormat::Grayscale).input(bytes_of(std::string("P5 4 1 3\n\0\1\2\3", 13))).run();
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<uint8_t>(r.out(0)), (std::vector<uint8_t>{0, 85, 170, 255}));
  auto over = decode(ir::PixelFormat::Grayscale).input(bytes_of(std::string("P5 1 1 3\n\4", 10))).run();
  EXPECT_EQ(over.status.label(), "image_decode.R1");
}

TEST(RefImageDecode, BmpBottomUp24Bit) {
  // 1x2 image (w=1, h=2), rows bottom-up, each row 3 bytes + 1 pad byte.
  std::string b(54, '\0');
  auto put32 = [&](size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = char((v >> (8 * i)) & 0xFF);
  };
  b[0] = 'B', b[1] = 'M';
  put32(10, 54), put32(14, 40), put32(18, 1), put32(22, 2);
  b[26] = 1, b[28] = 24;
  b += std::string("\x01\x02\x03\x00", 4);  // bottom row: B=1 G=2 R=3
  b += std::string("\x04\x05\x06\x00", 4);  // top row
  auto r = decode(ir::PixelFormat::Rgb).input(bytes_of(b)).run();
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<uint8_t>(r.out(0)), (std::vector<uint8_t>{6, 5, 4, 3, 2, 1}));
}

TEST(RefImageDecode, R1UndecodableBytes) {
  EXPECT_EQ(decode(ir::PixelFormat::Rgb).input(bytes_of("hello")).run().status.label(), "image_decode.R1");
  EXPECT_EQ(decode(ir::PixelFormat::Rgb).input(bytes_of("P6\n2 2\n255\n\x01")).run().status.label(),
            "image_decode.R1");
  EXPECT_EQ(decode(ir::PixelFormat::Rgb).input(bytes_of("\x89PNG\r\n\x1a\n")).run().status.label(),
            "image_decode.R1");
}

TEST(RefImageDecode, R1SizeLimitCheckedWithoutOverflow) {
  namespace image = ref::image;
  EXPECT_TRUE(image::check_size("X", 9459, 9459, 3).is_ok());  // 268,402,443 samples <= 2^28
  EXPECT_EQ(image::check_size("X", 9460, 9460, 3).label(), "image_decode.R1");
  EXPECT_EQ(image::check_size("X", int64_t{1} << 40, int64_t{1} << 40, 3).label(), "image_decode.R1");
  EXPECT_EQ(image::check_size("X", 0, 5, 3).label(), "image_decode.R1");
}

TEST(RefImageDecode, RescaleTo8RoundsExactly) {
  namespace image = ref::image;
  EXPECT_EQ(image::rescale_to_8(128, 16), 0);  // 128 / 257 = 0.498
  EXPECT_EQ(image::rescale_to_8(129, 16), 1);  // 0.502
  EXPECT_EQ(image::rescale_to_8(65535, 16), 255);
  EXPECT_EQ(image::rescale_to_8(1, 1), 255);
  EXPECT_EQ(image::rescale_to_8(2, 2), 170);
  EXPECT_EQ(image::rescale_to_8(2048, 12), 128);  // 2048 * 255 / 4095 = 127.56
  EXPECT_EQ(image::rescale_to_8(77, 8), 77);
}

// The library-backed decoders, in a build that has them (PLUMB_IMAGE_CODECS, the default).
class RefImageCodecs : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ref::image::library_codecs_built()) GTEST_SKIP() << "built without PLUMB_IMAGE_CODECS";
  }
};

struct Sample {
  const char* name;
  const std::vector<uint8_t>* file;
};

// One file per library-backed decoder: the truncation and corruption sweeps run over these.
const Sample kEncoded[] = {
    {"PngRgb", &testing::kPngRgb},
    {"PngPalette", &testing::kPngPalette},
    {"PngGray16", &testing::kPngGray16},
    {"JpegRgb", &testing::kJpegRgb},
    {"JpegProgressive", &testing::kJpegProgressive},
    {"TiffRgb", &testing::kTiffRgb},
    {"TiffRgbLzw", &testing::kTiffRgbLzw},
    {"WebpLossless", &testing::kWebpLossless},
    {"WebpLossy", &testing::kWebpLossy},
    {"Jp2Lossless", &testing::kJp2Lossless},
    {"J2kLossless", &testing::kJ2kLossless},
};

struct Expected {
  const char* name;
  const std::vector<uint8_t>* file;
  int64_t h, w;
  const std::vector<uint8_t>* rgb;
};

#define PLUMB_EXPECTED(name) \
  Expected { #name, &testing::k##name, testing::k##name##H, testing::k##name##W, &testing::k##name##Rgb }

TEST_F(RefImageCodecs, LosslessFormatsGiveTheSourcePixels) {
  const Expected cases[] = {
      PLUMB_EXPECTED(PngRgb),      PLUMB_EXPECTED(PngGray),     PLUMB_EXPECTED(PngPalette),
      PLUMB_EXPECTED(PngRgba),     PLUMB_EXPECTED(PngGray16),   PLUMB_EXPECTED(TiffRgb),
      PLUMB_EXPECTED(TiffRgbLzw),  PLUMB_EXPECTED(TiffGray),    PLUMB_EXPECTED(WebpLossless),
      PLUMB_EXPECTED(Jp2Lossless), PLUMB_EXPECTED(J2kLossless),
  };
  for (const Expected& c : cases) {
    SCOPED_TRACE(c.name);
    auto r = decode(ir::PixelFormat::Rgb).input(bytes_of(*c.file)).run();
    ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
    EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{c.h, c.w, 3}));
    EXPECT_EQ(values<uint8_t>(r.out(0)), *c.rgb);
  }
}

// JPEG and lossy WebP: libjpeg-turbo's islow IDCT with fancy upsampling and libwebp's defaults
// are PIL's settings, so the pixels agree exactly, in RGB, BGR and grayscale (PIL's "L").
TEST_F(RefImageCodecs, LossyFormatsMatchPil) {
  const Expected cases[] = {PLUMB_EXPECTED(JpegRgb), PLUMB_EXPECTED(JpegProgressive),
                            PLUMB_EXPECTED(JpegGray), PLUMB_EXPECTED(WebpLossy)};
  const std::vector<uint8_t>* grays[] = {&testing::kJpegRgbGray, &testing::kJpegProgressiveGray,
                                         &testing::kJpegGrayGray, &testing::kWebpLossyGray};
  for (size_t i = 0; i < std::size(cases); ++i) {
    const Expected& c = cases[i];
    SCOPED_TRACE(c.name);
    auto rgb = decode(ir::PixelFormat::Rgb).input(bytes_of(*c.file)).run();
    ASSERT_TRUE(rgb.status.is_ok()) << rgb.status.to_string();
    EXPECT_EQ(values<uint8_t>(rgb.out(0)), *c.rgb);
    auto bgr = decode(ir::PixelFormat::Bgr).input(bytes_of(*c.file)).run();
    ASSERT_TRUE(bgr.status.is_ok()) << bgr.status.to_string();
    const std::vector<uint8_t> got = values<uint8_t>(bgr.out(0));
    for (size_t p = 0; p < got.size(); p += 3)
      ASSERT_TRUE(got[p] == (*c.rgb)[p + 2] && got[p + 1] == (*c.rgb)[p + 1] && got[p + 2] == (*c.rgb)[p])
          << p;
    auto gray = decode(ir::PixelFormat::Grayscale).input(bytes_of(*c.file)).run();
    ASSERT_TRUE(gray.status.is_ok()) << gray.status.to_string();
    EXPECT_EQ(gray.out(0).shape, (std::vector<int64_t>{c.h, c.w, 1}));
    EXPECT_EQ(values<uint8_t>(gray.out(0)), *grays[i]);
  }
}

// Every proper prefix of a valid file is an error, never a partial image or a crash.
TEST_F(RefImageCodecs, R1TruncatedFilesAreErrors) {
  for (const Sample& s : kEncoded) {
    for (size_t n = 0; n < s.file->size(); ++n) {
      std::vector<uint8_t> prefix(s.file->begin(), s.file->begin() + static_cast<std::ptrdiff_t>(n));
      auto r = decode(ir::PixelFormat::Rgb).input(bytes_of(prefix)).run();
      ASSERT_EQ(r.status.label(), "image_decode.R1") << s.name << " cut to " << n << " bytes";
    }
  }
}

// Corrupt bytes anywhere: the result is an image or an R1 error, never a crash (the asan build
// runs this) and never another kind of error.
TEST_F(RefImageCodecs, R1CorruptFilesNeverCrash) {
  for (const Sample& s : kEncoded) {
    for (size_t at = 0; at < s.file->size(); ++at) {
      std::vector<uint8_t> bad = *s.file;
      bad[at] ^= 0x5A;
      auto r = decode(ir::PixelFormat::Rgb).input(bytes_of(bad)).run();
      if (!r.status.is_ok()) {
        ASSERT_EQ(r.status.label(), "image_decode.R1") << s.name << " byte " << at;
      }
    }
  }
}

// A copy of `file` whose two big-endian size fields of `field_bytes` each, at `at`, say 60000.
std::vector<uint8_t> with_size_60000(std::vector<uint8_t> file, size_t at, size_t field_bytes) {
  for (size_t k = 0; k < 2 * field_bytes && at + k < file.size(); ++k) {
    const size_t digit = field_bytes - 1 - k % field_bytes;    // 0: the low byte
    file[at + k] = digit == 0 ? 0x60 : digit == 1 ? 0xEA : 0;  // 0xEA60 = 60000
  }
  return file;
}

TEST_F(RefImageCodecs, R1HugeImageRefusedBeforeAllocation) {
  const std::vector<uint8_t>& jpeg = testing::kJpegRgb;
  size_t sof = 0;
  while (sof + 1 < jpeg.size() && !(jpeg[sof] == 0xFF && jpeg[sof + 1] == 0xC0)) ++sof;
  ASSERT_LT(sof + 9, jpeg.size());
  // J2K SIZ: FF4F FF51 Lsiz(2) Rsiz(2) Xsiz(4) Ysiz(4) XOsiz(4) YOsiz(4) XTsiz(4) YTsiz(4).
  std::vector<uint8_t> j2k = with_size_60000(testing::kJ2kLossless, 8, 4);
  j2k = with_size_60000(j2k, 24, 4);
  const std::vector<uint8_t> files[] = {testing::kPngHuge, with_size_60000(jpeg, sof + 5, 2), j2k};
  for (const auto& file : files) {
    auto r = decode(ir::PixelFormat::Rgb).input(bytes_of(file)).run();
    EXPECT_EQ(r.status.label(), "image_decode.R1");
    EXPECT_NE(r.status.message().find("exceeds this runtime's limit"), std::string::npos)
        << r.status.message();
  }
}

TEST_F(RefImageCodecs, R1TiffWithAlphaRefused) {
  auto r = decode(ir::PixelFormat::Rgb).input(bytes_of(testing::kTiffRgba)).run();
  EXPECT_EQ(r.status.label(), "image_decode.R1");
  EXPECT_NE(r.status.message().find("alpha"), std::string::npos) << r.status.message();
}

// The tiny runtime (PLUMB_IMAGE_CODECS off): the error names the decoder it lacks.
TEST(RefImageDecode, R1DecoderNotBuiltIsNamed) {
  if (ref::image::library_codecs_built()) GTEST_SKIP() << "built with PLUMB_IMAGE_CODECS";
  const std::pair<const std::vector<uint8_t>*, std::string> cases[] = {
      {&testing::kPngRgb, "PNG"},
      {&testing::kJpegRgb, "JPEG"},
      {&testing::kTiffRgb, "TIFF"},
      {&testing::kWebpLossy, "WebP"},
      {&testing::kJp2Lossless, "JPEG 2000"},
      {&testing::kJ2kLossless, "JPEG 2000"},
  };
  for (const auto& [file, name] : cases) {
    auto r = decode(ir::PixelFormat::Rgb).input(bytes_of(*file)).run();
    EXPECT_EQ(r.status.label(), "image_decode.R1");
    EXPECT_NE(r.status.message().find("built without the " + name + " decoder"), std::string::npos)
        << r.status.message();
  }
}

}  // namespace
}  // namespace plumb::rt
