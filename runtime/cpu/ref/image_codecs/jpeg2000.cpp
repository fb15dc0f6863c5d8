// JPEG 2000 (a JP2 file or a bare J2K codestream) through OpenJPEG, single-threaded and in strict
// mode (a truncated codestream is an error, not a partial image). OpenJPEG undoes the codestream's
// component transform (RCT/ICT), so 3 or 4 components are RGB(A) and 1 or 2 are grey(+alpha);
// alpha is dropped. Samples of other than 8 bits are rescaled exactly, round(v * 255 /
// (2^prec - 1)). Refused: subsampled components, signed samples, precision above 16 bits, and
// YCC/CMYK colour spaces (no conversion is defined here).
//
// OpenJPEG reports through callbacks with client data and returns status codes: no setjmp, no
// global handler, nothing printed.
#include <cstring>

#include <openjpeg.h>

#include "runtime/cpu/ref/image_codecs/codec.h"

namespace plumb::rt::ref::image {

namespace {

OPJ_SIZE_T read_proc(void* out, OPJ_SIZE_T n, void* user) {
  const size_t got = static_cast<Source*>(user)->read(out, n);
  return got > 0 ? got : static_cast<OPJ_SIZE_T>(-1);  // OpenJPEG's end-of-stream value
}

OPJ_OFF_T skip_proc(OPJ_OFF_T n, void* user) {
  auto* s = static_cast<Source*>(user);
  if (n < 0 && static_cast<uint64_t>(-n) > s->pos) return -1;
  if (n > 0 && static_cast<uint64_t>(n) > s->in.size - s->pos) return -1;
  s->pos = static_cast<size_t>(static_cast<OPJ_OFF_T>(s->pos) + n);
  return n;
}

OPJ_BOOL seek_proc(OPJ_OFF_T at, void* user) {
  auto* s = static_cast<Source*>(user);
  if (at < 0 || static_cast<uint64_t>(at) > s->in.size) return OPJ_FALSE;
  s->pos = static_cast<size_t>(at);
  return OPJ_TRUE;
}

void on_error(const char* msg, void* user) { static_cast<Source*>(user)->report(msg); }

void ignore(const char*, void*) {}

// Owns OpenJPEG's codec, stream and image so that every return path frees them.
struct Decoder {
  Source src;
  opj_codec_t* codec = nullptr;
  opj_stream_t* stream = nullptr;
  opj_image_t* image = nullptr;
  Decoder(Bytes in, OPJ_CODEC_FORMAT format) {
    src.in = in;
    codec = opj_create_decompress(format);
    stream = opj_stream_create(OPJ_J2K_STREAM_CHUNK_SIZE, OPJ_TRUE);
    if (codec == nullptr || stream == nullptr) return;
    opj_set_error_handler(codec, on_error, &src);
    opj_set_warning_handler(codec, ignore, &src);
    opj_set_info_handler(codec, ignore, &src);
    opj_stream_set_read_function(stream, read_proc);
    opj_stream_set_skip_function(stream, skip_proc);
    opj_stream_set_seek_function(stream, seek_proc);
    opj_stream_set_user_data(stream, &src, nullptr);
    opj_stream_set_user_data_length(stream, in.size);
  }
  ~Decoder() {
    if (image != nullptr) opj_image_destroy(image);
    if (stream != nullptr) opj_stream_destroy(stream);
    if (codec != nullptr) opj_destroy_codec(codec);
  }
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;
  Status fail(const char* fallback) const { return decode_error("JPEG 2000", src.why(fallback)); }
};

Status check_components(const opj_image_t* image) {
  if (image->numcomps == 0) return decode_error("JPEG 2000", "no components");
  const OPJ_COLOR_SPACE cs = image->color_space;
  if (cs == OPJ_CLRSPC_SYCC || cs == OPJ_CLRSPC_EYCC || cs == OPJ_CLRSPC_CMYK)
    return decode_error("JPEG 2000", "a YCC or CMYK colour space is not decodable by this runtime");
  const OPJ_UINT32 used = image->numcomps >= 3 ? 3 : 1;
  for (OPJ_UINT32 c = 0; c < used; ++c) {
    const opj_image_comp_t& comp = image->comps[c];
    if (comp.dx != 1 || comp.dy != 1)
      return decode_error("JPEG 2000", "subsampled components are not decodable by this runtime");
    if (comp.sgnd != 0) return decode_error("JPEG 2000", "signed samples are not decodable by this runtime");
    if (comp.prec < 1 || comp.prec > 16)
      return decode_error("JPEG 2000", strfmt("%u-bit samples are not decodable by this runtime", comp.prec));
  }
  return Status::ok();
}

}  // namespace

Status decode_jpeg2000(Bytes in, Rgb8* img) {
  const bool jp2 = in.size >= 4 && std::memcmp(in.data, "\xFF\x4F\xFF\x51", 4) != 0;
  Decoder d(in, jp2 ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
  if (d.codec == nullptr || d.stream == nullptr)
    return decode_error("JPEG 2000", "out of memory creating the decoder");
  opj_dparameters_t params;
  opj_set_default_decoder_parameters(&params);
  if (!opj_setup_decoder(d.codec, &params) || !opj_decoder_set_strict_mode(d.codec, OPJ_TRUE))
    return d.fail("decoder set-up failed");
  if (!opj_read_header(d.stream, d.codec, &d.image) || d.image == nullptr) return d.fail("corrupt header");
  const opj_image_t* image = d.image;
  if (image->x1 <= image->x0 || image->y1 <= image->y0)
    return decode_error("JPEG 2000", "invalid image size");
  const int64_t w = image->x1 - image->x0, h = image->y1 - image->y0;
  // OpenJPEG holds every component of the whole image as 32-bit samples.
  PLUMB_RETURN_IF_ERROR(check_size("JPEG 2000", w, h, image->numcomps));
  PLUMB_RETURN_IF_ERROR(check_components(image));
  if (!opj_decode(d.codec, d.stream, d.image) || !opj_end_decompress(d.codec, d.stream))
    return d.fail("corrupt image data");
  const bool gray = image->numcomps < 3;
  for (OPJ_UINT32 c = 0; c < (gray ? 1u : 3u); ++c)
    if (image->comps[c].w != w || image->comps[c].h != h || image->comps[c].data == nullptr)
      return decode_error("JPEG 2000", "a component does not cover the image");
  PLUMB_RETURN_IF_ERROR(allocate_rgb("JPEG 2000", w, h, img));
  for (int64_t c = 0; c < 3; ++c) {
    const opj_image_comp_t& comp = image->comps[gray ? 0 : c];
    const int32_t max = static_cast<int32_t>((int64_t{1} << comp.prec) - 1);
    for (int64_t p = 0; p < w * h; ++p) {
      const int32_t v = comp.data[p];
      const uint32_t clamped = static_cast<uint32_t>(v < 0 ? 0 : v > max ? max : v);
      img->rgb[static_cast<size_t>(p * 3 + c)] = rescale_to_8(clamped, static_cast<int>(comp.prec));
    }
  }
  return Status::ok();
}

}  // namespace plumb::rt::ref::image
