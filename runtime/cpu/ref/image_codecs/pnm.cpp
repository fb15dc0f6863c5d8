// Binary PNM (P5 grey, P6 RGB, maxval <= 255), decoded with no library.
#include "runtime/cpu/ref/image_codecs/codec.h"

namespace plumb::rt::ref::image {

namespace {

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

}  // namespace

Status decode_pnm(Bytes in, Rgb8* img) {
  const uint8_t* b = in.data;
  const size_t n = in.size;
  const bool color = b[1] == '6';
  size_t i = 2;
  int64_t w, h, maxval;
  if (!pnm_int(b, n, &i, &w) || !pnm_int(b, n, &i, &h) || !pnm_int(b, n, &i, &maxval) || i >= n)
    return decode_error("PNM", "truncated header");
  ++i;  // the single whitespace byte after maxval
  if (maxval <= 0 || maxval > 255)
    return decode_error("PNM", "maxval " + std::to_string(maxval) + " is not decodable by this runtime");
  const int64_t channels = color ? 3 : 1;
  PLUMB_RETURN_IF_ERROR(check_size("PNM", w, h, 3));
  if (static_cast<int64_t>(n - i) < w * h * channels) return decode_error("PNM", "truncated pixel data");
  PLUMB_RETURN_IF_ERROR(allocate_rgb("PNM", w, h, img));
  for (int64_t p = 0; p < w * h; ++p)
    for (int64_t c = 0; c < 3; ++c) {
      // Samples are relative to maxval: rescaled to 0..255 exactly.
      const uint32_t v = b[i + p * channels + (color ? c : 0)];
      if (v > maxval) return decode_error("PNM", "sample " + std::to_string(v) + " exceeds maxval");
      img->rgb[static_cast<size_t>(p * 3 + c)] =
          static_cast<uint8_t>((uint64_t{v} * 255 * 2 + maxval) / (2 * static_cast<uint64_t>(maxval)));
    }
  return Status::ok();
}

}  // namespace plumb::rt::ref::image
