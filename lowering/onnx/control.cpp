// Lowering rules for If, Loop, Scan.
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_control(Registry& r) { (void)r; }

}  // namespace plumb::lower
