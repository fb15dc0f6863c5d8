#include "check/diff_view.h"

#include <algorithm>
#include <set>

#include "check/eval.h"

namespace plumb::check {

namespace {

// One graph's ONNX nodes as the rows show them: those with a live non-constant core node.
struct Groups {
  std::vector<OnnxNodeInfo> all;  // onnx_nodes_of
  std::vector<size_t> shown;      // indices into all
  std::vector<int> row_of;        // per index into all: the row it is in, -1 none yet
};

Groups groups_of(const ir::Graph& g, const std::vector<bool>& live, const std::vector<bool>& constant) {
  Groups out;
  out.all = onnx_nodes_of(g);
  out.row_of.assign(out.all.size(), -1);
  for (size_t i = 0; i < out.all.size(); ++i) {
    bool counts = false;
    for (size_t k = out.all[i].first; k <= out.all[i].last && !counts; ++k) counts = live[k] && !constant[k];
    if (counts && !out.all[i].op_type.empty()) out.shown.push_back(i);
  }
  return out;
}

}  // namespace

std::vector<DiffRow> side_by_side(const ir::Graph& a, const ir::Graph& b, const GraphDiff& d) {
  const GraphMatch& m = d.match;
  Groups ga = groups_of(a, m.live_a, m.const_a), gb = groups_of(b, m.live_b, m.const_b);
  std::vector<DiffRow> rows;
  // The first finding about each core node.
  std::vector<int> finding_a(a.body.nodes.size(), -1), finding_b(b.body.nodes.size(), -1);
  for (size_t f = 0; f < d.findings.size(); ++f) {
    for (size_t k : d.findings[f].nodes_a)
      if (k < finding_a.size() && finding_a[k] < 0) finding_a[k] = static_cast<int>(f);
    for (size_t k : d.findings[f].nodes_b)
      if (k < finding_b.size() && finding_b[k] < 0) finding_b[k] = static_cast<int>(f);
  }
  auto first_finding = [](const OnnxNodeInfo& n, const std::vector<int>& of) {
    int best = -1;
    for (size_t k = n.first; k <= n.last; ++k)
      if (of[k] >= 0 && (best < 0 || of[k] < best)) best = of[k];
    return best;
  };
  auto same_a = [&](const OnnxNodeInfo& n) {
    for (size_t k = n.first; k <= n.last; ++k) {
      if (!m.live_a[k] || m.const_a[k]) continue;
      const int p = m.b_of_a[k];
      if (p < 0 || !m.same_b[p]) return false;
    }
    return true;
  };
  auto add_a = [&](size_t i, int with_row) {  // A's ONNX node i: its own row, or into row with_row
    const OnnxNodeInfo& n = ga.all[i];
    if (with_row < 0) {
      rows.push_back({n.name, n.op_type, "", "", false, first_finding(n, finding_a)});
      with_row = static_cast<int>(rows.size() - 1);
    } else {
      DiffRow& r = rows[with_row];
      r.a_name = n.name, r.a_op = n.op_type;
      r.same = r.same && same_a(n);
      const int f = first_finding(n, finding_a);
      if (f >= 0 && (r.finding < 0 || f < r.finding)) r.finding = f;
    }
    ga.row_of[i] = with_row;
  };
  size_t next_a = 0;                  // position in ga.shown: A's nodes before it have a row
  auto catch_up = [&](size_t upto) {  // rows for A's nodes before `upto` that pair with nothing
    for (; next_a < ga.shown.size() && ga.shown[next_a] < upto; ++next_a)
      if (ga.row_of[ga.shown[next_a]] < 0) add_a(ga.shown[next_a], -1);
  };
  for (size_t j : gb.shown) {
    const OnnxNodeInfo& n = gb.all[j];
    std::set<size_t> partners;  // A's ONNX nodes computing its core nodes
    bool same = true;
    for (size_t k = n.first; k <= n.last; ++k) {
      if (!m.live_b[k] || m.const_b[k]) continue;
      const int p = m.a_of_b[k];
      same = same && p >= 0 && m.same_b[k];
      if (p >= 0) partners.insert(group_of(ga.all, static_cast<size_t>(p)));
    }
    if (!partners.empty()) catch_up(*partners.begin());
    bool placed = false;
    for (size_t i : partners) {  // one row per A node (a fusion: several rows of this B node)
      rows.push_back({"", "", n.name, n.op_type, same, first_finding(n, finding_b)});
      const int at = static_cast<int>(rows.size() - 1);
      if (ga.row_of[i] >= 0) {  // A's node already has a row (a split): named again here
        const int keep = ga.row_of[i];
        add_a(i, at);
        ga.row_of[i] = keep;
      } else {
        add_a(i, at);
      }
      placed = true;
    }
    if (!placed) rows.push_back({"", "", n.name, n.op_type, false, first_finding(n, finding_b)});
  }
  catch_up(ga.all.size());
  return rows;
}

}  // namespace plumb::check
