// Whether a reduced model still shows the failure (`plumb reduce`'s interestingness test), and
// whether it is a valid model at all. A candidate is written to a work folder (model.onnx and
// test_data_set_0/) and then:
//   check-fails       plumb::check::run_check, in-process, on that folder: verdict mismatch (exit 1)
//   backends-differ   the candidate run on backends A and B: with --rtol/--atol, an output outside
//                     |b - a| <= atol + rtol |a|; with the auto bound, either backend's outputs
//                     judged a mismatch by run_check as expected values (the noise bound of
//                     docs/check-tolerance.md: each backend is held to "could an f32
//                     implementation have produced this")
//   command           /bin/sh -c CMD with {model} and {data} replaced by the paths: exit 0
// Valid: libonnx's checker and strict shape inference pass (skipped where the model is newer than
// libonnx 1.12 knows), and, when `require_lowering`, plumb lowers it.
#pragma once

#include <string>

#include "check/onnx/run_check.h"
#include "hunt/reduce.h"
#include "hunt/reduce_candidate.h"

namespace plumb::hunt {

struct Outcome {
  bool valid = false;
  bool interesting = false;
  std::string why;  // the check's first divergence, the differing output, the exit code, or why invalid
};

class Predicate {
 public:
  // The failure `req` asks for; candidates are written to <work_dir>/try. `require_lowering`: a
  // candidate plumb cannot lower is invalid (the built-in modes lower every candidate anyway).
  Predicate(const ReduceRequest& req, std::string work_dir, bool require_lowering)
      : req_(req), work_dir_(std::move(work_dir)), require_lowering_(require_lowering) {}
  Outcome test(const Candidate& c);
  // The folder the last candidate was written to (model.onnx, test_data_set_0/).
  std::string last_dir() const { return work_dir_ + "/try"; }
  // The outputs backend A gave on the last candidate (backends-differ), as expected values.
  const std::vector<std::optional<onnx::DataValue>>& last_a_outputs() const { return a_outputs_; }

 private:
  Outcome check_fails(const std::string& dir);
  Outcome backends_differ(const std::string& dir, const Candidate& c);
  Outcome command(const std::string& dir);
  // plumb check of the candidate in `dir` against `expected`.
  check::CheckRequest check_request(const std::string& dir, const std::string& expected,
                                    const check::FixedTolerance& tol) const;
  const ReduceRequest& req_;
  std::string work_dir_;
  bool require_lowering_;
  std::vector<std::optional<onnx::DataValue>> a_outputs_;
};

// Recomputes a candidate's expected outputs on ref (after a change that moves them: a smaller
// input, an attribute back to its default); an error when the candidate does not run.
Status recompute_expected(Candidate& c, const std::string& work_dir, int threads);

}  // namespace plumb::hunt
