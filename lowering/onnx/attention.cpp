// ONNX attention ops (being written).
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_attention(Registry& r) {}

}  // namespace plumb::lower
