// plumb::check's entry point: a model, its inputs and expected values in, a CheckReport out
// (DESIGN.md §7, issue 6 and 12). It never prints and never exits; the CLI (tools/onnx/check_cli.cpp),
// the C API and the Python binding render the report and choose the exit code.
//
// What it does: loads MODEL (check/model_inputs.h: .onnx lowered specialized on the input values it
// needs at build time, ruling R1, or .plumb), reads the expected values (check/onnx/expected.h:
// output_<k>.pb, any tensor named by ONNX tensor name in .pb/.npy/.npz files or Polygraphy JSON),
// runs the model on the reference runtime and compares (check/eval.h):
// - Isolated per-node checking (default when intermediates are given): each node is also evaluated
//   on the expected values of its inputs, so local error is told apart from error carried forward.
//   The first divergence is the first compared tensor (topological order) that differs when its
//   nodes run on the expected values fed to them; without intermediates, the first differing
//   tensor. It is blamed on one node only when every input of that node was compared (or is a
//   graph input or constant); otherwise on the span of nodes between the tensors known to agree
//   and it (check/span.h).
// - Tolerance from data (the default): a precise (f64) run and `samples` stochastic runs per run
//   set estimate each tensor's noise (check/bound.h, docs/check-tolerance.md); the verdict is
//   inconclusive where they cannot decide. A FixedTolerance gives |a - e| <= atol + rtol |e|
//   instead (the auto bound still classifies noise vs semantic).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "check/eval.h"
#include "check/model_inputs.h"
#include "check/report.h"
#include "ir/status.h"
#include "runtime/memory_budget.h"

namespace plumb::check {

// Where a check is (CheckRequest::on_step): the stage, the run within a stage of repeated runs,
// and the graph runs done out of those expected in all (the total can shrink, e.g. when the
// isolated runs turn out not to apply; it never counts fewer than are done).
struct ProgressStep {
  std::string stage;                  // "lowering m.onnx", "model: stochastic runs", "comparing", ...
  int run = 0, runs = 0;              // run k of `runs` in this stage (0 of 0: a single step)
  int runs_done = 0, runs_total = 0;  // graph runs finished before this step, and expected in all
  // In a graph run: its top-level nodes done, of all (0 of 0 at the start of a step and outside
  // graph runs). The same step is reported again as its nodes complete.
  size_t node = 0, nodes = 0;
};

struct CheckRequest {
  std::string model;     // .onnx or .plumb
  InputFiles inputs;     // the model's input values
  std::string expected;  // folder or file of expected values ("" = inputs.data_dir)
  // A reference model instead (plumb check --against): its values, on the same inputs, of the
  // tensors of MODEL that match its own (check/onnx/diff_onnx.h reference_values).
  std::string against;
  FixedTolerance tol;                      // tol.use = false: the auto bound decides
  bool isolate = true;                     // per-node isolated evaluation where intermediates are given
  int64_t chunk_bytes = int64_t{1} << 30;  // compared tensors held per run (see run_check.cpp)
  int samples = kDefaultSamples;           // stochastic runs per run set (check/bound.h)
  int threads = 1;  // SessionOptions::threads of every run (results do not depend on it)
  // The bytes the check may hold at once (runtime/memory_budget.h), shared by all its runs and
  // the run outputs it keeps; null: unbounded (the CLI's --max-memory sets one). A refusal, in any
  // run, is the check's error.
  std::shared_ptr<rt::MemoryBudget> memory;
  // The backend of plumb's own native runs (the value compared under --rtol/--atol, and the auto
  // bound's calibration run); the precise and stochastic runs are f64, on ref whatever it is.
  // spec/numerics.md "Backends' declared error": the bound is widened by the backend's declared
  // error (rt::Backend::declared_error: cpu's softmax and layer normalization spans).
  std::string backend = "ref";
  // Called with a short description of each step ("model: precise (f64) run"); may be empty.
  std::function<void(const std::string&)> progress;
  // Called with each step's stage and run counts (for a counter and an ETA); may be empty.
  std::function<void(const ProgressStep&)> on_step;
};

// Errors (bad model, bad input or expected file, unsupported op, a run-time error on the inputs)
// name the file they concern in their place.
Expected<CheckReport> run_check(const CheckRequest& request);

// Sets r.first / r.first_kind from the rows: the first row whose local (isolated) result fails,
// else the first row that fails end to end; and r.verdict (match or mismatch).
void find_first_divergence(CheckReport& r);

}  // namespace plumb::check
