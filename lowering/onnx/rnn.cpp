// Lowering rules for RNN, GRU, LSTM.
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_rnn(Registry& r) { (void)r; }

}  // namespace plumb::lower
