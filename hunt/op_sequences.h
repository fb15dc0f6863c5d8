// Op n-grams of a model set and how much of them another set covers (`plumb coverage --sequences
// N`; docs/coverage-sequences.md defines the nodes, the data edges, the paths and the labels).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hunt/op_labels.h"
#include "ir/status.h"

namespace onnx {
class ModelProto;
}

namespace plumb::hunt {

struct Gram {
  std::vector<NodeLabel> nodes;  // the path's labels, producer first
  int64_t count = 0;             // paths with this key in the set
  std::string example;           // "<file>: <node> -> <node>" of the first one seen
  std::string key() const;       // the labels joined by " -> "
};

// The n-grams of a set of models, n = 1..max_n.
struct SequenceSet {
  int max_n = 3;
  std::vector<std::string> sources;  // what was given (files and folders)
  int64_t files = 0, nodes = 0;
  std::vector<std::map<std::string, Gram>> grams;        // [n - 1]: key (labels joined " -> ") -> gram
  std::vector<std::map<std::string, int64_t>> op_grams;  // [n - 1]: key of op types alone -> count

  explicit SequenceSet(int n = 3)
      : max_n(n), grams(static_cast<size_t>(n)), op_grams(static_cast<size_t>(n)) {}
};

// Adds one model's n-grams; `file` names it in examples.
void add_model(const ::onnx::ModelProto& model, const std::string& file, SequenceSet& set);
// Adds a .onnx file, or every *.onnx under a folder (recursively, in name order). A model that does
// not parse is an error naming it.
Status add_source(const std::string& file_or_folder, SequenceSet& set);

struct GramCount {
  int n = 0;
  int64_t distinct = 0, covered = 0, occurrences = 0, covered_occurrences = 0;
  int64_t ops_distinct = 0, ops_covered = 0, ops_occurrences = 0, ops_covered_occurrences = 0;
};

struct SequenceCoverage {
  const SequenceSet* models = nullptr;
  const SequenceSet* against = nullptr;  // null: nothing covers
  std::vector<GramCount> counts;         // n = 1..max_n
  std::vector<const Gram*> uncovered;    // most frequent first, then shorter, then by key
};

SequenceCoverage sequence_coverage(const SequenceSet& models, const SequenceSet* against);

// The renderings: a text summary (the counts and the `top` most frequent uncovered n-grams), the
// JSON of docs/coverage-sequences.md and a self-contained HTML page.
std::string coverage_text(const SequenceCoverage& c, size_t top);
std::string coverage_json(const SequenceCoverage& c);
std::string coverage_html(const SequenceCoverage& c, size_t top);

}  // namespace plumb::hunt
