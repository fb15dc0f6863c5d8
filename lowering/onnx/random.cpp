// Lowering rules for RandomUniform(Like), RandomNormal(Like), Bernoulli, Multinomial.
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_random(Registry& r) { (void)r; }

}  // namespace plumb::lower
