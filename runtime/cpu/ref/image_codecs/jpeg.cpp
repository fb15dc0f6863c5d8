// JPEG through libjpeg-turbo (libjpeg62 API), with the library's defaults that fix the numbers:
// the accurate integer IDCT (JDCT_ISLOW) and fancy (triangular) chroma upsampling, colour
// converted to RGB by libjpeg (grey is replicated). These are PIL's settings too, so the result
// is the one ONNX's reference ImageDecoder gives.
//
// libjpeg reports errors by calling error_exit, which must not return: it longjmps back to the
// setjmp in run_guarded. The frames it jumps over are libjpeg's C frames and our C-style
// callbacks, never a C++ object with a destructor; all C++ state lives outside the guarded call.
// Warnings (corrupt data libjpeg would paper over, a truncated file it would pad with grey) are
// errors here: a decoder that is the oracle does not guess pixels.
#include <csetjmp>
#include <cstdio>
#include <cstring>

#include <jpeglib.h>

#include "runtime/cpu/ref/image_codecs/codec.h"

namespace plumb::rt::ref::image {

namespace {

struct ErrorMgr {
  jpeg_error_mgr pub;  // first: libjpeg sees a jpeg_error_mgr*
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void on_error(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorMgr*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// msg_level < 0 is a warning about the data: treated as an error. Trace messages are ignored.
void on_message(j_common_ptr cinfo, int msg_level) {
  if (msg_level < 0) on_error(cinfo);
}

void no_output(j_common_ptr) {}  // the library never prints

struct Decode {
  jpeg_decompress_struct cinfo;
  ErrorMgr err;
  Bytes in;
  Rgb8* img = nullptr;  // sized by the caller between the header and pixel phases
};

// The phases run under run_guarded: create, read the header and fix the output format, start
// (libjpeg sizes its buffers), decode every scanline into img.
void create(Decode* d) { jpeg_create_decompress(&d->cinfo); }

void read_header(Decode* d) {
  jpeg_mem_src(&d->cinfo, d->in.data, static_cast<unsigned long>(d->in.size));
  jpeg_read_header(&d->cinfo, TRUE);
  d->cinfo.out_color_space = JCS_RGB;
  d->cinfo.scale_num = d->cinfo.scale_denom = 1;
  d->cinfo.dct_method = JDCT_ISLOW;
  d->cinfo.do_fancy_upsampling = TRUE;
}

void start(Decode* d) { jpeg_start_decompress(&d->cinfo); }

void read_pixels(Decode* d) {
  const size_t stride = static_cast<size_t>(d->img->width) * 3;
  while (d->cinfo.output_scanline < d->cinfo.output_height) {
    JSAMPROW row = d->img->rgb.data() + d->cinfo.output_scanline * stride;
    jpeg_read_scanlines(&d->cinfo, &row, 1);
  }
  jpeg_finish_decompress(&d->cinfo);
}

// Runs one phase; false when libjpeg reported an error (the message is in d->err).
bool run_guarded(void (*phase)(Decode*), Decode* d) {
  if (setjmp(d->err.jump) != 0) return false;
  phase(d);
  return true;
}

// Owns the decompressor so that every return path releases libjpeg's memory.
struct Decompressor {
  Decode d{};  // zeroed: jpeg_destroy_decompress is then safe even if create failed
  Decompressor(Bytes in, Rgb8* img) {
    d.cinfo.err = jpeg_std_error(&d.err.pub);
    d.err.pub.error_exit = on_error;
    d.err.pub.emit_message = on_message;
    d.err.pub.output_message = no_output;
    d.in = in;
    d.img = img;
  }
  ~Decompressor() { jpeg_destroy_decompress(&d.cinfo); }
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;
};

}  // namespace

Status decode_jpeg(Bytes in, Rgb8* img) {
  Decompressor dec(in, img);
  Decode* d = &dec.d;
  if (!run_guarded(create, d) || !run_guarded(read_header, d)) return decode_error("JPEG", d->err.message);
  const J_COLOR_SPACE cs = d->cinfo.jpeg_color_space;
  if (cs == JCS_CMYK || cs == JCS_YCCK)
    return decode_error("JPEG", "CMYK/YCCK JPEG is not decodable by this runtime");
  // libjpeg holds a whole-image coefficient buffer for progressive files: bound by the
  // components it decodes as well as by the RGB result.
  const int64_t w = d->cinfo.image_width, h = d->cinfo.image_height;
  PLUMB_RETURN_IF_ERROR(check_size("JPEG", w, h, d->cinfo.num_components));
  PLUMB_RETURN_IF_ERROR(allocate_rgb("JPEG", w, h, img));
  if (!run_guarded(start, d)) return decode_error("JPEG", d->err.message);
  if (d->cinfo.output_width != w || d->cinfo.output_height != h || d->cinfo.output_components != 3)
    return internal_error("JPEG: libjpeg's output is not the image's size in RGB");
  if (!run_guarded(read_pixels, d)) return decode_error("JPEG", d->err.message);
  return Status::ok();
}

}  // namespace plumb::rt::ref::image
