// Lowering rules for the ai.onnx.ml operators.
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_ml(Registry& r) { (void)r; }

}  // namespace plumb::lower
