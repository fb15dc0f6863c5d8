// `plumb reduce` (docs/reduce.md): the smallest model that still shows a failure. Delta debugging
// (Zeller and Hildebrandt's ddmin, hunt/ddmin.h) over the top-level nodes, each subset made a
// valid model by hunt/reduce_candidate.h, then attribute and shape simplification
// (hunt/reduce_simplify.h); every step keeps the model valid (libonnx's checker where it knows
// the opset; plumb lowers it) and the failure present (hunt/reduce_predicate.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "check/bound.h"
#include "check/eval.h"
#include "ir/status.h"
#include "runtime/backend.h"

namespace plumb::hunt {

enum class ReduceMode {
  kCommand,         // --predicate 'CMD {model} {data}': exit 0 means the failure is still there
  kCheckFails,      // --until check-fails: `plumb check` on the given data exits 1
  kBackendsDiffer,  // --until backends-differ A,B: the two backends' outputs differ beyond tolerance
};

struct ReduceRequest {
  std::string model;     // .onnx
  std::string data_dir;  // input_<k>.pb / .npy, and the expected values unless `expected` is given
  std::string expected;  // check's expected layout (a folder or a file); "" = data_dir
  ReduceMode mode = ReduceMode::kCheckFails;
  std::string command;                           // kCommand, with {model} and {data}
  double timeout_s = 300;                        // per run of the command
  std::string backend_a = "ref", backend_b;      // kBackendsDiffer
  std::vector<rt::BackendEntry> extra_backends;  // beyond the runtime's table (SessionOptions)
  check::FixedTolerance tol;                     // use = false: the auto bound (check's default)
  int samples = check::kDefaultSamples;
  int threads = 1;
  bool simplify = true;  // the attribute and shape passes after ddmin
  // --until check-fails: ddmin first tries the nodes check blames on the whole model (its first
  // divergence); false starts from the whole model (pure ddmin).
  bool hint = true;
  std::string out_dir;
  std::function<void(const std::string&)> progress;  // one line per step; may be empty
};

struct ReduceResult {
  size_t nodes_before = 0, nodes_after = 0;
  std::vector<std::string> kept;  // "'name' (Op)" of each node of the result
  int tests = 0;                  // predicate evaluations (cached repeats not counted)
  int invalid = 0;                // candidates refused as invalid before the predicate ran
  int attributes_removed = 0;
  int dims_shrunk = 0;  // input dims made smaller
  std::string note;     // what limited the reduction (e.g. no computed values), "" when nothing did
  std::string summary(const std::string& out_dir) const;  // one line
};

Expected<ReduceResult> reduce_model(const ReduceRequest& request);

}  // namespace plumb::hunt
