// Core conformance vectors (spec/conformance.md): one text-form graph per case file, with comment
// directives that give its inputs and what a backend must produce. This file reads a case and
// checks one backend against it; tools/cmd_core_conformance.cpp walks a vector folder.
#pragma once

#include <string>
#include <vector>

#include "ir/status.h"

namespace plumb::cli {

// A case file's directives (spec/conformance.md "Directives").
struct VectorCase {
  std::string name;  // "<op>/<case>", the path under the vector folder without .plumbt
  std::string text;  // the whole file (the parser skips the `//` lines)
  std::vector<std::pair<std::string, std::string>> inputs;  // %name -> dense literal
  std::vector<std::pair<size_t, std::string>> expects;      // output index -> dense literal
  std::vector<std::pair<size_t, std::string>> bounds;       // output index -> f64 literal
  std::vector<std::string> cells;                           // "op[.kind] dt[,dt...]"
  std::string expect_error;                                 // runtime R-label
  std::string reject;                                       // verifier C-label
};

// Splits a case file into its directives. A malformed directive is an InvalidInput error.
Expected<VectorCase> parse_vector_case(std::string name, std::string text);

// Runs `c` on `backend`; ok when the backend meets every directive, else an error whose message
// says the first way it did not. `strict` compares every output bit for bit, whatever the op's
// tolerance class (a diagnostic: where does a backend differ from the exactly rounded result?).
// `digest`, when given, receives what the run produced: the digest of all outputs
// (tools/value_digest.h), or the run's error label, or "-" when the case does not run. `threads`
// is SessionOptions::threads.
Status check_vector_case(const VectorCase& c, const std::string& backend, bool strict = false,
                         std::string* digest = nullptr, int threads = 1);

}  // namespace plumb::cli
