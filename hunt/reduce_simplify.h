// `plumb reduce`'s passes after ddmin (docs/reduce.md): each tries one change to the reduced model
// and keeps it when `keep` says the model is still valid and still fails.
//   attributes  an attribute removed (its schema default applies); with `defaults_only`, only
//               attributes that equal their default (the model computes the same: what
//               --until check-fails allows, since its expected values cannot be recomputed)
//   shapes      every input dim of size d (all of them together, as one symbolic dim) made 1,
//               else d/2: the inputs sliced to their first elements, and, when that alone does
//               not fit, the initializers with a dim of size d too
#pragma once

#include <functional>

#include "hunt/reduce_candidate.h"

namespace plumb::hunt {

// Called with a changed candidate; may update it (e.g. recompute its expected outputs); true
// keeps the change.
using KeepTest = std::function<bool(Candidate&)>;

int simplify_attributes(Candidate& c, bool defaults_only, const KeepTest& keep);  // attributes removed
int simplify_shapes(Candidate& c, const KeepTest& keep);                          // input dims shrunk

// `t` with axis `axis` cut to its first `keep` elements (numeric dtypes of 8 bits or more).
Expected<onnx::Tensor> slice_prefix(const onnx::Tensor& t, size_t axis, int64_t keep);

}  // namespace plumb::hunt
