// The internal interface between the image_decode kernel (runtime/cpu/ref/image_decode.cpp) and
// its decoders, one file per format in this folder (spec/ops/image_decode.md). A decoder turns a
// complete encoded file into 8-bit RGB rows, top row first, or returns image_decode.R1; the
// kernel then lays out rgb, bgr or grayscale. Decoders backed by a library (JPEG, PNG, TIFF,
// WebP, JPEG 2000) are compiled only when PLUMB_IMAGE_CODECS is ON (never in the tiny runtime);
// BMP and PNM need no library and are always there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/status.h"

namespace plumb::rt::ref::image {

struct Bytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
};

struct Rgb8 {
  int64_t height = 0, width = 0;
  std::vector<uint8_t> rgb;  // height * width * 3, row-major, top row first
};

// The encoded bytes as a stream, for libraries that read through callbacks, and the first error
// the library reported (a fixed buffer: a callback that longjmps must not own a std::string).
struct Source {
  Bytes in;
  uint64_t pos = 0;
  char message[256] = {0};
  // Copies up to n bytes at pos and advances; returns how many (0 at the end).
  size_t read(void* out, size_t n);
  // Keeps the first message only, without a trailing newline.
  void report(const char* msg);
  std::string why(const char* fallback) const { return message[0] != '\0' ? message : fallback; }
};

// The allocation bound (spec/ops/image_decode.md, image_decode.R1): a decoder refuses an image
// whose width * height * channels (the samples it would hold in memory at once, counting the
// library's own whole-image buffers) exceeds this, before it allocates them. 2^28 samples is a
// 9459 x 9459 RGB image.
constexpr int64_t kMaxSamples = int64_t{1} << 28;

// image_decode.R1, "<format>: <why>".
Status decode_error(const char* format, const std::string& why);

// decode_error unless 0 < width, 0 < height and width * height * channels <= kMaxSamples.
Status check_size(const char* format, int64_t width, int64_t height, int64_t channels);

// check_size for 3 channels, then sizes img for width x height RGB.
Status allocate_rgb(const char* format, int64_t width, int64_t height, Rgb8* img);

// Rescales a sample of `bits` precision (1..32) to 8 bits exactly: round(v * 255 / (2^bits - 1)),
// halves rounding up, as PNM and PNG define samples relative to their maximum.
uint8_t rescale_to_8(uint32_t v, int bits);

// Decoders; each expects bytes whose signature matched its format (see codecs.cpp).
Status decode_bmp(Bytes in, Rgb8* img);
Status decode_pnm(Bytes in, Rgb8* img);
// Defined only when PLUMB_IMAGE_CODECS is ON; codecs.cpp refers to them only then.
Status decode_jpeg(Bytes in, Rgb8* img);
Status decode_png(Bytes in, Rgb8* img);
Status decode_tiff(Bytes in, Rgb8* img);
Status decode_webp(Bytes in, Rgb8* img);
Status decode_jpeg2000(Bytes in, Rgb8* img);

// One entry per format the kernel recognises by signature; decode is null when this build leaves
// the format's decoder out.
struct Codec {
  const char* name;  // "JPEG", as in messages
  bool (*matches)(Bytes in);
  Status (*decode)(Bytes in, Rgb8* img);
};

// The codec whose signature `in` starts with, or null for an unknown format.
const Codec* find_codec(Bytes in);

// Whether this build has the library-backed decoders (PLUMB_IMAGE_CODECS).
bool library_codecs_built();

}  // namespace plumb::rt::ref::image
