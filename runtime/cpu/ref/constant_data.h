// Unpacking a constant from its file format (spec/ops/constant.md: sub-byte dtypes packed low bits
// first, strings as u32 little-endian length + bytes per element) into the run-time format of
// runtime/value.h. Used by the `constant` kernel; loaders and other backends may share it.
#pragma once

#include "ir/graph.h"
#include "ir/status.h"
#include "runtime/value.h"

namespace plumb::rt::ref {

// Fills `result` (dtype and shape of c.type; allocated here when result.data is null) from `c`.
// Never reads past c.size: a size or content that does not fit the type is constant.C3.
Status unpack_constant(const ir::ConstantData& c, Tensor& result);

}  // namespace plumb::rt::ref
