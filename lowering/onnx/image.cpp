// Lowering rule for ImageDecoder-20 onto the core `image_decode` (spec/ops/image_decode.md):
// pixel_format RGB | BGR | Grayscale picks the result layout ([H, W, 3] or [H, W, 1], u8). Which
// encodings decode is the runtime's business (spec/ops/image_decode.md lists ref's formats).
#include <string>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;

namespace {

Status lower_image_decoder(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId bytes, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(std::string pf, n.attr_string("pixel_format", "RGB"));
  ir::PixelFormat format;
  if (pf == "RGB") {
    format = ir::PixelFormat::Rgb;
  } else if (pf == "BGR") {
    format = ir::PixelFormat::Bgr;
  } else if (pf == "Grayscale") {
    format = ir::PixelFormat::Grayscale;
  } else {
    return cx.invalid("ImageDecoder: pixel_format '" + pf + "' is not one of RGB, BGR, Grayscale");
  }
  const ir::Type t = cx.type(bytes);
  if (t.dtype != ir::DType::U8 || t.rank() != 1)
    return cx.invalid("ImageDecoder input must be a 1-D uint8 tensor");
  cx.set_output(n, 0, cx.b.emit1(ir::ImageDecodeAttrs{format}, {bytes}));
  return cx.error();
}

}  // namespace

void register_image(Registry& r) { r.add("ImageDecoder", {20, kLatestOpset}, lower_image_decoder); }

}  // namespace plumb::lower
