// The two models of `plumb diff` side by side, ONNX node by ONNX node (its HTML page): which ONNX
// nodes of A and of B compute each other's core nodes, in B's order, with the nodes only in A at
// their place in A's order, and the finding (check/diff.h) each row belongs to.
#pragma once

#include <string>
#include <vector>

#include "check/diff.h"

namespace plumb::check {

struct DiffRow {
  std::string a_name, a_op;  // the ONNX node of A ("" where the row is only B's)
  std::string b_name, b_op;  // of B ("" where only A's)
  bool same = true;          // every core node of both paired, computing the same
  int finding = -1;          // index of the first finding about its core nodes in GraphDiff::findings
};

// ONNX nodes whose core nodes are all constants or dead (shape arithmetic, folded) are left out.
std::vector<DiffRow> side_by_side(const ir::Graph& a, const ir::Graph& b, const GraphDiff& d);

}  // namespace plumb::check
