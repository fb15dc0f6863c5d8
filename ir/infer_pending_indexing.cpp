// TEMPORARY: placeholders for the indexing family until its inference lands. Delete when done.
#include "ir/infer.h"
namespace plumb::ir {
template <> Expected<std::vector<Type>> infer<Op::Gather>(const InferCtx&) { return unsupported("Gather: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Scatter>(const InferCtx&) { return unsupported("Scatter: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Sort>(const InferCtx&) { return unsupported("Sort: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::NonZero>(const InferCtx&) { return unsupported("NonZero: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Reduce>(const InferCtx&) { return unsupported("Reduce: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::ArgReduce>(const InferCtx&) { return unsupported("ArgReduce: inference not implemented yet"); }
template <> Expected<std::vector<Type>> infer<Op::Scan>(const InferCtx&) { return unsupported("Scan: inference not implemented yet"); }
}
