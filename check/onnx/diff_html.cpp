// `plumb diff --report FILE.html` (check/onnx/diff_onnx.h): one page in check's style
// (check/report_html.cpp), no network, no script. What a converter engineer looks at: the verdict,
// each finding (kind, ONNX node, what), the two models' ONNX nodes side by side with the finding
// each row belongs to and, with --data, B's tensor's verdict against A's value; then check's plot
// and tensor table. Laid out to fit 1400 px.
#include <map>
#include <sstream>

#include "check/onnx/diff_onnx.h"
#include "check/report_format.h"

namespace plumb::check {

namespace {

const char* kDiffStyle =
    "#findings td.what,#side-by-side td.node{overflow-wrap:anywhere}#findings td.what{max-width:900px}"
    "#side-by-side td.node{max-width:520px}tr.changed{background:#fde8e8}tr.note{background:#eef4ff}"
    "tr.k-fused td.kind,tr.k-split td.kind{color:#7a2ea0;font-weight:bold}tr.k-precision "
    "td.kind{color:#a06a00}"
    "#changes-only:checked~#side-by-side tr.same{display:none}span.op{color:#555}";

std::string onnx_node_cell(const std::string& op, const std::string& name) {
  if (op.empty() && name.empty()) return "<td class=\"node\">-</td>";
  return "<td class=\"node\"><span class=\"op\">" + html_escape(op) + "</span> <code>" +
         html_escape(name.empty() ? "(unnamed)" : name) + "</code></td>";
}

// B's compared tensors by ONNX node name: the first tensor's row (its verdict and size of error).
std::map<std::string, const TensorRow*> data_rows(const CheckReport& r) {
  std::map<std::string, const TensorRow*> out;
  for (const TensorRow& row : r.rows)
    if (row.node >= 0 && static_cast<size_t>(row.node) < r.nodes.size())
      out.emplace(r.nodes[row.node].name, &row);
  return out;
}

}  // namespace

std::string diff_html(const DiffReport& r) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>plumb diff: "
    << html_escape(r.a) << " vs " << html_escape(r.b) << "</title>\n<style>" << report_html_style()
    << kDiffStyle << "</style></head><body>\n<h1>plumb diff</h1>\n<p>A <code>" << html_escape(r.a)
    << "</code>, B <code>" << html_escape(r.b) << "</code>.</p>\n";
  const bool same = r.exit_code() == 0;
  o << "<p id=\"verdict\" class=\"" << (same ? "ok" : "bad") << "\">" << html_escape(r.verdict) << "</p>\n";

  size_t changes = 0;
  for (const DiffFinding& f : r.diff.findings) changes += !f.same_computation;
  o << "<h2>Findings</h2>\n";
  if (r.diff.findings.empty()) {
    o << "<p>None: the two core graphs compute the same (same ops, attributes, constant values, "
         "wiring).</p>\n";
  } else {
    o << "<p>" << changes << (changes == 1 ? " change" : " changes") << ", the most significant first"
      << (changes < r.diff.findings.size() ? "; then ONNX nodes fused or split onto the same core nodes" : "")
      << ".</p>\n<table id=\"findings\"><tr><th>#</th><th>kind</th><th>ONNX "
         "node</th><th>op</th><th>what</th></tr>\n";
    for (size_t k = 0; k < r.diff.findings.size(); ++k) {
      const DiffFinding& f = r.diff.findings[k];
      o << "<tr id=\"finding-" << k << "\" class=\"k-" << finding_kind_name(f.kind)
        << (f.same_computation ? " note" : "") << "\"><td>" << k << "</td><td class=\"kind\">"
        << (f.same_computation ? "same computation: " : "") << finding_kind_name(f.kind) << "</td><td><code>"
        << html_escape(f.node.empty() ? "(graph)" : f.node) << "</code></td><td>" << html_escape(f.op_type)
        << "</td><td class=\"what\">" << html_escape(f.what) << "</td></tr>\n";
    }
    o << "</table>\n";
  }

  const auto data = r.ran ? data_rows(r.data) : std::map<std::string, const TensorRow*>();
  size_t changed_rows = 0;
  for (const DiffRow& row : r.rows) changed_rows += !row.same || row.finding >= 0;
  o << "<h2>The two models side by side</h2>\n<p class=\"legend\">ONNX nodes in B's order, A's nodes with "
       "no counterpart at their place in A's order: <span class=\"ok\">the same core computation</span>"
       "<span style=\"background:#fde8e8\">differs</span><span style=\"background:#eef4ff\">same "
       "computation, "
       "other ONNX nodes</span>"
    << (r.ran ? "; on the data: B's tensor against A's value" : "") << "</p>\n"
    << "<input type=\"checkbox\" id=\"changes-only\"><label for=\"changes-only\"> changes only ("
    << changed_rows << " of " << r.rows.size()
    << ")</label>\n<table id=\"side-by-side\"><tr><th>#</th><th>A</th><th>B</th>"
    << "<th>finding</th>" << (r.ran ? "<th>on the data</th>" : "") << "</tr>\n";
  for (size_t k = 0; k < r.rows.size(); ++k) {
    const DiffRow& row = r.rows[k];
    const DiffFinding* f = row.finding >= 0 ? &r.diff.findings[row.finding] : nullptr;
    const bool note = f && f->same_computation;
    const char* cls = !row.same || (f && !note) ? "changed" : note ? "note" : "same";
    o << "<tr class=\"" << cls << "\"><td>" << k << "</td>" << onnx_node_cell(row.a_op, row.a_name)
      << onnx_node_cell(row.b_op, row.b_name) << "<td>";
    if (f)
      o << "<a href=\"#finding-" << row.finding << "\">" << row.finding << ": " << finding_kind_name(f->kind)
        << "</a>";
    else if (!row.same)
      o << (row.a_op.empty() ? "only in B" : row.b_op.empty() ? "only in A" : "differs");
    o << "</td>";
    if (r.ran) {
      const auto it = data.find(row.b_name);
      o << "<td>";
      if (it != data.end())
        o << "<span class=\"" << (it->second->failed() ? "bad" : "ok") << "\">" << verdict(*it->second)
          << "</span> max abs " << num(it->second->carried.max_abs);
      o << "</td>";
    }
    o << "</tr>\n";
  }
  o << "</table>\n";

  if (r.ran) {
    const CheckReport& c = r.data;
    size_t failed = 0;
    for (const TensorRow& row : c.rows) failed += row.failed();
    o << "<h2>On the data: B against A's values</h2>\n<p>" << c.rows.size()
      << " tensors of B compared with A's values (check's bound, tolerance " << html_escape(c.tolerance)
      << "), " << failed << " differ"
      << (c.first >= 0 ? ". First divergence: " + html_escape(c.divergence_text()) : "")
      << (c.verdict == Verdict::inconclusive ? ". Inconclusive: " + html_escape(c.inconclusive_reason) : "")
      << ".</p>\n"
      << report_html_sections(c);
  }
  o << "</body></html>\n";
  return o.str();
}

}  // namespace plumb::check
