// TEMPORARY: placeholders for the layout family until its inference lands. Delete when done.
#include "ir/infer.h"
namespace plumb::ir {
template <> Expected<std::vector<Type>> infer<Op::Constant>(const InferCtx&) { return unsupported("Constant: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Iota>(const InferCtx&) { return unsupported("Iota: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::ShapeOf>(const InferCtx&) { return unsupported("ShapeOf: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Rng>(const InferCtx&) { return unsupported("Rng: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Reshape>(const InferCtx&) { return unsupported("Reshape: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Broadcast>(const InferCtx&) { return unsupported("Broadcast: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Transpose>(const InferCtx&) { return unsupported("Transpose: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Slice>(const InferCtx&) { return unsupported("Slice: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Concat>(const InferCtx&) { return unsupported("Concat: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Pad>(const InferCtx&) { return unsupported("Pad: inference not implemented yet"); }
}
