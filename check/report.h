// What `plumb check` found, and its three renderings: the terminal table, `--report FILE.json`
// (for CI: first_divergence.node is the contract of DESIGN.md §7) and `--report FILE.html` (one
// self-contained page, no network: an inline SVG plot of error along the topological order with
// the divergence marked, id "error-plot", and a histogram of |error| per tensor).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "check/eval.h"
#include "check/span.h"

namespace plumb::check {

struct TensorRow {
  std::string name;                  // ONNX tensor name
  ir::ValueId value = ir::kNoValue;  // the core value compared
  size_t order = 0;                  // position of its producing core node (topological)
  int node = -1;                     // index into CheckReport::nodes (-1: not produced by a node)
  std::string type;                  // e.g. "f32[3,16]"
  ErrorStats carried;                // the model run end to end
  bool has_local = false;
  ErrorStats local;  // its node evaluated on the expected values of its inputs
  bool fed = false;  // its expected value was fed to its consumers in the isolated run
  // With the isolated run, the local result decides: |carried - expected| <= |carried - local| +
  // |local - expected|, and |carried - local| is only the inputs' difference carried through a
  // node that computes right (it stays in the report, classified, as carried error).
  // failed: a mismatch; inconclusive: the deciding statistics cannot tell noise from error.
  const ErrorStats& deciding() const { return has_local ? local : carried; }
  bool failed() const { return !deciding().match && !deciding().inconclusive; }
  bool inconclusive() const { return deciding().inconclusive; }
};

// The answer of a check (DESIGN.md §7 exit codes: 0, 1, 3).
enum class Verdict {
  match,         // every compared tensor within its tolerance
  mismatch,      // a tensor differs beyond it: `first` names the first divergence
  inconclusive,  // the evidence cannot separate noise from error (`inconclusive_reason` says why)
};
const char* verdict_name(Verdict v);  // "match", "mismatch", "inconclusive"

struct CheckReport {
  std::string model;
  // Graph inputs the lowering specialized the graph on (spec/onnx-rulings.md R1): the verdict
  // holds for these input values only.
  std::vector<std::string> specialized;
  std::string note;             // what limited the check (a run that failed, ...), "" when nothing did
  std::string tolerance;        // "auto" or "rtol 0.001, atol 1e-07"
  std::string backend = "ref";  // of plumb's own native runs (CheckRequest::backend)
  bool isolated = false;        // per-node isolated evaluation ran
  std::vector<OnnxNodeInfo> nodes;
  std::vector<TensorRow> rows;       // topological order
  std::vector<std::string> skipped;  // expected names that are not tensors of the model
  int first = -1;                    // row of the first divergence
  std::string first_kind;            // "local" (on the expected values fed to it) or "carried"
  // The nodes between the tensors known to agree and the first differing one (check/span.h): one
  // node when the divergence is localized, more with sparse expected values.
  DivergenceSpan span;
  // Why the expected values rather than the model may differ at the first divergence
  // (check/hints.h): possibilities to rule out, printed as `hint:` lines.
  std::vector<std::string> hints;
  Verdict verdict = Verdict::match;
  std::string inconclusive_reason;
  bool match() const { return verdict == Verdict::match; }
  std::string node_place(int node) const;  // "node 'name' (Op-13)"
  bool localized() const;                  // a first divergence on one node
  // What follows "first divergence: ": "node 'B' (Mul-14)", "tensor 'x'", or "between the last
  // agreeing tensor 't' and the first differing tensor 'y' (2 nodes: 'B' (Mul-14), 'C' (Add-14))".
  std::string divergence_text() const;
};

void print_report(const CheckReport& r, std::FILE* out);
std::string report_json(const CheckReport& r);
std::string report_html(const CheckReport& r);
// The parts of the HTML page that plumb diff's page (check/onnx/diff_onnx.h) shows too: the style
// rules, and the plot, graph view and tensor table (each under an h2).
std::string report_html_style();
std::string report_html_sections(const CheckReport& r);

}  // namespace plumb::check
