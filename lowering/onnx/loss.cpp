// ONNX loss ops (being written).
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_loss(Registry& r) {}

}  // namespace plumb::lower
