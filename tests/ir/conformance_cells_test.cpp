// spec/vectors/cells.txt lists the op x dtype cells of the spec's Dtypes tables, as transcribed by
// tools/gen_core_vectors.py; `plumb conformance --core --cells` checks each has a passing vector.
// This test checks the transcription against the verifier, which implements the same tables: for
// every candidate cell of the ops below, the verifier accepts a one-node graph of that cell exactly
// when the cell is listed. A mismatch means the table, its transcription or the verifier is wrong.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/text.h"
#include "ir/verify.h"

namespace plumb::ir {
namespace {

std::set<std::string> listed_cells() {
  std::ifstream f(std::string(PLUMB_SOURCE_DIR) + "/spec/vectors/cells.txt");
  std::set<std::string> cells;
  for (std::string line; std::getline(f, line);)
    if (!line.empty() && line[0] != '#') cells.insert(line);
  return cells;
}

std::vector<std::string> all_dtypes() {
  std::vector<std::string> out;
#define PLUMB_DTYPE(Enum, mnemonic, bits, onnx_code, category) out.push_back(mnemonic);
#include "spec/dtypes.def"
  return out;
}

bool verifies(const std::string& body) {
  auto g = parse_graph("plumb 1\n" + body);
  return g.has_value() && verify(*g).is_ok();
}

// One family of candidate cells: `cell(kind, dts)` names it, `text(kind, dts)` is its graph.
struct Family {
  std::string op;
  std::vector<std::string> kinds;  // {""} when the cell has no kind
  int num_dtypes;
  std::function<std::string(const std::string&, const std::vector<std::string>&)> text;
};

std::string fn(const std::string& params, const std::string& results, const std::string& nodes,
               const std::string& ret) {
  return "func @main(" + params + ") -> (" + results + ") {\n" + nodes + "  return " + ret + "\n}\n";
}

std::vector<Family> families() {
  const std::vector<std::string> unary = {"neg",  "abs",  "sign", "not",   "floor", "ceil",  "round", "sqrt",
                                          "exp",  "log",  "sin",  "cos",   "tan",   "asin",  "acos",  "atan",
                                          "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf"};
  const std::vector<std::string> binary = {"add", "sub", "mul", "div", "rem", "pow", "max",
                                           "min", "and", "or",  "xor", "shl", "shr"};
  const std::vector<std::string> reduce = {"sum", "prod", "max", "min"};
  using D = std::vector<std::string>;
  return {
      {"unary", unary, 1,
       [](const std::string& k, const D& d) {
         return fn("%x: " + d[0] + "[2]", d[0] + "[2]",
                   "  %r = unary %x {kind = " + k + "} : " + d[0] + "[2]\n", "%r");
       }},
      {"binary", binary, 1,
       [](const std::string& k, const D& d) {
         return fn("%x: " + d[0] + "[2], %y: " + d[0] + "[2]", d[0] + "[2]",
                   "  %r = binary %x, %y {kind = " + k + "} : " + d[0] + "[2]\n", "%r");
       }},
      {"compare",
       {"eq", "ne", "lt", "le", "gt", "ge"},
       1,
       [](const std::string& k, const D& d) {
         return fn("%x: " + d[0] + "[2], %y: " + d[0] + "[2]", "bool[2]",
                   "  %r = compare %x, %y {kind = " + k + "} : bool[2]\n", "%r");
       }},
      {"select",
       {""},
       1,
       [](const std::string&, const D& d) {
         return fn("%p: bool[2], %x: " + d[0] + "[2], %y: " + d[0] + "[2]", d[0] + "[2]",
                   "  %r = select %p, %x, %y : " + d[0] + "[2]\n", "%r");
       }},
      {"cast",
       {""},
       2,
       [](const std::string&, const D& d) {
         return fn(
             "%x: " + d[0] + "[2]", d[1] + "[2]",
             "  %r = cast %x {to = " + d[1] + ", saturate = false, round = nearest_even} : " + d[1] + "[2]\n",
             "%r");
       }},
      {"bitcast",
       {""},
       2,
       [](const std::string&, const D& d) {
         return fn("%x: " + d[0] + "[2]", d[1] + "[2]",
                   "  %r = bitcast %x {to = " + d[1] + "} : " + d[1] + "[2]\n", "%r");
       }},
      {"reduce", reduce, 1,
       [](const std::string& k, const D& d) {
         return fn("%x: " + d[0] + "[2]", d[0] + "[]",
                   "  %r = reduce %x {kind = " + k + ", axes = [0]} : " + d[0] + "[]\n", "%r");
       }},
      {"scan", reduce, 1,
       [](const std::string& k, const D& d) {
         return fn("%x: " + d[0] + "[2]", d[0] + "[2]",
                   "  %r = scan %x {kind = " + k +
                       ", axis = 0, exclusive = false, reverse = false} : " + d[0] + "[2]\n",
                   "%r");
       }},
      {"arg_reduce",
       {"max", "min"},
       1,
       [](const std::string& k, const D& d) {
         return fn("%x: " + d[0] + "[2]", "i64[]",
                   "  %r = arg_reduce %x {kind = " + k + ", axis = 0, select_last = false} : i64[]\n", "%r");
       }},
      {"pool",
       {"max", "sum"},
       1,
       [](const std::string& k, const D& d) {
         return fn("%x: " + d[0] + "[2]", d[0] + "[2]",
                   "  %r = pool %x {kind = " + k +
                       ", window = [1], strides = [1], dilations = [1], pads_low = [0], pads_high = [0]} : " +
                       d[0] + "[2]\n",
                   "%r");
       }},
      {"matmul",
       {""},
       3,
       [](const std::string&, const D& d) {
         return fn("%a: " + d[0] + "[1,1], %b: " + d[1] + "[1,1]", d[2] + "[1,1]",
                   "  %r = matmul %a, %b {to = " + d[2] + "} : " + d[2] + "[1,1]\n", "%r");
       }},
      {"conv",
       {""},
       3,
       [](const std::string&, const D& d) {
         return fn(
             "%x: " + d[0] + "[1,1,1], %w: " + d[1] + "[1,1,1]", d[2] + "[1,1,1]",
             "  %r = conv %x, %w {to = " + d[2] +
                 ", strides = [1], dilations = [1], lhs_dilations = [1], pads_low = [0], pads_high = [0], "
                 "groups = 1} : " +
                 d[2] + "[1,1,1]\n",
             "%r");
       }},
      {"scatter",
       {"none", "add", "mul", "max", "min"},
       1,
       [](const std::string& k, const D& d) {
         return fn("%x: " + d[0] + "[2], %i: i64[1], %u: " + d[0] + "[1]", d[0] + "[2]",
                   "  %r = scatter %x, %i, %u {kind = elements, axis = 0, reduction = " + k + "} : " + d[0] +
                       "[2]\n",
                   "%r");
       }},
      {"gather",
       {""},
       2,
       [](const std::string&, const D& d) {
         return fn("%x: " + d[0] + "[2], %i: " + d[1] + "[1]", d[0] + "[1]",
                   "  %r = gather %x, %i {kind = axis, axis = 0, batch_dims = 0} : " + d[0] + "[1]\n", "%r");
       }},
      {"sort",
       {""},
       1,
       [](const std::string&, const D& d) {
         return fn("%x: " + d[0] + "[2]", d[0] + "[2], i64[2]",
                   "  %v, %i = sort %x {axis = 0, descending = false} : " + d[0] + "[2], i64[2]\n", "%v, %i");
       }},
      {"nonzero",
       {""},
       1,
       [](const std::string&, const D& d) {
         return fn("%x: " + d[0] + "[2]", "i64[1,?]", "  %r = nonzero %x : i64[1,?]\n", "%r");
       }},
      {"iota",
       {""},
       1,
       [](const std::string&, const D& d) {
         return fn("", d[0] + "[2]",
                   "  %s = constant {value = dense<i64[1]>[2]} : i64[1]\n  %r = iota %s {dtype = " + d[0] +
                       ", axis = 0} : " + d[0] + "[2]\n",
                   "%r");
       }},
      {"transpose",
       {""},
       1,
       [](const std::string&, const D& d) {
         return fn("%x: " + d[0] + "[2]", d[0] + "[2]",
                   "  %r = transpose %x {perm = [0]} : " + d[0] + "[2]\n", "%r");
       }},
  };
}

void enumerate(int n, const std::vector<std::string>& dts, std::vector<std::string>& cur,
               const std::function<void(const std::vector<std::string>&)>& f) {
  if (static_cast<int>(cur.size()) == n) return f(cur);
  for (const std::string& d : dts) {
    cur.push_back(d);
    enumerate(n, dts, cur, f);
    cur.pop_back();
  }
}

TEST(ConformanceCells, ListedExactlyWhereTheVerifierAccepts) {
  const std::set<std::string> cells = listed_cells();
  ASSERT_GT(cells.size(), 1000u) << "spec/vectors/cells.txt is missing or short";
  const std::vector<std::string> dts = all_dtypes();
  std::vector<std::string> unlisted, refused;
  int checked = 0;
  for (const Family& fam : families()) {
    for (const std::string& kind : fam.kinds) {
      std::vector<std::string> cur;
      enumerate(fam.num_dtypes, dts, cur, [&](const std::vector<std::string>& d) {
        std::string cell = fam.op + (kind.empty() ? "" : "." + kind) + " ";
        for (size_t i = 0; i < d.size(); ++i) cell += (i ? "," : "") + d[i];
        const bool listed = cells.count(cell) > 0;
        const bool accepted = verifies(fam.text(kind, d));
        ++checked;
        if (accepted && !listed) unlisted.push_back(cell);
        if (listed && !accepted) refused.push_back(cell);
      });
    }
  }
  std::string why;
  for (const std::string& c : unlisted) why += "\n  verifier accepts, not in cells.txt: " + c;
  for (const std::string& c : refused) why += "\n  in cells.txt, verifier refuses: " + c;
  EXPECT_TRUE(unlisted.empty() && refused.empty()) << checked << " candidates checked" << why;
}

}  // namespace
}  // namespace plumb::ir
