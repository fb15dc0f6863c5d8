// TEMPORARY: placeholders for the compute family until its inference lands. Delete when done.
#include "ir/infer.h"
namespace plumb::ir {
template <> Expected<std::vector<Type>> infer<Op::Sequence>(const InferCtx&) { return unsupported("Sequence: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Optional>(const InferCtx&) { return unsupported("Optional: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Map>(const InferCtx&) { return unsupported("Map: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::String>(const InferCtx&) { return unsupported("String: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::ImageDecode>(const InferCtx&) { return unsupported("ImageDecode: inference not implemented yet"); }
}
