// ref kernel of image_decode (spec/ops/image_decode.md). The reference runtime decodes the
// formats it can decode exactly with no library: binary PNM (P5 grey, P6 RGB, maxval <= 255) and
// uncompressed BMP (BI_RGB, 24 or 32 bits per pixel). Every other format is image_decode.R1
// ("not decodable by this runtime"), never a guess.
#include <cstring>

#include "runtime/cpu/ref/kernel.h"

namespace plumb::rt::ref {

namespace {

constexpr int64_t kMaxPixels = int64_t{1} << 28;  // refuse images above 256 Mpixel

struct Rgb8 {
  int64_t h = 0, w = 0;
  std::vector<uint8_t> rgb;  // h*w*3, top row first
};

uint32_t le32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t(p[3]) << 24); }
uint16_t le16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

Status bad(const std::string& why) { return runtime_error("image_decode.R1", why); }

Status decode_bmp(const uint8_t* b, size_t n, Rgb8* img) {
  if (n < 54) return bad("truncated BMP header");
  const uint32_t data_off = le32(b + 10);
  const uint32_t hdr = le32(b + 14);
  if (hdr < 40) return bad("BMP core headers are not supported");
  const int32_t w = static_cast<int32_t>(le32(b + 18));
  const int32_t hs = static_cast<int32_t>(le32(b + 22));
  const uint16_t bpp = le16(b + 28);
  const uint32_t comp = le32(b + 30);
  if (comp != 0)
    return bad("compressed BMP (compression " + std::to_string(comp) + ") is not decodable by this runtime");
  if (bpp != 24 && bpp != 32)
    return bad("BMP with " + std::to_string(bpp) + " bits per pixel is not decodable by this runtime");
  if (w <= 0 || hs == 0 || hs == INT32_MIN) return bad("BMP with invalid size");
  const int64_t h = hs < 0 ? -int64_t{hs} : hs;
  if (int64_t{w} * h > kMaxPixels) return bad("image too large");
  const int64_t bytes_pp = bpp / 8;
  const int64_t stride = (int64_t{w} * bytes_pp + 3) / 4 * 4;
  if (data_off > n || static_cast<int64_t>(n - data_off) < stride * h) return bad("truncated BMP pixel data");
  img->h = h;
  img->w = w;
  img->rgb.resize(static_cast<size_t>(h * w * 3));
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

// Reads one PNM header integer, skipping whitespace and # comments.
bool pnm_int(const uint8_t* b, size_t n, size_t* i, int64_t* v) {
  while (*i < n) {
    if (b[*i] == '#') {
      while (*i < n && b[*i] != '\n') ++*i;
    } else if (b[*i] == ' ' || b[*i] == '\t' || b[*i] == '\n' || b[*i] == '\r') {
      ++*i;
    } else {
      break;
    }
  }
  int64_t x = 0;
  size_t start = *i;
  while (*i < n && b[*i] >= '0' && b[*i] <= '9' && *i - start < 10) x = x * 10 + (b[(*i)++] - '0');
  *v = x;
  return *i > start;
}

Status decode_pnm(const uint8_t* b, size_t n, Rgb8* img) {
  const bool color = b[1] == '6';
  size_t i = 2;
  int64_t w, h, maxval;
  if (!pnm_int(b, n, &i, &w) || !pnm_int(b, n, &i, &h) || !pnm_int(b, n, &i, &maxval) || i >= n)
    return bad("truncated PNM header");
  ++i;  // the single whitespace byte after maxval
  if (w <= 0 || h <= 0 || w * h > kMaxPixels) return bad("PNM with invalid size");
  if (maxval <= 0 || maxval > 255)
    return bad("PNM with maxval " + std::to_string(maxval) + " is not decodable by this runtime");
  const int64_t channels = color ? 3 : 1;
  if (static_cast<int64_t>(n - i) < w * h * channels) return bad("truncated PNM pixel data");
  img->h = h;
  img->w = w;
  img->rgb.resize(static_cast<size_t>(h * w * 3));
  for (int64_t p = 0; p < w * h; ++p)
    for (int64_t c = 0; c < 3; ++c) {
      const int64_t v = b[i + p * channels + (color ? c : 0)];
      // Rescale to 0..255 exactly (round half up), as PNM defines samples relative to maxval.
      img->rgb[static_cast<size_t>(p * 3 + c)] = static_cast<uint8_t>((v * 255 * 2 + maxval) / (2 * maxval));
    }
  return Status::ok();
}

}  // namespace

template <>
Status kernel<ir::Op::ImageDecode>(KernelCtx& cx) {
  const Tensor& bytes = cx.inputs[0]->tensor();
  const uint8_t* b = bytes.as<uint8_t>();
  const size_t n = static_cast<size_t>(bytes.numel());
  Rgb8 img;
  if (n >= 2 && b[0] == 'B' && b[1] == 'M') {
    PLUMB_RETURN_IF_ERROR(decode_bmp(b, n, &img));
  } else if (n >= 2 && b[0] == 'P' && (b[1] == '5' || b[1] == '6')) {
    PLUMB_RETURN_IF_ERROR(decode_pnm(b, n, &img));
  } else if (n >= 8 && std::memcmp(b, "\x89PNG", 4) == 0) {
    return bad("PNG is not decodable by this runtime (no PNG decoder in the reference runtime yet)");
  } else if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8) {
    return bad("JPEG is not decodable by this runtime (no JPEG decoder in the reference runtime yet)");
  } else {
    return bad("unknown image format");
  }
  const int format = cx.node.attr_enum("format");
  const int64_t channels = format == ir::PixelFormat::Grayscale ? 1 : 3;
  Tensor out = Tensor::allocate(ir::DType::U8, {img.h, img.w, channels});
  uint8_t* o = out.as<uint8_t>();
  for (int64_t p = 0; p < img.h * img.w; ++p) {
    const uint8_t* px = &img.rgb[static_cast<size_t>(p * 3)];
    if (format == ir::PixelFormat::Rgb) {
      std::memcpy(o + p * 3, px, 3);
    } else if (format == ir::PixelFormat::Bgr) {
      o[p * 3] = px[2], o[p * 3 + 1] = px[1], o[p * 3 + 2] = px[0];
    } else {
      // ITU-R BT.601 luma in 16-bit fixed point, rounded half up (the formula of PIL's "L" mode,
      // which ONNX's reference ImageDecoder uses): exact and portable.
      o[p] = static_cast<uint8_t>((19595 * px[0] + 38470 * px[1] + 7471 * px[2] + 0x8000) >> 16);
    }
  }
  *cx.outputs[0] = std::move(out);
  return Status::ok();
}

}  // namespace plumb::rt::ref
