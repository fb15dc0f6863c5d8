// TIFF through libtiff's RGBA interface (TIFFReadRGBAImageOriented, rows top first), which
// defines the conversion of every photometric interpretation it accepts (RGB, grey, palette,
// YCbCr, CMYK, ...) and bit depth to 8-bit RGB; the first image of a multi-page file is decoded.
// A TIFF with an alpha channel is refused: libtiff premultiplies unassociated alpha into the
// colour, which differs from dropping it (PIL's convert("RGB")), so no answer would be defined.
//
// libtiff reports through handlers given per file (TIFFOpenOptions, libtiff >= 4.5), so nothing
// is printed and no global handler is touched; its memory is capped by the same bound as ours.
#include <cstdarg>
#include <cstdio>

#include <tiffio.h>

#include "runtime/cpu/ref/image_codecs/codec.h"

namespace plumb::rt::ref::image {

namespace {

tmsize_t read_proc(thandle_t h, void* out, tmsize_t n) {
  return n < 0 ? 0 : static_cast<tmsize_t>(static_cast<Source*>(h)->read(out, static_cast<size_t>(n)));
}

tmsize_t write_proc(thandle_t, void*, tmsize_t) { return -1; }

toff_t seek_proc(thandle_t h, toff_t off, int whence) {
  auto* s = static_cast<Source*>(h);
  uint64_t base = whence == SEEK_CUR ? s->pos : whence == SEEK_END ? s->in.size : 0;
  // A seek past the end is allowed (reads there return nothing); an overflowing one is not.
  if (off > UINT64_MAX - base) return static_cast<toff_t>(-1);
  s->pos = base + off;
  return s->pos;
}

int close_proc(thandle_t) { return 0; }
toff_t size_proc(thandle_t h) { return static_cast<Source*>(h)->in.size; }
int map_proc(thandle_t, void**, toff_t*) { return 0; }  // no mapping: reads go through read_proc
void unmap_proc(thandle_t, void*, toff_t) {}

int on_error(TIFF*, void* user, const char* module, const char* fmt, va_list ap) {
  char message[sizeof Source::message];
  std::vsnprintf(message, sizeof message, fmt, ap);
  static_cast<Source*>(user)->report(message);
  return 1;  // handled: libtiff calls no global handler
}

int on_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

// Owns the options and the open file so that every return path frees them.
struct File {
  Source src;
  TIFFOpenOptions* opts = nullptr;
  TIFF* tif = nullptr;
  explicit File(Bytes in) {
    src.in = in;
    opts = TIFFOpenOptionsAlloc();
    if (opts == nullptr) return;
    TIFFOpenOptionsSetErrorHandlerExtR(opts, on_error, &src);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, on_warning, &src);
    TIFFOpenOptionsSetMaxSingleMemAlloc(opts, static_cast<tmsize_t>(kMaxSamples));
    // "m": no memory mapping (the bytes are already in memory and read_proc serves them).
    tif = TIFFClientOpenExt("image", "rm", &src, read_proc, write_proc, seek_proc, close_proc, size_proc,
                            map_proc, unmap_proc, opts);
  }
  ~File() {
    if (tif != nullptr) TIFFClose(tif);
    if (opts != nullptr) TIFFOpenOptionsFree(opts);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
};

bool has_alpha(TIFF* tif) {
  uint16_t count = 0;
  uint16_t* kinds = nullptr;
  if (TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &count, &kinds) != 1) return false;
  for (uint16_t i = 0; i < count; ++i)
    if (kinds[i] == EXTRASAMPLE_ASSOCALPHA || kinds[i] == EXTRASAMPLE_UNASSALPHA) return true;
  return false;
}

}  // namespace

Status decode_tiff(Bytes in, Rgb8* img) {
  File f(in);
  if (f.tif == nullptr) return decode_error("TIFF", f.src.why("not a readable TIFF file"));
  uint32_t w = 0, h = 0;
  if (TIFFGetField(f.tif, TIFFTAG_IMAGEWIDTH, &w) != 1 || TIFFGetField(f.tif, TIFFTAG_IMAGELENGTH, &h) != 1)
    return decode_error("TIFF", "no image size");
  if (has_alpha(f.tif))
    return decode_error("TIFF", "a TIFF with an alpha channel is not decodable by this runtime");
  char why[1024] = {0};
  if (TIFFRGBAImageOK(f.tif, why) != 1) return decode_error("TIFF", why);
  // libtiff fills a whole-image raster of 4-byte RGBA pixels.
  PLUMB_RETURN_IF_ERROR(check_size("TIFF", w, h, 4));
  std::vector<uint32_t> raster(static_cast<size_t>(w) * h);
  if (TIFFReadRGBAImageOriented(f.tif, w, h, raster.data(), ORIENTATION_TOPLEFT, /*stop_on_error=*/1) != 1)
    return decode_error("TIFF", f.src.why("corrupt image data"));
  // A strip that fails to decode is reported through the handler even when libtiff carries on.
  if (f.src.message[0] != '\0') return decode_error("TIFF", f.src.message);
  PLUMB_RETURN_IF_ERROR(allocate_rgb("TIFF", w, h, img));
  for (size_t p = 0; p < raster.size(); ++p) {
    img->rgb[p * 3] = static_cast<uint8_t>(TIFFGetR(raster[p]));
    img->rgb[p * 3 + 1] = static_cast<uint8_t>(TIFFGetG(raster[p]));
    img->rgb[p * 3 + 2] = static_cast<uint8_t>(TIFFGetB(raster[p]));
  }
  return Status::ok();
}

}  // namespace plumb::rt::ref::image
