// TEMPORARY: placeholders for the elementwise family until its inference lands. Delete when done.
#include "ir/infer.h"
namespace plumb::ir {
template <> Expected<std::vector<Type>> infer<Op::Unary>(const InferCtx&) { return unsupported("Unary: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Binary>(const InferCtx&) { return unsupported("Binary: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Compare>(const InferCtx&) { return unsupported("Compare: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Select>(const InferCtx&) { return unsupported("Select: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Cast>(const InferCtx&) { return unsupported("Cast: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Bitcast>(const InferCtx&) { return unsupported("Bitcast: inference not implemented yet"); }
}
