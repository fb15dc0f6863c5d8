// spec/op_table.md, rendered from spec/ops.def (kept fresh by SpecTables.UpToDate).
#pragma once

#include <string>

namespace plumb::ir {

std::string render_op_table_markdown();

}  // namespace plumb::ir
