// Guards: core nodes a lowering adds only to stop the run where ONNX leaves the result undefined
// (spec/onnx-rulings.md R11), e.g. ReduceMean over an empty set. A guard's Provenance::step begins
// with kUndefinedStep; the executor reports the guard's run-time error as "the result is
// undefined: <the rest of the step>" (runtime/node_error.h).
#pragma once

namespace plumb::ir {

inline constexpr const char* kUndefinedStep = "undefined: ";

}  // namespace plumb::ir
