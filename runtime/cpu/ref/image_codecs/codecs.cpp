// The format table of image_decode: signatures, and which decoders this build has.
#include <cstdio>
#include <cstring>

#include "runtime/cpu/ref/image_codecs/codec.h"

namespace plumb::rt::ref::image {

namespace {

bool starts_with(Bytes in, const char* magic, size_t n) {
  return in.size >= n && std::memcmp(in.data, magic, n) == 0;
}

bool is_bmp(Bytes in) { return starts_with(in, "BM", 2); }
bool is_pnm(Bytes in) { return starts_with(in, "P5", 2) || starts_with(in, "P6", 2); }
bool is_png(Bytes in) { return starts_with(in, "\x89PNG\r\n\x1a\n", 8); }
bool is_jpeg(Bytes in) { return starts_with(in, "\xFF\xD8\xFF", 3); }
// Classic and BigTIFF, either byte order.
bool is_tiff(Bytes in) {
  return starts_with(in, "II*\0", 4) || starts_with(in, "MM\0*", 4) || starts_with(in, "II+\0", 4) ||
         starts_with(in, "MM\0+", 4);
}
bool is_webp(Bytes in) {
  return in.size >= 12 && starts_with(in, "RIFF", 4) && std::memcmp(in.data + 8, "WEBP", 4) == 0;
}
// A JP2 file (signature box) or a bare J2K codestream (SOC then SIZ marker).
bool is_jpeg2000(Bytes in) {
  return starts_with(in, "\0\0\0\x0cjP  \r\n\x87\n", 12) || starts_with(in, "\xFF\x4F\xFF\x51", 4);
}

#if PLUMB_HAVE_IMAGE_CODECS
#define PLUMB_LIBRARY_DECODER(fn) fn
#else
#define PLUMB_LIBRARY_DECODER(fn) nullptr
#endif

const Codec kCodecs[] = {
    {"BMP", is_bmp, decode_bmp},
    {"PNM", is_pnm, decode_pnm},
    {"PNG", is_png, PLUMB_LIBRARY_DECODER(decode_png)},
    {"JPEG", is_jpeg, PLUMB_LIBRARY_DECODER(decode_jpeg)},
    {"TIFF", is_tiff, PLUMB_LIBRARY_DECODER(decode_tiff)},
    {"WebP", is_webp, PLUMB_LIBRARY_DECODER(decode_webp)},
    {"JPEG 2000", is_jpeg2000, PLUMB_LIBRARY_DECODER(decode_jpeg2000)},
};

}  // namespace

size_t Source::read(void* out, size_t n) {
  const uint64_t left = pos < in.size ? in.size - pos : 0;
  const size_t take = n < left ? n : static_cast<size_t>(left);
  if (take > 0) std::memcpy(out, in.data + pos, take);
  pos += take;
  return take;
}

void Source::report(const char* msg) {
  if (message[0] != '\0') return;
  std::snprintf(message, sizeof message, "%s", msg);
  const size_t n = std::strlen(message);
  if (n > 0 && message[n - 1] == '\n') message[n - 1] = '\0';
}

Status decode_error(const char* format, const std::string& why) {
  return runtime_error("image_decode.R1", std::string(format) + ": " + why);
}

Status check_size(const char* format, int64_t width, int64_t height, int64_t channels) {
  if (width <= 0 || height <= 0) return decode_error(format, "invalid image size");
  // Divide rather than multiply so that no product can overflow.
  if (width > kMaxSamples / channels / height)
    return decode_error(format, strfmt("image of %lld x %lld x %lld samples exceeds this runtime's limit of "
                                       "2^28 samples",
                                       static_cast<long long>(width), static_cast<long long>(height),
                                       static_cast<long long>(channels)));
  return Status::ok();
}

Status allocate_rgb(const char* format, int64_t width, int64_t height, Rgb8* img) {
  PLUMB_RETURN_IF_ERROR(check_size(format, width, height, 3));
  img->width = width;
  img->height = height;
  img->rgb.assign(static_cast<size_t>(width * height * 3), 0);
  return Status::ok();
}

uint8_t rescale_to_8(uint32_t v, int bits) {
  if (bits == 8) return static_cast<uint8_t>(v);
  const uint64_t max = (uint64_t{1} << bits) - 1;
  return static_cast<uint8_t>((uint64_t{v} * 255 * 2 + max) / (2 * max));
}

bool library_codecs_built() {
#if PLUMB_HAVE_IMAGE_CODECS
  return true;
#else
  return false;
#endif
}

const Codec* find_codec(Bytes in) {
  for (const Codec& c : kCodecs)
    if (c.matches(in)) return &c;
  return nullptr;
}

}  // namespace plumb::rt::ref::image
