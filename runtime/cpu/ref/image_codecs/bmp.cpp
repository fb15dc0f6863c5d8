// Uncompressed BMP (BI_RGB, 24 or 32 bits per pixel), decoded with no library: every other BMP
// variant is image_decode.R1 ("not decodable by this runtime"), never a guess.
#include "runtime/cpu/ref/image_codecs/codec.h"

namespace plumb::rt::ref::image {

namespace {

uint32_t le32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t(p[3]) << 24); }
uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

}  // namespace

Status decode_bmp(Bytes in, Rgb8* img) {
  const uint8_t* b = in.data;
  const size_t n = in.size;
  if (n < 54) return decode_error("BMP", "truncated header");
  const uint32_t data_off = le32(b + 10);
  const uint32_t hdr = le32(b + 14);
  if (hdr < 40) return decode_error("BMP", "core headers are not supported");
  const int32_t w = static_cast<int32_t>(le32(b + 18));
  const int32_t hs = static_cast<int32_t>(le32(b + 22));
  const uint16_t bpp = le16(b + 28);
  const uint32_t comp = le32(b + 30);
  if (comp != 0)
    return decode_error("BMP", "compression " + std::to_string(comp) + " is not decodable by this runtime");
  if (bpp != 24 && bpp != 32)
    return decode_error("BMP", std::to_string(bpp) + " bits per pixel is not decodable by this runtime");
  if (hs == INT32_MIN) return decode_error("BMP", "invalid image size");
  const int64_t h = hs < 0 ? -int64_t{hs} : hs;
  PLUMB_RETURN_IF_ERROR(check_size("BMP", w, h, 3));
  const int64_t bytes_pp = bpp / 8;
  const int64_t stride = (int64_t{w} * bytes_pp + 3) / 4 * 4;
  if (data_off > n || static_cast<int64_t>(n - data_off) < stride * h)
    return decode_error("BMP", "truncated pixel data");
  PLUMB_RETURN_IF_ERROR(allocate_rgb("BMP", w, h, img));
  for (int64_t y = 0; y < h; ++y) {
    const int64_t src_row = hs > 0 ? h - 1 - y : y;  // positive height: bottom-up rows
    const uint8_t* row = b + data_off + src_row * stride;
    for (int64_t x = 0; x < w; ++x) {
      uint8_t* px = &img->rgb[static_cast<size_t>((y * w + x) * 3)];
      px[0] = row[x * bytes_pp + 2];
      px[1] = row[x * bytes_pp + 1];
      px[2] = row[x * bytes_pp + 0];
    }
  }
  return Status::ok();
}

}  // namespace plumb::rt::ref::image
