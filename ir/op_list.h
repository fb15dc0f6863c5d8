// The core ops a graph uses, with the dtypes of their operands and results: what `plumb convert
// --op-list` writes, and what a tiny build's PLUMB_REF_OPS reads to build only those kernels.
#pragma once

#include <map>
#include <set>
#include <string>

#include "ir/dtype.h"
#include "ir/graph.h"
#include "ir/op.h"

namespace plumb::ir {

// Every op of `g` (regions included), each with the tensor dtypes (element dtypes for containers)
// its nodes read and write.
std::map<Op, std::set<DType>> ops_used(const Graph& g);

// One line per op, in op order: "conv f32" / "cast f32,i64"; '#' lines are comments.
std::string op_list_text(const std::map<Op, std::set<DType>>& ops, const std::string& model);

}  // namespace plumb::ir
