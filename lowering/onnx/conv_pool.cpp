// ONNX conv_pool ops (being written).
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_conv_pool(Registry& r) {}

}  // namespace plumb::lower
