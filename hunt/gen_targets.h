// `plumb gen --targets COVERAGE.json` (docs/gen.md, "Steering"): the uncovered op sequences of a
// coverage report (`plumb coverage --sequences N ... --json`, docs/coverage-sequences.md) as
// weights on the op a generation step draws next, given the ops the current chain ends with.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/status.h"

namespace plumb::hunt {

// The report's uncovered 1- to 3-grams of ai.onnx ops, reduced to op types (the generator draws op
// types; a gram's attribute classes are not steered). Weights count the report's distinct grams,
// so an op sequence uncovered in several class variants weighs more. std::map keeps the order, and
// so the draws, independent of the report's order.
struct GenTargets {
  std::map<std::string, int64_t> start;                        // a gram's first op (n >= 2), n = 1's op
  std::map<std::string, std::map<std::string, int64_t>> next;  // o1 -> o2 of 2-grams, 3-gram prefixes
  std::map<std::pair<std::string, std::string>, std::map<std::string, int64_t>> third;  // (o1, o2) -> o3
  std::set<std::string> keys;  // the grams' keys with attribute classes ("Conv[f32,2d] -> Relu[f32]")
  int64_t grams = 0;           // the uncovered grams read (any n, ai.onnx only)
};

// Reads a plumb-sequence-coverage/1 JSON; an error names the file and what is wrong.
Expected<GenTargets> read_gen_targets(const std::string& path);

// The weighted ops a step should prefer after a chain ending in `last` (whose node read the
// outputs of nodes of ops `before`): completions of 3-grams (weight 2 per gram) and continuations
// of 2-grams and 3-gram prefixes (1 per gram); when there is none, the first ops of the uncovered
// grams (1 per gram), to start a chain. Only ops `allowed` accepts are returned, in name order.
template <typename Allowed>
std::vector<std::pair<std::string, int64_t>> target_ops(const GenTargets& t, const std::string& last,
                                                        const std::vector<std::string>& before,
                                                        const Allowed& allowed) {
  std::map<std::string, int64_t> w;
  for (const std::string& b : before) {
    auto it = t.third.find({b, last});
    if (it != t.third.end())
      for (const auto& [op, n] : it->second) w[op] += 2 * n;
  }
  if (auto it = t.next.find(last); it != t.next.end())
    for (const auto& [op, n] : it->second) w[op] += n;
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& [op, n] : w)
    if (allowed(op)) out.emplace_back(op, n);
  if (!out.empty()) return out;
  for (const auto& [op, n] : t.start)
    if (allowed(op)) out.emplace_back(op, n);
  return out;
}

}  // namespace plumb::hunt
