#include "ir/op_list.h"

namespace plumb::ir {
namespace {

void add_dtypes(const Type& t, std::set<DType>& out) {
  out.insert(t.dtype);
  if (t.elem) add_dtypes(*t.elem, out);
}

void walk(const Graph& g, const Region& r, std::map<Op, std::set<DType>>& out) {
  for (const Node& n : r.nodes) {
    std::set<DType>& dts = out[n.op];
    for (ValueId v : n.inputs) add_dtypes(g.type_of(v), dts);
    for (ValueId v : n.outputs) add_dtypes(g.type_of(v), dts);
    for (const Region& inner : n.regions) walk(g, inner, out);
  }
}

}  // namespace

std::map<Op, std::set<DType>> ops_used(const Graph& g) {
  std::map<Op, std::set<DType>> out;
  walk(g, g.body, out);
  return out;
}

std::string op_list_text(const std::map<Op, std::set<DType>>& ops, const std::string& model) {
  std::string s = "# core ops and dtypes of " + model + " (plumb convert --op-list)\n";
  for (const auto& [op, dtypes] : ops) {
    s += std::string(op_name(op));
    char sep = ' ';
    for (DType dt : dtypes) {
      s += sep;
      s += dtype_name(dt);
      sep = ',';
    }
    s += '\n';
  }
  return s;
}

}  // namespace plumb::ir
