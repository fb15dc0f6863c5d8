// ONNX norm ops (being written).
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_norm(Registry& r) {}

}  // namespace plumb::lower
