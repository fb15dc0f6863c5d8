// Lowering rules for Resize, Upsample, GridSample, AffineGrid.
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_resize(Registry& r) { (void)r; }

}  // namespace plumb::lower
