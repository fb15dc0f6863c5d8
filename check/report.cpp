#include "check/report.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "check/report_format.h"

namespace plumb::check {

std::string num(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  return strfmt("%.3g", v);
}

const char* verdict(const TensorRow& r) { return r.failed() ? "DIFF" : r.inconclusive() ? "?" : "ok"; }

std::string mismatch_text(const ErrorStats& d) {
  return d.shape_differs ? "shape" : strfmt("%lld/%lld", (long long)d.mismatches, (long long)d.elements);
}

std::string bound_text(const ErrorStats& d) { return d.have_bounds ? num(d.bound_ratio) : "-"; }

std::string noise_term(const TensorRow& row) {
  return (row.carried.have_bounds ? row.carried : row.deciding()).dominant();
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

std::string html_escape(const std::string& s) {
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

namespace {

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
  if (r.backend != "ref")
    std::fprintf(out, "note: plumb's own runs on backend %s (its declared error: spec/numerics.md)\n",
                 r.backend.c_str());
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
                 bound_text(d).c_str(), noise_term(row).c_str(), row.name.c_str(),
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
    std::fprintf(out, "match: %zu tensor%s within %s%s\n", r.rows.size(), r.rows.size() == 1 ? "" : "s",
                 mode.c_str(), r.isolated ? " (each node also checked on its expected inputs)" : "");
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
    << ",\n  \"tolerance\": " << json_str(r.tolerance) << ",\n  \"backend\": " << json_str(r.backend)
    << ",\n  \"note\": " << json_str(r.note) << ",\n  \"specialized_inputs\": [";
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

}  // namespace plumb::check
