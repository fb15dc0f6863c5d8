// Helpers for sequence and optional values shared by the sequence.cpp and control.cpp rules.
//
// Run-time element types. A ref sequence (optional) value carries the element type of the node
// that made it (`sequence empty/construct/split`, `optional none/wrap`, or the graph input's
// declared type); insert and erase keep it. At run time the container ops re-infer their types
// from the actual operands and need that element type to equal their `elem` attribute exactly
// (sequence.C2, optional.C2). So wherever a container's static type is widened (the join of an
// `if`'s branches or of a loop's entry and back-edge values), the value must be rebuilt with the
// wider element type first: `retype`.
#pragma once

#include <functional>

#include "ir/builder.h"
#include "lowering/onnx/context.h"

namespace plumb::lower {

ir::ValueId seq_op(LowerCtx& cx, ir::SequenceKind kind, std::vector<ir::ValueId> operands,
                   const ir::Type& elem, int64_t axis = 0);
ir::ValueId opt_op(LowerCtx& cx, ir::OptionalKind kind, std::vector<ir::ValueId> operands,
                   const ir::Type& elem);

// The least type both refine: dims equal in both kept, others anonymous symbolic; tensors of
// different ranks give an unranked tensor (as `if` and `while` join, ir/infer_control.cpp).
ir::Type join_types(const ir::Type& a, const ir::Type& b);
// Same kind and dtype (and rank for tensors, element kind and dtype for containers).
bool joinable_types(const ir::Type& a, const ir::Type& b);

// `v` with static type `target` (which type(v) refines). Tensors are returned as they are. A
// sequence is rebuilt element by element into `sequence empty` of target's element type (a while
// loop of at/insert: exact copies); an optional is unwrapped, retyped and wrapped again (or made
// empty of the new type). Must be emitted where `v`'s static type is also its run-time type.
ir::ValueId retype(LowerCtx& cx, ir::ValueId v, const ir::Type& target);

// Emits `make()` so that its result is computed at run time outside the planner's arena: at the
// top level of the graph, inside an `if` on a constant true (both branches emit `make()`; only the
// then branch runs). Works around the ref planner preallocating static tensor results of the
// sequence/optional ops (length, at, has, get), whose kernels replace the result ("kernel
// replaced its preallocated result"); inside regions nodes already run dynamically.
ir::ValueId dynamic_result(LowerCtx& cx, const std::function<ir::ValueId()>& make);

}  // namespace plumb::lower
