// WebP (lossy VP8 and lossless VP8L) through libwebp, decoded straight into RGB with libwebp's
// default (fancy) chroma upsampling; alpha is dropped, not composited. libwebp returns status
// codes, so no setjmp is involved. An animated WebP is refused (libwebp's still-image decoder
// does not decode it; PIL would return the first frame).
#include <webp/decode.h>

#include "runtime/cpu/ref/image_codecs/codec.h"

namespace plumb::rt::ref::image {

namespace {

const char* status_text(VP8StatusCode code) {
  switch (code) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "corrupt bitstream";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_SUSPENDED: return "decoding suspended";
    case VP8_STATUS_USER_ABORT: return "decoding aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "truncated file";
    default: return "not a decodable WebP file";
  }
}

}  // namespace

Status decode_webp(Bytes in, Rgb8* img) {
  WebPBitstreamFeatures features;
  const VP8StatusCode header = WebPGetFeatures(in.data, in.size, &features);
  if (header != VP8_STATUS_OK) return decode_error("WebP", status_text(header));
  if (features.has_animation)
    return decode_error("WebP", "an animated WebP is not decodable by this runtime");
  PLUMB_RETURN_IF_ERROR(allocate_rgb("WebP", features.width, features.height, img));
  const int stride = features.width * 3;
  // WebPDecode rather than the simple API (WebPDecodeRGBInto): it says why decoding failed.
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) return internal_error("WebP: libwebp version mismatch");
  config.output.colorspace = MODE_RGB;
  config.output.is_external_memory = 1;
  config.output.u.RGBA.rgba = img->rgb.data();
  config.output.u.RGBA.stride = stride;
  config.output.u.RGBA.size = img->rgb.size();
  const VP8StatusCode body = WebPDecode(in.data, in.size, &config);
  WebPFreeDecBuffer(&config.output);  // frees nothing of ours (external memory); required by the API
  if (body != VP8_STATUS_OK) return decode_error("WebP", status_text(body));
  return Status::ok();
}

}  // namespace plumb::rt::ref::image
