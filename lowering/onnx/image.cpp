// Lowering rules for ImageDecoder.
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_image(Registry& r) { (void)r; }

}  // namespace plumb::lower
