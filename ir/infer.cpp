// Dispatch to the per-op inference (ir/infer_<family>.cpp), generated from spec/ops.def.
#include "ir/infer.h"

namespace plumb::ir {

Expected<std::vector<Type>> infer_types(const InferCtx& cx) {
  switch (cx.node.op) {
// clang-format off
#define PLUMB_OP(Enum, mnemonic, min_in, max_in, min_out, max_out, regions, tolerance) \
  case Op::Enum:                                                                   \
    return infer<Op::Enum>(cx);
#include "spec/ops.def"
    // clang-format on
  }
  return internal_error("infer: unknown op code");
}

}  // namespace plumb::ir
