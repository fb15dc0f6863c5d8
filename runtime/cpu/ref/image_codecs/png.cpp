// PNG through libpng, to 8-bit RGB: palette entries are looked up, grey is replicated, alpha is
// dropped (not composited, as PIL's convert("RGB")), sub-byte grey is scaled exactly (bit
// replication) and 16-bit samples are rounded to 8 bits exactly, round(v / 257), the PNG
// specification's own rule (png_set_scale_16). Gamma and colour-profile chunks are not applied.
//
// libpng reports errors through on_error, which longjmps to the setjmp in run_guarded; the frames
// it jumps over are libpng's C frames and our C-style callbacks, never a C++ object with a
// destructor. Warnings (e.g. a known-bad sRGB profile) do not change pixels and are ignored; a
// truncated or corrupt stream (bad CRC, bad zlib data, missing IEND) is an error.
#include <csetjmp>

#include <png.h>

#include "runtime/cpu/ref/image_codecs/codec.h"

namespace plumb::rt::ref::image {

namespace {

struct Decode {
  png_structp png = nullptr;
  png_infop info = nullptr;
  Source src;
  png_bytepp rows = nullptr;  // set by the caller between the header and pixel phases
};

[[noreturn]] void on_error(png_structp png, png_const_charp msg) {
  static_cast<Decode*>(png_get_error_ptr(png))->src.report(msg);
  png_longjmp(png, 1);  // never libpng's default handler: it prints
}

void on_warning(png_structp, png_const_charp) {}

void read_bytes(png_structp png, png_bytep out, png_size_t n) {
  if (static_cast<Decode*>(png_get_io_ptr(png))->src.read(out, n) != n) png_error(png, "truncated file");
}

// The phases run under run_guarded: read the header and set the transformations to 8-bit RGB,
// then decode every row and the chunks after the image (which checks the file is complete).
void read_header(Decode* d) {
  png_set_read_fn(d->png, d, read_bytes);
  png_read_info(d->png, d->info);
  png_set_expand(d->png);  // palette to RGB, grey below 8 bits to 8 bits, tRNS to alpha
  png_set_scale_16(d->png);
  png_set_strip_alpha(d->png);
  png_set_gray_to_rgb(d->png);
  png_set_interlace_handling(d->png);
  png_read_update_info(d->png, d->info);
}

void read_pixels(Decode* d) {
  png_read_image(d->png, d->rows);
  png_read_end(d->png, nullptr);
}

bool run_guarded(void (*phase)(Decode*), Decode* d) {
  if (setjmp(png_jmpbuf(d->png)) != 0) return false;
  phase(d);
  return true;
}

// Owns libpng's structures so that every return path frees them.
struct Reader {
  Decode d;
  explicit Reader(Bytes in) {
    d.src.in = in;
    d.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &d, on_error, on_warning);
    if (d.png != nullptr) d.info = png_create_info_struct(d.png);
  }
  ~Reader() { png_destroy_read_struct(&d.png, &d.info, nullptr); }
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
};

}  // namespace

Status decode_png(Bytes in, Rgb8* img) {
  Reader reader(in);
  Decode* d = &reader.d;
  if (d->png == nullptr || d->info == nullptr)
    return decode_error("PNG", "out of memory creating the decoder");
  if (!run_guarded(read_header, d)) return decode_error("PNG", d->src.message);
  const int64_t w = png_get_image_width(d->png, d->info), h = png_get_image_height(d->png, d->info);
  // libpng holds one row at a time (several for interlaced files); the result is the whole image.
  PLUMB_RETURN_IF_ERROR(allocate_rgb("PNG", w, h, img));
  if (png_get_rowbytes(d->png, d->info) != static_cast<size_t>(w) * 3)
    return internal_error("PNG: libpng's transformed row is not 8-bit RGB");
  std::vector<png_bytep> rows(static_cast<size_t>(h));
  for (int64_t y = 0; y < h; ++y) rows[static_cast<size_t>(y)] = img->rgb.data() + y * w * 3;
  d->rows = rows.data();
  if (!run_guarded(read_pixels, d)) return decode_error("PNG", d->src.message);
  return Status::ok();
}

}  // namespace plumb::rt::ref::image
