// The renderings of a SequenceCoverage (hunt/op_sequences.h): text, the JSON of
// docs/coverage-sequences.md, and a self-contained HTML page (no script, no network).
#include <sstream>

#include "check/report_format.h"
#include "hunt/op_sequences.h"

namespace plumb::hunt {

namespace {

using check::html_escape;
using check::json_str;

std::string percent(int64_t part, int64_t whole) {
  return whole == 0 ? std::string("-")
                    : strfmt("%.1f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

std::string set_json(const SequenceSet* s) {
  if (!s) return "null";
  std::ostringstream o;
  o << "{\"files\": " << s->files << ", \"nodes\": " << s->nodes << ", \"sources\": [";
  for (size_t k = 0; k < s->sources.size(); ++k) o << (k ? ", " : "") << json_str(s->sources[k]);
  o << "]}";
  return o.str();
}

std::string label_json(const NodeLabel& l) {
  std::ostringstream o;
  o << "{\"op\": " << json_str(l.op) << ", \"domain\": " << json_str(l.domain)
    << ", \"label\": " << json_str(l.text());
  if (!l.dtype.empty()) o << ", \"dtype\": " << json_str(l.dtype);
  o << ", \"classes\": [";
  for (size_t k = 0; k < l.classes.size(); ++k) o << (k ? ", " : "") << json_str(l.classes[k]);
  o << "]}";
  return o.str();
}

std::string sources_text(const SequenceSet* s) {
  if (!s) return "nothing";
  std::string t;
  for (size_t k = 0; k < s->sources.size(); ++k) t += (k ? ", " : "") + s->sources[k];
  return t + strfmt(" (%lld models, %lld nodes)", static_cast<long long>(s->files),
                    static_cast<long long>(s->nodes));
}

}  // namespace

std::string coverage_text(const SequenceCoverage& c, size_t top) {
  std::ostringstream o;
  o << "models:  " << sources_text(c.models) << "\n";
  o << "against: " << sources_text(c.against) << "\n";
  auto part = [](int64_t covered, int64_t of) {
    return strfmt("%lld (%s)", static_cast<long long>(covered), percent(covered, of).c_str());
  };
  o << "n   distinct  covered          occurrences  covered           | op types: distinct  covered\n";
  for (const GramCount& g : c.counts)
    o << strfmt("%-2d %9lld  %-16s %11lld  %-17s | %18lld  %s\n", g.n, static_cast<long long>(g.distinct),
                part(g.covered, g.distinct).c_str(), static_cast<long long>(g.occurrences),
                part(g.covered_occurrences, g.occurrences).c_str(), static_cast<long long>(g.ops_distinct),
                part(g.ops_covered, g.ops_distinct).c_str());
  const size_t shown = std::min(top, c.uncovered.size());
  if (shown > 0) o << "most frequent uncovered (" << shown << " of " << c.uncovered.size() << "):\n";
  for (size_t k = 0; k < shown; ++k)
    o << strfmt("%6lld  ", static_cast<long long>(c.uncovered[k]->count)) << c.uncovered[k]->key() << "\n";
  return o.str();
}

std::string coverage_json(const SequenceCoverage& c) {
  std::ostringstream o;
  o << "{\n  \"format\": \"plumb-sequence-coverage/1\",\n  \"max_n\": " << (c.models ? c.models->max_n : 0)
    << ",\n  \"models\": " << set_json(c.models) << ",\n  \"against\": " << set_json(c.against)
    << ",\n  \"counts\": [";
  for (size_t k = 0; k < c.counts.size(); ++k) {
    const GramCount& g = c.counts[k];
    o << (k ? "," : "") << "\n    {\"n\": " << g.n << ", \"distinct\": " << g.distinct
      << ", \"covered\": " << g.covered << ", \"occurrences\": " << g.occurrences
      << ", \"covered_occurrences\": " << g.covered_occurrences << ", \"ops_distinct\": " << g.ops_distinct
      << ", \"ops_covered\": " << g.ops_covered << ", \"ops_occurrences\": " << g.ops_occurrences
      << ", \"ops_covered_occurrences\": " << g.ops_covered_occurrences << "}";
  }
  o << "\n  ],\n  \"uncovered\": [";
  for (size_t k = 0; k < c.uncovered.size(); ++k) {
    const Gram& g = *c.uncovered[k];
    o << (k ? "," : "") << "\n    {\"n\": " << g.nodes.size() << ", \"count\": " << g.count
      << ", \"key\": " << json_str(g.key()) << ", \"ops\": [";
    for (size_t i = 0; i < g.nodes.size(); ++i) o << (i ? ", " : "") << label_json(g.nodes[i]);
    o << "], \"example\": " << json_str(g.example) << "}";
  }
  o << "\n  ]\n}\n";
  return o.str();
}

std::string coverage_html(const SequenceCoverage& c, size_t top) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>plumb: op-sequence coverage</title>\n"
       "<style>body{font:14px sans-serif;margin:24px;max-width:1400px}table{border-collapse:collapse}"
       "td,th{border:1px solid #ccc;padding:3px "
       "8px;text-align:right}td.k{text-align:left;font-family:monospace}"
       ".bar{display:inline-block;height:10px;background:#4a8}.bg{display:inline-block;width:200px;height:"
       "10px;"
       "background:#eee}</style></head><body>\n";
  o << "<h1>Op-sequence coverage</h1>\n<p>Models: " << html_escape(sources_text(c.models))
    << "<br>Against: " << html_escape(sources_text(c.against))
    << "</p>\n<p>An n-gram is a path of n nodes along data edges, each node labelled with its op type and "
       "attribute classes (docs/coverage-sequences.md).</p>\n";
  o << "<table id=\"counts\"><tr><th>n</th><th>distinct</th><th>covered</th><th></th><th>occurrences</th>"
       "<th>covered</th><th>op types only: distinct</th><th>covered</th></tr>\n";
  for (const GramCount& g : c.counts) {
    const double f = g.distinct ? static_cast<double>(g.covered) / static_cast<double>(g.distinct) : 0;
    o << "<tr><td>" << g.n << "</td><td>" << g.distinct << "</td><td>" << g.covered << " ("
      << percent(g.covered, g.distinct)
      << ")</td><td><span class=\"bg\"><span class=\"bar\" style=\"width:" << static_cast<int>(200 * f)
      << "px\"></span></span></td><td>" << g.occurrences << "</td><td>" << g.covered_occurrences << " ("
      << percent(g.covered_occurrences, g.occurrences) << ")</td><td>" << g.ops_distinct << "</td><td>"
      << g.ops_covered << " (" << percent(g.ops_covered, g.ops_distinct) << ")</td></tr>\n";
  }
  o << "</table>\n";
  const size_t shown = std::min(top, c.uncovered.size());
  o << "<h2>Uncovered n-grams (" << shown << " most frequent of " << c.uncovered.size() << ")</h2>\n";
  o << "<table id=\"uncovered\"><tr><th>count</th><th>n</th><th>sequence</th><th>first seen</th></tr>\n";
  for (size_t k = 0; k < shown; ++k) {
    const Gram& g = *c.uncovered[k];
    o << "<tr><td>" << g.count << "</td><td>" << g.nodes.size() << "</td><td class=\"k\">"
      << html_escape(g.key()) << "</td><td class=\"k\">" << html_escape(g.example) << "</td></tr>\n";
  }
  o << "</table>\n</body></html>\n";
  return o.str();
}

}  // namespace plumb::hunt
