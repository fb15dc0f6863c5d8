#include "check/report.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace plumb::check {

namespace {

std::string num(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  return strfmt("%.3g", v);
}

std::string json_num(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "null" : (v > 0 ? "\"inf\"" : "\"-inf\"");
  return strfmt("%.9g", v);
}

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      o += '\\', o += static_cast<char>(c);
    else if (c < 0x20)
      o += strfmt("\\u%04x", c);
    else
      o += static_cast<char>(c);
  }
  return o + "\"";
}

std::string html(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}

// The verdict word of a row: ok, DIFF, or ? (inconclusive).
const char* verdict(const TensorRow& r) { return r.failed() ? "DIFF" : r.inconclusive() ? "?" : "ok"; }

// The statistics that decide a row: local when the isolated run has it, else carried.
const ErrorStats& deciding(const TensorRow& r) { return r.deciding(); }

std::string term_json(double v) { return v < 0 ? "null" : json_num(v); }

std::string stats_json(const ErrorStats& s) {
  std::ostringstream o;
  o << "{\"match\": " << (s.match ? "true" : "false") << ", \"category\": " << json_str(s.category())
    << ", \"elements\": " << s.elements << ", \"differ\": " << s.differ
    << ", \"mismatches\": " << s.mismatches << ", \"beyond_noise\": " << s.beyond_noise
    << ", \"nan_inf_mismatches\": " << s.nan_inf_mismatches << ", \"max_abs\": " << json_num(s.max_abs)
    << ", \"max_rel\": " << json_num(s.max_rel) << ", \"max_ulp\": " << json_num(s.max_ulp)
    << ", \"bound_ratio\": " << (s.have_bounds || !s.match ? json_num(s.bound_ratio) : "null")
    << ", \"min_atol\": " << json_num(s.max_abs) << ", \"min_rtol\": " << json_num(s.min_rtol)
    << ", \"why\": " << json_str(s.why) << ", \"inconclusive\": " << (s.inconclusive ? "true" : "false")
    << ", \"shape_differs\": " << (s.shape_differs ? "true" : "false");
  if (s.have_bounds)
    o << ", \"noise\": {\"samples\": " << s.samples << ", \"sigma_rms\": " << json_num(s.sigma_rms)
      << ", \"element_ratio\": " << json_num(s.element_ratio)
      << ", \"aggregate_ratio\": " << json_num(s.aggregate_ratio)
      << ", \"native_ratio\": " << json_num(s.native_ratio)
      << ", \"terms\": {\"local\": " << term_json(s.term_local)
      << ", \"carried\": " << term_json(s.term_carried) << ", \"inputs\": " << term_json(s.term_inputs)
      << "}, \"dominant\": " << json_str(s.dominant()) << "}";
  o << ", \"histogram_log10_abs\": [";
  for (int b = 0; b < kHistBins; ++b) o << (b ? ", " : "") << s.hist[b];
  o << "]}";
  return o.str();
}

double log_err(double v) { return v > 0 && std::isfinite(v) ? std::log10(v) : (v > 0 ? 2.0 : kHistLo); }

// The inline SVG plot: log10 max |error| per compared tensor along the topological order, carried
// and local, the divergence marked.
std::string plot_svg(const CheckReport& r) {
  const int w = 900, h = 320, l = 60, rgt = 20, top = 20, bot = 50;
  const size_t n = r.rows.size();
  double lo = 0, hi = -20;
  for (const TensorRow& row : r.rows) {
    for (const ErrorStats* s : {&row.carried, row.has_local ? &row.local : nullptr}) {
      if (!s) continue;
      const double v = log_err(s->max_abs);
      if (s->max_abs > 0) lo = std::min(lo, v), hi = std::max(hi, v);
    }
  }
  lo = std::floor(std::min(lo, hi - 1)) - 1;
  hi = std::ceil(std::max(hi, lo + 2)) + 1;
  auto X = [&](size_t i) {
    return l + (n <= 1 ? (w - l - rgt) / 2.0 : (w - l - rgt) * double(i) / double(n - 1));
  };
  auto Y = [&](double v) { return top + (h - top - bot) * (hi - std::clamp(v, lo, hi)) / (hi - lo); };
  std::ostringstream o;
  o << "<svg id=\"error-plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
    << "\" viewBox=\"0 0 " << w << " " << h
    << "\" role=\"img\" aria-label=\"error along the topological order\">\n";
  o << "<rect x=\"0\" y=\"0\" width=\"" << w << "\" height=\"" << h << "\" fill=\"#fff\"/>\n";
  for (int d = static_cast<int>(lo); d <= static_cast<int>(hi);
       d += std::max(1, static_cast<int>(hi - lo) / 8)) {
    o << "<line x1=\"" << l << "\" x2=\"" << w - rgt << "\" y1=\"" << Y(d) << "\" y2=\"" << Y(d)
      << "\" stroke=\"#ddd\"/><text x=\"" << l - 6 << "\" y=\"" << Y(d) + 4
      << "\" font-size=\"11\" text-anchor=\"end\">"
      << (d == static_cast<int>(lo) ? std::string("0") : "1e" + std::to_string(d)) << "</text>\n";
  }
  o << "<text x=\"" << l + (w - l - rgt) / 2 << "\" y=\"" << h - 10
    << "\" font-size=\"12\" text-anchor=\"middle\">compared tensors in topological order</text>\n";
  if (r.first >= 0) {
    const double x = X(static_cast<size_t>(r.first));
    o << "<line id=\"divergence\" x1=\"" << x << "\" x2=\"" << x << "\" y1=\"" << top << "\" y2=\"" << h - bot
      << "\" stroke=\"#d00\" stroke-width=\"2\" stroke-dasharray=\"5,3\"/><text x=\"" << x + 4 << "\" y=\""
      << top + 12 << "\" font-size=\"12\" fill=\"#d00\">first divergence: " << html(r.rows[r.first].name)
      << "</text>\n";
  }
  for (int pass = 0; pass < 2; ++pass) {
    const char* color = pass == 0 ? "#1f5fbf" : "#e07b00";
    std::ostringstream path;
    for (size_t i = 0; i < n; ++i) {
      const TensorRow& row = r.rows[i];
      if (pass == 1 && !row.has_local) continue;
      const ErrorStats& s = pass == 0 ? row.carried : row.local;
      const double y = Y(log_err(s.max_abs));
      path << (path.tellp() == 0 ? "M" : " L") << X(i) << "," << y;
      o << "<circle cx=\"" << X(i) << "\" cy=\"" << y << "\" r=\"" << (s.match ? 3 : 5) << "\" fill=\""
        << (s.match ? color : "#d00") << "\"><title>" << html(row.name) << (pass == 0 ? " carried" : " local")
        << ": max abs " << num(s.max_abs) << ", " << s.category() << "</title></circle>\n";
    }
    if (path.tellp() > 0)
      o << "<path d=\"" << path.str() << "\" fill=\"none\" stroke=\"" << color << "\"/>\n";
  }
  o << "<text x=\"" << w - rgt - 4 << "\" y=\"" << top + 12
    << "\" font-size=\"12\" text-anchor=\"end\" fill=\"#1f5fbf\">"
    << "carried (end to end)</text><text x=\"" << w - rgt - 4 << "\" y=\"" << top + 28
    << "\" font-size=\"12\" text-anchor=\"end\" fill=\"#e07b00\">local (node on expected inputs)</text>\n";
  o << "</svg>\n";
  return o.str();
}

std::string hist_svg(const ErrorStats& s) {
  const int w = 200, h = 50;
  int64_t peak = 1;
  for (int64_t c : s.hist) peak = std::max(peak, c);
  std::ostringstream o;
  o << "<svg class=\"hist\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
    << "\">";
  const double bw = double(w) / kHistBins;
  for (int b = 0; b < kHistBins; ++b) {
    const double bh = (h - 12) * double(s.hist[b]) / double(peak);
    o << "<rect x=\"" << b * bw << "\" y=\"" << h - 12 - bh << "\" width=\"" << bw - 1 << "\" height=\"" << bh
      << "\" fill=\"#1f5fbf\"><title>|error| in [1e" << int(kHistLo) + b << ", 1e" << int(kHistLo) + b + 1
      << "): " << s.hist[b] << "</title></rect>";
  }
  o << "<text x=\"" << w / 2 << "\" y=\"" << h - 1 << "\" font-size=\"9\" text-anchor=\"middle\">"
    << s.elements - s.differ << " equal</text>";
  o << "<text x=\"0\" y=\"" << h - 1 << "\" font-size=\"9\">1e" << int(kHistLo) << "</text><text x=\"" << w
    << "\" y=\"" << h - 1 << "\" font-size=\"9\" text-anchor=\"end\">1e" << int(kHistLo) + kHistBins
    << "</text></svg>";
  return o.str();
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::match: return "match";
    case Verdict::mismatch: return "mismatch";
    case Verdict::inconclusive: return "inconclusive";
  }
  return "?";
}

std::string CheckReport::node_place(int node) const {
  if (node < 0 || static_cast<size_t>(node) >= nodes.size()) return "";
  const OnnxNodeInfo& n = nodes[node];
  return "node '" + n.name + "' (" + n.op_type + "-" + std::to_string(n.opset) + ")";
}

namespace {

// The compared tensor that is core value v.
std::string row_name(const CheckReport& r, ir::ValueId v) {
  for (const TensorRow& row : r.rows)
    if (row.value == v) return row.name;
  return "?";
}

}  // namespace

bool CheckReport::localized() const { return first >= 0 && rows[first].node >= 0 && span.nodes.size() <= 1; }

std::string CheckReport::divergence_text() const {
  if (first < 0) return "";
  const TensorRow& f = rows[first];
  if (f.node < 0) return "tensor '" + f.name + "'";
  if (localized()) return node_place(f.node);
  const std::string from = span.agreeing.empty()
                               ? std::string("the graph inputs")
                               : "the last agreeing tensor '" + row_name(*this, span.agreeing.back()) + "'";
  std::string list;
  constexpr size_t kListed = 8;
  for (size_t k = 0; k < span.nodes.size() && k < kListed; ++k) {
    const OnnxNodeInfo& n = nodes[span.nodes[k]];
    list += (k ? ", '" : "'") + n.name + "' (" + n.op_type + "-" + std::to_string(n.opset) + ")";
  }
  if (span.nodes.size() > kListed) list += strfmt(", and %zu more", span.nodes.size() - kListed);
  return "between " + from + " and the first differing tensor '" + f.name + "' (" +
         std::to_string(span.nodes.size()) + " nodes: " + list + ")";
}

void print_report(const CheckReport& r, std::FILE* out) {
  if (!r.note.empty()) std::fprintf(out, "note: %s\n", r.note.c_str());
  for (const std::string& name : r.specialized)
    std::fprintf(out,
                 "note: lowered for the given value of input '%s' (spec/onnx-rulings.md R1: the verdict "
                 "holds for that value)\n",
                 name.c_str());
  // verdict, category (local when isolated), carried statistics, local max abs, bound ratio
  std::fprintf(out, "%-4s  %-12s  %-12s  %-9s  %-9s  %-9s  %-13s  %-7s  %-9s  %-8s  %-7s  %s\n", "", "local",
               "carried", "max abs", "max rel", "max ulp", "mismatch", "nan/inf", "local abs", "x bound",
               "noise", "tensor  [node, class]");
  for (const TensorRow& row : r.rows) {
    const ErrorStats& c = row.carried;
    const ErrorStats& d = deciding(row);
    std::fprintf(out, "%-4s  %-12s  %-12s  %-9s  %-9s  %-9s  %-13s  %-7lld  %-9s  %-8s  %-7s  %s  [%s, %s]\n",
                 verdict(row), row.has_local ? row.local.category().c_str() : "-", c.category().c_str(),
                 num(c.max_abs).c_str(), num(c.max_rel).c_str(), num(c.max_ulp).c_str(),
                 d.shape_differs
                     ? "shape"
                     : strfmt("%lld/%lld", (long long)d.mismatches, (long long)d.elements).c_str(),
                 (long long)c.nan_inf_mismatches, row.has_local ? num(row.local.max_abs).c_str() : "-",
                 d.have_bounds ? num(d.bound_ratio).c_str() : "-",
                 (row.carried.have_bounds ? row.carried : d).dominant().c_str(), row.name.c_str(),
                 row.node >= 0 ? r.node_place(row.node).c_str() : "graph input",
                 row.node >= 0 ? r.nodes[row.node].tolerance_class().c_str() : "-");
    if (row.failed() || row.inconclusive()) std::fprintf(out, "      %s\n", d.why.c_str());
  }
  for (const std::string& s : r.skipped) std::fprintf(out, "skip  %s\n", s.c_str());
  // Worst tensors, by how far they are outside their bound (or the fixed tolerance).
  std::vector<const TensorRow*> worst;
  for (const TensorRow& row : r.rows)
    if (row.carried.differ > 0) worst.push_back(&row);
  std::stable_sort(worst.begin(), worst.end(), [](const TensorRow* a, const TensorRow* b) {
    return deciding(*a).bound_ratio > deciding(*b).bound_ratio ||
           (deciding(*a).bound_ratio == deciding(*b).bound_ratio && a->carried.max_abs > b->carried.max_abs);
  });
  if (!worst.empty()) {
    std::fprintf(out, "worst tensors:");
    for (size_t k = 0; k < worst.size() && k < 3; ++k)
      std::fprintf(out, "%s '%s' (max abs %s, %s)", k ? "," : "", worst[k]->name.c_str(),
                   num(worst[k]->carried.max_abs).c_str(), deciding(*worst[k]).category().c_str());
    std::fprintf(out, "\n");
  }
  const std::string mode = r.tolerance == "auto" ? "the auto bound" : r.tolerance;
  if (r.match()) {
    std::fprintf(out, "match: %zu tensors within %s%s\n", r.rows.size(), mode.c_str(),
                 r.isolated ? " (each node also checked on its expected inputs)" : "");
    return;
  }
  if (r.first < 0) {
    std::fprintf(out, "%s: %s\n", verdict_name(r.verdict), r.inconclusive_reason.c_str());
    return;
  }
  const TensorRow& f = r.rows[r.first];
  std::fprintf(out, "first divergence: %s\n", r.divergence_text().c_str());
  const ErrorStats& d = r.first_kind == "local" ? f.local : f.carried;
  const bool local = r.first_kind == "local";
  const char* where =
      r.localized() ? (local ? "local (its inputs agree: the node itself differs)"
                             : "end to end (its inputs were compared and agree within the tolerance)")
                    : (local ? "in that span (its nodes ran on the expected values where given; the tensors "
                               "between were not compared)"
                             : "end to end, in that span (the tensors between were not compared)");
  if (d.shape_differs) {  // no element was compared: counts and tolerances would say nothing
    std::fprintf(out, "  tensor '%s': the shapes differ (%s), no element compared\n", f.name.c_str(),
                 d.why.c_str());
  } else {
    std::fprintf(out, "  tensor '%s': %s error, %s (%lld of %lld elements beyond the noise bound)\n",
                 f.name.c_str(), where,
                 d.category() == "semantic" ? "semantic error" : "numerical noise beyond the tolerance",
                 (long long)d.beyond_noise, (long long)d.elements);
    std::fprintf(out, "  minimum tolerance that would pass: atol %s (rtol 0) or rtol %s (atol 0)%s\n",
                 num(d.max_abs).c_str(), num(d.min_rtol).c_str(),
                 d.have_bounds ? (", or the auto bound x " + num(d.bound_ratio)).c_str() : "");
  }
  for (const std::string& h : r.hints) std::fprintf(out, "hint: %s\n", h.c_str());
  size_t failed = 0;
  for (const TensorRow& row : r.rows) failed += row.failed();
  std::fprintf(out, "mismatch: %zu of %zu tensors differ (%s)\n", failed, r.rows.size(), mode.c_str());
}

std::string report_json(const CheckReport& r) {
  std::ostringstream o;
  o << "{\n  \"model\": " << json_str(r.model) << ",\n  \"verdict\": " << json_str(verdict_name(r.verdict))
    << ",\n  \"inconclusive_reason\": " << json_str(r.inconclusive_reason)
    << ",\n  \"tolerance\": " << json_str(r.tolerance) << ",\n  \"note\": " << json_str(r.note)
    << ",\n  \"specialized_inputs\": [";
  for (size_t k = 0; k < r.specialized.size(); ++k) o << (k ? ", " : "") << json_str(r.specialized[k]);
  o << "]"
    << ",\n  \"isolated\": " << (r.isolated ? "true" : "false") << ",\n  \"first_divergence\": ";
  if (r.first < 0) {
    o << "null";
  } else {
    // node, op_type and opset name the node only when the divergence is localized on it; otherwise
    // "span" says which nodes it lies between (DESIGN.md §7: scripts read first_divergence.node).
    const TensorRow& f = r.rows[r.first];
    const bool one = r.localized();
    o << "{\"node\": " << (one ? json_str(r.nodes[f.node].name) : "null")
      << ", \"op_type\": " << (one ? json_str(r.nodes[f.node].op_type) : "null")
      << ", \"opset\": " << (one ? std::to_string(r.nodes[f.node].opset) : "null")
      << ", \"tensor\": " << json_str(f.name) << ", \"kind\": " << json_str(r.first_kind)
      << ", \"localized\": " << (one ? "true" : "false") << ", \"text\": " << json_str(r.divergence_text())
      << ",\n    \"span\": {\"after\": [";
    for (size_t k = 0; k < r.span.agreeing.size(); ++k)
      o << (k ? ", " : "") << json_str(row_name(r, r.span.agreeing[k]));
    o << "], \"from_graph_inputs\": " << (r.span.from_graph_inputs ? "true" : "false") << ", \"nodes\": [";
    for (size_t k = 0; k < r.span.nodes.size(); ++k) {
      const OnnxNodeInfo& n = r.nodes[r.span.nodes[k]];
      o << (k ? ", " : "") << "{\"name\": " << json_str(n.name) << ", \"op_type\": " << json_str(n.op_type)
        << ", \"opset\": " << n.opset << "}";
    }
    o << "]}}";
  }
  o << ",\n  \"hints\": [";
  for (size_t k = 0; k < r.hints.size(); ++k) o << (k ? ", " : "") << json_str(r.hints[k]);
  o << "]";
  o << ",\n  \"tensors\": [";
  for (size_t k = 0; k < r.rows.size(); ++k) {
    const TensorRow& row = r.rows[k];
    o << (k ? ",\n" : "\n") << "    {\"name\": " << json_str(row.name) << ", \"order\": " << k
      << ", \"node\": " << json_str(row.node >= 0 ? r.nodes[row.node].name : "")
      << ", \"op_type\": " << json_str(row.node >= 0 ? r.nodes[row.node].op_type : "")
      << ", \"class\": " << json_str(row.node >= 0 ? r.nodes[row.node].tolerance_class() : "")
      << ", \"type\": " << json_str(row.type) << ", \"match\": " << (row.failed() ? "false" : "true")
      << ", \"fed_forward\": " << (row.fed ? "true" : "false")
      << ",\n     \"carried\": " << stats_json(row.carried);
    if (row.has_local) o << ",\n     \"local\": " << stats_json(row.local);
    o << "}";
  }
  o << "\n  ],\n  \"skipped\": [";
  for (size_t k = 0; k < r.skipped.size(); ++k) o << (k ? ", " : "") << json_str(r.skipped[k]);
  o << "]\n}\n";
  return o.str();
}

std::string report_html(const CheckReport& r) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>plumb check: "
    << html(r.model)
    << "</title>\n<style>body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;"
       "font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}"
       "tr.diff{background:#fde8e8}tr.first{outline:2px solid "
       "#d00}.ok{color:#070}.bad{color:#b00;font-weight:bold}"
       "code{font-size:12px}</style></head><body>\n";
  o << "<h1>plumb check</h1>\n<p>Model <code>" << html(r.model) << "</code>, tolerance " << html(r.tolerance)
    << (r.isolated ? ", each node also evaluated on the expected values of its inputs" : "") << ".</p>\n";
  for (const std::string& name : r.specialized)
    o << "<p>Lowered for the given value of input <code>" << html(name)
      << "</code> (spec/onnx-rulings.md R1): the verdict holds for that value.</p>\n";
  if (!r.note.empty()) o << "<p>Note: " << html(r.note) << "</p>\n";
  if (r.match()) {
    o << "<p id=\"verdict\" class=\"ok\">match: " << r.rows.size() << " tensors</p>\n";
  } else if (r.first < 0) {
    o << "<p id=\"verdict\" class=\"bad\">" << verdict_name(r.verdict) << ": " << html(r.inconclusive_reason)
      << "</p>\n";
  } else {
    const TensorRow& f = r.rows[r.first];
    o << "<p id=\"verdict\" class=\"bad\">mismatch. First divergence: " << html(r.divergence_text()) << " ("
      << html(r.first_kind) << " error on tensor <code>" << html(f.name) << "</code>)</p>\n";
    for (const std::string& h : r.hints) o << "<p class=\"hint\">Hint: " << html(h) << "</p>\n";
  }
  o << "<h2>Error along the topological order</h2>\n" << plot_svg(r);
  o << "<h2>Tensors</h2>\n<table id=\"tensors\"><tr><th>#</th><th>tensor</th><th>node</th><th>class</th>"
       "<th>verdict</th><th>max abs</th><th>max rel</th><th>max ulp</th><th>mismatch</th><th>NaN/inf</th>"
       "<th>local max abs</th><th>x bound</th><th>|error| histogram</th></tr>\n";
  for (size_t k = 0; k < r.rows.size(); ++k) {
    const TensorRow& row = r.rows[k];
    const ErrorStats& d = deciding(row);
    o << "<tr class=\"" << (row.failed() ? "diff" : "") << (static_cast<int>(k) == r.first ? " first" : "")
      << "\"><td>" << k << "</td><td><code>" << html(row.name) << "</code><br>" << html(row.type)
      << "</td><td>" << html(row.node >= 0 ? r.node_place(row.node) : "graph input") << "</td><td>"
      << html(row.node >= 0 ? r.nodes[row.node].tolerance_class() : "-") << "</td><td>" << verdict(row)
      << " (" << d.category() << ")</td><td>" << num(row.carried.max_abs) << "</td><td>"
      << num(row.carried.max_rel) << "</td><td>" << num(row.carried.max_ulp) << "</td><td>"
      << row.carried.mismatches << "/" << row.carried.elements << "</td><td>"
      << row.carried.nan_inf_mismatches << "</td><td>" << (row.has_local ? num(row.local.max_abs) : "-")
      << "</td><td>" << (d.have_bounds ? num(d.bound_ratio) : "-") << "</td><td>" << hist_svg(d)
      << "</td></tr>\n";
  }
  o << "</table>\n";
  if (!r.skipped.empty()) {
    o << "<p>Skipped:</p><ul>";
    for (const std::string& s : r.skipped) o << "<li>" << html(s) << "</li>";
    o << "</ul>\n";
  }
  o << "</body></html>\n";
  return o.str();
}

}  // namespace plumb::check
