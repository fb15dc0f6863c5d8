// Lowering rules for Col2Im, DeformConv.
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_conv_extra(Registry& r) { (void)r; }

}  // namespace plumb::lower
