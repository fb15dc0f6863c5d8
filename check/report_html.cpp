// `--report FILE.html` (check/report.h): one self-contained page, no network, no script. What a
// converter engineer looks at: the verdict and hints; a plot of each compared tensor's error
// divided by its bound along the topological order (the 1.0 line is the bound: a point above it
// fails), names on hover and on the axis; a compact graph view (every ONNX node in topological
// order, the divergent span highlighted); the table, with the terminal's columns in its order and
// a failures-only toggle (CSS only), laid out to fit 1400 px.
#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "check/report.h"
#include "check/report_format.h"

namespace plumb::check {

namespace {

std::string html(const std::string& s) { return html_escape(s); }

// A name cut to `n` characters for an axis label (the full name is in the title).
std::string shortened(const std::string& s, size_t n) {
  return s.size() <= n ? s : "…" + s.substr(s.size() - (n - 1));
}

// What the plot draws per result: the ratio to its bound (0 for an exact result; inf past any
// bound, e.g. a NaN or a shape mismatch); negative when there is no bound (not drawn).
double plotted_ratio(const ErrorStats& s) {
  if (s.differ == 0 && s.match && !s.shape_differs) return 0;
  if (s.have_bounds || !s.match) return s.bound_ratio;
  return -1;
}

constexpr double kRatioLo = -3, kRatioHi = 6;  // log10 range of the plot; beyond: at the edge

std::string plot_svg(const CheckReport& r) {
  const size_t n = r.rows.size();
  const int w = 1360, l = 56, rgt = 16, top = 24, plot_h = 240, label_h = 150;
  const int h = top + plot_h + label_h;
  const double span_w = w - l - rgt;
  auto X = [&](size_t i) { return l + (n <= 1 ? span_w / 2 : span_w * double(i) / double(n - 1)); };
  auto Y = [&](double ratio) {
    const double v = ratio <= 0 ? kRatioLo : std::isinf(ratio) ? kRatioHi : std::log10(ratio);
    return top + plot_h * (kRatioHi - std::clamp(v, kRatioLo, kRatioHi)) / (kRatioHi - kRatioLo);
  };
  std::ostringstream o;
  o << "<svg id=\"error-plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
    << "\" viewBox=\"0 0 " << w << " " << h
    << "\" role=\"img\" aria-label=\"error divided by its bound, along the topological order\">\n"
    << "<rect x=\"0\" y=\"0\" width=\"" << w << "\" height=\"" << h << "\" fill=\"#fff\"/>\n";
  for (int d = static_cast<int>(kRatioLo); d <= static_cast<int>(kRatioHi); ++d) {
    const std::string label = d == kRatioLo   ? std::string("≤1e-3")
                              : d == kRatioHi ? std::string("≥1e6")
                              : d == 0        ? std::string("1")
                                              : "1e" + std::to_string(d);
    o << "<line x1=\"" << l << "\" x2=\"" << w - rgt << "\" y1=\"" << Y(std::pow(10.0, d)) << "\" y2=\""
      << Y(std::pow(10.0, d)) << "\" stroke=\"#eee\"/><text x=\"" << l - 4 << "\" y=\""
      << Y(std::pow(10.0, d)) + 4 << "\" font-size=\"10\" text-anchor=\"end\">" << label << "</text>\n";
  }
  o << "<line id=\"bound-line\" x1=\"" << l << "\" x2=\"" << w - rgt << "\" y1=\"" << Y(1) << "\" y2=\""
    << Y(1) << "\" stroke=\"#d00\" stroke-width=\"1.5\"/><text x=\"" << l + 8 << "\" y=\"" << Y(1) + 13
    << "\" font-size=\"11\" fill=\"#d00\">bound (1.0): above fails</text>\n";
  o << "<text x=\"14\" y=\"" << top + plot_h / 2
    << "\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 14 " << top + plot_h / 2
    << ")\">|error| / bound</text>\n";
  if (r.first >= 0) {
    const double x = X(static_cast<size_t>(r.first));
    const bool right = x > l + span_w / 2;  // the label grows away from the edge
    o << "<line id=\"divergence\" x1=\"" << x << "\" x2=\"" << x << "\" y1=\"" << top << "\" y2=\""
      << top + plot_h << "\" stroke=\"#d00\" stroke-width=\"2\" stroke-dasharray=\"5,3\"/><text x=\""
      << x + (right ? -4 : 4) << "\" y=\"" << top - 8 << "\" font-size=\"12\" fill=\"#d00\" text-anchor=\""
      << (right ? "end" : "start") << "\">first divergence: " << html(shortened(r.rows[r.first].name, 60))
      << "</text>\n";
  }
  for (int pass = 0; pass < 2; ++pass) {
    const char* color = pass == 0 ? "#1f5fbf" : "#e07b00";
    std::ostringstream path;
    for (size_t i = 0; i < n; ++i) {
      const TensorRow& row = r.rows[i];
      if (pass == 1 && !row.has_local) continue;
      const ErrorStats& s = pass == 0 ? row.carried : row.local;
      const double ratio = plotted_ratio(s);
      if (ratio < 0) continue;
      const double y = Y(ratio);
      path << (path.tellp() == 0 ? "M" : " L") << X(i) << "," << y;
      const bool bad = !s.match && !s.inconclusive;
      o << "<circle class=\"" << (pass == 0 ? "carried" : "local") << "\" cx=\"" << X(i) << "\" cy=\"" << y
        << "\" r=\"" << (bad ? 4.5 : 3) << "\" fill=\""
        << (bad              ? "#d00"
            : s.inconclusive ? "#999"
                             : color)
        << "\"><title>" << html(row.name) << (pass == 0 ? " (carried)" : " (local)") << ": |error|/bound "
        << num(ratio) << ", max abs " << num(s.max_abs) << ", " << s.category() << "</title></circle>\n";
    }
    if (path.tellp() > 0)
      o << "<path d=\"" << path.str() << "\" fill=\"none\" stroke=\"" << color << "\" stroke-width=\"1\"/>\n";
  }
  // Tensor names under the axis, every `step`-th when they would overlap (11 px a label).
  const size_t step =
      n <= 1 ? 1 : std::max<size_t>(1, static_cast<size_t>(std::ceil(11.0 * (n - 1) / span_w)));
  for (size_t i = 0; i < n; i += step) {
    const double x = X(i) + 3, y = top + plot_h + 8;
    o << "<text class=\"xlabel\" x=\"" << x << "\" y=\"" << y
      << "\" font-size=\"10\" text-anchor=\"end\" transform=\"rotate(-90 " << x << " " << y << ")\""
      << (static_cast<int>(i) == r.first ? " fill=\"#d00\"" : "") << "><title>" << html(r.rows[i].name)
      << "</title>" << html(shortened(r.rows[i].name, 26)) << "</text>\n";
  }
  o << "</svg>\n";
  return o.str();
}

std::string hist_svg(const ErrorStats& s) {
  const int w = 120, h = 40;
  int64_t peak = 1;
  for (int64_t c : s.hist) peak = std::max(peak, c);
  std::ostringstream o;
  o << "<svg class=\"hist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
    << "\">";
  const double bw = double(w) / kHistBins;
  for (int b = 0; b < kHistBins; ++b) {
    const double bh = (h - 11) * double(s.hist[b]) / double(peak);
    o << "<rect x=\"" << b * bw << "\" y=\"" << h - 11 - bh << "\" width=\"" << bw - 1 << "\" height=\"" << bh
      << "\" fill=\"#1f5fbf\"><title>|error| in [1e" << int(kHistLo) + b << ", 1e" << int(kHistLo) + b + 1
      << "): " << s.hist[b] << "</title></rect>";
  }
  o << "<text x=\"" << w / 2 << "\" y=\"" << h - 1 << "\" font-size=\"9\" text-anchor=\"middle\">"
    << s.elements - s.differ << " equal</text><text x=\"0\" y=\"" << h - 1 << "\" font-size=\"8\">1e"
    << int(kHistLo) << "</text><text x=\"" << w << "\" y=\"" << h - 1
    << "\" font-size=\"8\" text-anchor=\"end\">1e" << int(kHistLo) + kHistBins << "</text></svg>";
  return o.str();
}

// Every ONNX node in topological order, one small box each: the divergent span in red, nodes
// whose tensor was compared outlined by its verdict, the others grey.
std::string graph_view(const CheckReport& r) {
  const std::set<size_t> span(r.span.nodes.begin(), r.span.nodes.end());
  std::vector<const TensorRow*> row_of(r.nodes.size(), nullptr);
  for (const TensorRow& row : r.rows)
    if (row.node >= 0 && static_cast<size_t>(row.node) < r.nodes.size() && !row_of[row.node])
      row_of[row.node] = &row;
  std::ostringstream o;
  o << "<div id=\"graph-view\">";
  for (size_t k = 0; k < r.nodes.size(); ++k) {
    const OnnxNodeInfo& n = r.nodes[k];
    if (n.op_type.empty()) continue;  // initializer constants
    const TensorRow* row = row_of[k];
    std::string cls = "node";
    if (row) cls += row->failed() ? " cmp-diff" : row->inconclusive() ? " cmp-q" : " cmp-ok";
    if (span.count(k)) cls += " span";
    if (r.first >= 0 && r.rows[r.first].node == static_cast<int>(k)) cls += " first";
    o << "<span class=\"" << cls << "\" title=\"" << html(r.node_place(static_cast<int>(k)))
      << (row ? html(": '" + row->name + "' " + verdict(*row) + " (" + row->deciding().category() + ")") : "")
      << (span.count(k) ? " [in the divergent span]" : "") << "\">" << html(n.op_type) << "</span>";
  }
  o << "</div>\n";
  return o.str();
}

}  // namespace

std::string report_html_style() {
  return "body{font-family:sans-serif;margin:16px;color:#222;max-width:1400px}"
         "table{border-collapse:collapse;font-size:12px;width:100%}"
         "td,th{border:1px solid #ccc;padding:2px 4px;text-align:left;vertical-align:top}"
         "td.name{max-width:300px;overflow-wrap:anywhere}td.node{max-width:220px;overflow-wrap:anywhere}"
         "tr.diff{background:#fde8e8}tr.first{outline:2px solid #d00}tr.undecided{background:#f2f2f2}"
         "#failures-only:checked~#tensors tr.pass{display:none}"
         ".ok{color:#070}.bad{color:#b00;font-weight:bold}.hint{background:#fff6d5;padding:4px 8px}"
         ".legend span{margin-right:18px}"
         "#graph-view{display:flex;flex-wrap:wrap;gap:2px;font-size:10px;max-width:1400px}"
         "#graph-view .node{border:1px solid #bbb;color:#666;padding:1px 3px;border-radius:3px}"
         "#graph-view .cmp-ok{border-color:#070;color:#070}#graph-view .cmp-q{border-color:#999;color:#222}"
         "#graph-view .cmp-diff{border-color:#d00;color:#d00;font-weight:bold}"
         "#graph-view .span{background:#fbc9c9;color:#900}#graph-view .first{outline:2px solid #d00}"
         "code{font-size:12px}";
}

std::string report_html_sections(const CheckReport& r) {
  std::ostringstream o;
  o << "<h2>Error along the topological order</h2>\n<p class=\"legend\"><span style=\"color:#1f5fbf\">● "
       "carried (end to end)</span><span style=\"color:#e07b00\">● local (node on the expected inputs)</span>"
       "<span style=\"color:#d00\">● fails</span><span style=\"color:#999\">● inconclusive</span></p>\n"
    << plot_svg(r);
  o << "<h2>Graph</h2>\n<p class=\"legend\">" << r.nodes.size()
    << " ONNX nodes in topological order: <span style=\"color:#070\">compared, ok</span>"
       "<span style=\"color:#d00\">compared, differs</span><span style=\"background:#fbc9c9\">the divergent "
       "span</span><span style=\"color:#666\">not compared</span></p>\n"
    << graph_view(r);
  size_t failing = 0;
  for (const TensorRow& row : r.rows) failing += row.failed() || row.inconclusive();
  o << "<h2>Tensors</h2>\n<input type=\"checkbox\" id=\"failures-only\"><label for=\"failures-only\"> "
       "failures "
       "only ("
    << failing << " of " << r.rows.size() << ")</label>\n"
    << "<table id=\"tensors\"><tr><th>#</th><th></th><th>local</th><th>carried</th><th>max abs</th>"
       "<th>max rel</th><th>max ulp</th><th>mismatch</th><th>nan/inf</th><th>local abs</th><th>x bound</th>"
       "<th>noise</th><th>tensor</th><th>node</th><th>class</th><th>|error| histogram</th></tr>\n";
  for (size_t k = 0; k < r.rows.size(); ++k) {
    const TensorRow& row = r.rows[k];
    const ErrorStats& c = row.carried;
    const ErrorStats& d = row.deciding();
    const std::string cls = row.failed() ? "diff" : row.inconclusive() ? "undecided" : "pass";
    o << "<tr class=\"" << cls << (static_cast<int>(k) == r.first ? " first" : "") << "\"><td>" << k
      << "</td><td>" << verdict(row) << "</td><td>" << (row.has_local ? row.local.category() : "-")
      << "</td><td>" << c.category() << "</td><td>" << num(c.max_abs) << "</td><td>" << num(c.max_rel)
      << "</td><td>" << num(c.max_ulp) << "</td><td>" << mismatch_text(d) << "</td><td>"
      << c.nan_inf_mismatches << "</td><td>" << (row.has_local ? num(row.local.max_abs) : "-") << "</td><td>"
      << bound_text(d) << "</td><td>" << noise_term(row) << "</td><td class=\"name\"><code>" << html(row.name)
      << "</code><br>" << html(row.type) << "</td><td class=\"node\">"
      << html(row.node >= 0 ? r.node_place(row.node) : "graph input") << "</td><td>"
      << html(row.node >= 0 ? r.nodes[row.node].tolerance_class() : "-") << "</td><td>" << hist_svg(d)
      << "</td></tr>\n";
    if (row.failed() || row.inconclusive())
      o << "<tr class=\"" << cls << " why\"><td></td><td colspan=\"15\">" << html(d.why) << "</td></tr>\n";
  }
  o << "</table>\n";
  if (!r.skipped.empty()) {
    o << "<p>Skipped:</p><ul>";
    for (const std::string& s : r.skipped) o << "<li>" << html(s) << "</li>";
    o << "</ul>\n";
  }
  return o.str();
}

std::string report_html(const CheckReport& r) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>plumb check: "
    << html(r.model) << "</title>\n<style>" << report_html_style() << "</style></head><body>\n";
  o << "<h1>plumb check</h1>\n<p>Model <code>" << html(r.model) << "</code>, tolerance " << html(r.tolerance)
    << (r.isolated ? ", each node also evaluated on the expected values of its inputs" : "") << ".</p>\n";
  for (const std::string& name : r.specialized)
    o << "<p>Lowered for the given value of input <code>" << html(name)
      << "</code> (spec/onnx-rulings.md R1): the verdict holds for that value.</p>\n";
  if (!r.note.empty()) o << "<p>Note: " << html(r.note) << "</p>\n";
  if (r.match()) {
    o << "<p id=\"verdict\" class=\"ok\">match: " << r.rows.size()
      << (r.rows.size() == 1 ? " tensor" : " tensors") << "</p>\n";
  } else if (r.first < 0) {
    o << "<p id=\"verdict\" class=\"bad\">" << verdict_name(r.verdict) << ": " << html(r.inconclusive_reason)
      << "</p>\n";
  } else {
    const TensorRow& f = r.rows[r.first];
    o << "<p id=\"verdict\" class=\"bad\">mismatch. First divergence: " << html(r.divergence_text()) << " ("
      << html(r.first_kind) << " error on tensor <code>" << html(f.name) << "</code>)</p>\n";
    for (const std::string& h : r.hints) o << "<p class=\"hint\">Hint: " << html(h) << "</p>\n";
  }
  o << report_html_sections(r) << "</body></html>\n";
  return o.str();
}

}  // namespace plumb::check
