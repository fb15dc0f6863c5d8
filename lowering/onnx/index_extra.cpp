// Lowering rules for Unique, TensorScatter.
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_index_extra(Registry& r) { (void)r; }

}  // namespace plumb::lower
