// ref kernel of image_decode (spec/ops/image_decode.md): recognise the format by its signature,
// decode it to 8-bit RGB with that format's decoder (image_codecs/, one file per format), then
// lay out rgb, bgr or grayscale.
#include <cstring>

#include "runtime/cpu/ref/image_codecs/codec.h"
#include "runtime/cpu/ref/kernel.h"

namespace plumb::rt::ref {

template <>
Status kernel<ir::Op::ImageDecode>(KernelCtx& cx) {
  const Tensor& bytes = cx.inputs[0]->tensor();
  const image::Bytes in{bytes.as<uint8_t>(), static_cast<size_t>(bytes.numel())};
  const image::Codec* codec = image::find_codec(in);
  if (codec == nullptr) return image::decode_error("image", "unknown image format");
  if (codec->decode == nullptr)
    return image::decode_error(codec->name, std::string("this runtime was built without the ") + codec->name +
                                                " decoder (PLUMB_IMAGE_CODECS=OFF)");
  image::Rgb8 img;
  PLUMB_RETURN_IF_ERROR(codec->decode(in, &img));
  const auto format = ir::attrs<ir::Op::ImageDecode>(cx.node).format;
  const int64_t channels = format == ir::PixelFormat::Grayscale ? 1 : 3;
  Tensor out = Tensor::allocate(ir::DType::U8, {img.height, img.width, channels});
  uint8_t* o = out.as<uint8_t>();
  for (int64_t p = 0; p < img.height * img.width; ++p) {
    const uint8_t* px = &img.rgb[static_cast<size_t>(p * 3)];
    if (format == ir::PixelFormat::Rgb) {
      std::memcpy(o + p * 3, px, 3);
    } else if (format == ir::PixelFormat::Bgr) {
      o[p * 3] = px[2], o[p * 3 + 1] = px[1], o[p * 3 + 2] = px[0];
    } else {
      // ITU-R BT.601 luma in 16-bit fixed point, rounded half up: the formula of PIL's "L" mode
      // (Image.convert("L"), which ONNX's reference ImageDecoder uses). Exact and portable; a grey
      // pixel (R = G = B) maps to itself since the weights sum to 65536.
      o[p] = static_cast<uint8_t>((19595 * px[0] + 38470 * px[1] + 7471 * px[2] + 0x8000) >> 16);
    }
  }
  *cx.outputs[0] = std::move(out);
  return Status::ok();
}

}  // namespace plumb::rt::ref
