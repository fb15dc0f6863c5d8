// run_check (check/onnx/run_check.h): load, read the expected values, run the carried and the
// isolated graphs in their three modes (check/eval.h), compare, find the first divergence.
#include "check/onnx/run_check.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "check/onnx/expected.h"
#include "check/onnx/frontend.h"
#include "check/onnx/values_io.h"
#include "ir/verify.h"
#include "runtime/session.h"

namespace plumb::check {

namespace {

// The progress callback of a request, as run_all reports to it.
class Progress {
 public:
  explicit Progress(const std::function<void(const std::string&)>& f) : f_(f) {}
  void step(const std::string& what) {
    if (f_) f_(what);
  }

 private:
  const std::function<void(const std::string&)>& f_;
};

// Each graph run_all runs is verified once (ir::verify) before its first run; the sessions do not
// verify again.
Expected<std::vector<rt::RtValue>> run_graph(const ir::Graph& g, rt::NumericMode mode,
                                             const std::vector<rt::RtValue>& inputs) {
  rt::SessionOptions o;
  o.mode = mode;
  o.verify = false;  // verified by the caller (run_all)
  PLUMB_ASSIGN_OR_RETURN(std::unique_ptr<rt::Session> s, rt::Session::create(g, o));
  for (size_t k = 0; k < inputs.size() && k < s->num_inputs(); ++k)
    PLUMB_RETURN_IF_ERROR(s->set_input(k, inputs[k]));
  PLUMB_RETURN_IF_ERROR(s->run());
  return s->outputs();
}

// The three runs of one graph: native, and for the auto bound precise and bounds (empty when
// they could not run: the bound is then unavailable and the fixed default tolerance decides).
struct Runs {
  std::vector<rt::RtValue> native, precise, bounds, sensitivity;
  BoundInputs at(size_t k) const {
    BoundInputs b;
    if (k < precise.size()) b.precise = &precise[k];
    if (k < bounds.size()) b.bounds = &bounds[k];
    if (k < sensitivity.size()) b.sensitivity = &sensitivity[k];
    return b;
  }
};

// sum += |p - r| elementwise, for float tensors of one shape. sum starts as an empty value: a
// default RtValue, i.e. a rank-0 f32 tensor with no storage, so "has the shape already" is not
// enough to tell it apart from a running sum (a rank-0 result has that shape too: a reduction to a
// scalar, torch.std, a loss), and the storage and dtype must be checked.
void add_deviation(const rt::RtValue& p, const rt::RtValue& r, rt::RtValue& sum) {
  if (!p.is_tensor() || !r.is_tensor() || p.tensor().dtype != ir::DType::F64 ||
      r.tensor().dtype != ir::DType::F64 || p.tensor().shape != r.tensor().shape)
    return;
  if (!holds_f64_of_shape(sum, p.tensor().shape))
    sum = rt::RtValue(rt::Tensor::allocate(ir::DType::F64, p.tensor().shape));
  double* s = sum.tensor().as<double>();
  const double* a = p.tensor().as<double>();
  const double* b = r.tensor().as<double>();
  for (int64_t i = 0; i < p.tensor().numel(); ++i)
    s[i] += std::isfinite(a[i] - b[i]) ? std::fabs(a[i] - b[i]) : 0.0;
}

// Splits the fed inputs (param indices) into sets such that no ONNX node reads two of one set.
std::vector<std::vector<size_t>> perturbation_sets(const ir::Graph& g, const std::vector<OnnxNodeInfo>& nodes,
                                                   size_t first_fed) {
  std::map<ir::ValueId, size_t> param_of;
  for (size_t k = first_fed; k < g.body.params.size(); ++k) param_of[g.body.params[k]] = k;
  std::vector<std::set<size_t>> reads(nodes.size());  // fed params each ONNX node reads
  std::function<void(const ir::Node&, std::set<size_t>&)> scan = [&](const ir::Node& n,
                                                                     std::set<size_t>& out) {
    for (ir::ValueId v : n.inputs)
      if (auto it = param_of.find(v); it != param_of.end()) out.insert(it->second);
    for (const ir::Region& r : n.regions)
      for (const ir::Node& m : r.nodes) scan(m, out);
  };
  for (size_t k = 0; k < g.body.nodes.size(); ++k) scan(g.body.nodes[k], reads[group_of(nodes, k)]);
  std::map<size_t, size_t> color;
  std::vector<std::vector<size_t>> sets;
  for (size_t p = first_fed; p < g.body.params.size(); ++p) {
    std::set<size_t> taken;
    for (const std::set<size_t>& r : reads)
      if (r.count(p))
        for (size_t q : r)
          if (auto it = color.find(q); it != color.end()) taken.insert(it->second);
    size_t c = 0;
    while (taken.count(c)) ++c;
    color[p] = c;
    if (c >= sets.size()) sets.resize(c + 1);
    sets[c].push_back(p);
  }
  return sets;
}

Expected<Runs> run_all(const ir::Graph& g, const std::vector<OnnxNodeInfo>& nodes,
                       const std::vector<rt::RtValue>& inputs,
                       const std::vector<std::vector<size_t>>& perturb, Progress& progress,
                       const std::string& label, std::string* note) {
  Runs r;
  PLUMB_RETURN_IF_ERROR(ir::verify(g));
  progress.step(label + ": native run");
  PLUMB_ASSIGN_OR_RETURN(r.native, run_graph(g, rt::NumericMode::kNative, inputs));
  progress.step(label + ": precise (f64) run");
  auto p = run_graph(g, rt::NumericMode::kPrecise, inputs);
  if (!p) {
    *note = "precise run failed (" + p.status().to_string() + "): auto bound unavailable";
    return r;
  }
  r.precise = std::move(*p);
  progress.step(label + ": bounds run");
  const ir::Graph bg = bounds_graph(g, nodes);
  const Status bv = ir::verify(bg);
  auto b =
      bv.is_ok() ? run_graph(bg, rt::NumericMode::kPrecise, inputs) : Expected<std::vector<rt::RtValue>>(bv);
  if (b)
    r.bounds = std::move(*b);
  else
    *note = "bounds run failed (" + b.status().to_string() + "): no dot-product term in the auto bound";
  for (size_t set = 0; set < perturb.size(); ++set) {
    progress.step(label + strfmt(": perturbed run %zu/%zu", set + 1, perturb.size()));
    std::vector<rt::RtValue> moved = inputs;
    for (size_t k : perturb[set]) moved[k] = perturbed_by_one_ulp(inputs[k], k + 1);
    auto q = run_graph(g, rt::NumericMode::kPrecise, moved);
    if (!q) continue;
    r.sensitivity.resize(q->size());
    for (size_t k = 0; k < q->size(); ++k) add_deviation((*q)[k], r.precise[k], r.sensitivity[k]);
  }
  return r;
}

struct Target {
  ExpectedValue* e;
  ir::ValueId value;
  size_t producer;  // top-level core node index, SIZE_MAX when none (a graph input)
  rt::RtValue expected;
};

}  // namespace

Expected<CheckReport> run_check(const CheckRequest& opt) {
  Progress progress(opt.progress);
  const std::string expected_path = opt.expected.empty() ? opt.inputs.data_dir : opt.expected;
  if (expected_path.empty()) return invalid_input("no expected values given (an expected folder or file)");

  progress.step("lowering " + opt.model);
  PLUMB_ASSIGN_OR_RETURN(LoadedModel loaded, load_model(opt.model, opt.inputs, onnx_frontend()));
  PLUMB_ASSIGN_OR_RETURN(const std::vector<rt::RtValue> inputs, all_inputs(loaded, opt.inputs));
  const ir::Graph g = std::move(loaded.graph);

  progress.step("reading expected values");
  auto expected = read_expected(expected_path);
  if (!expected) return in_file(expected.status(), expected_path);

  // Which core value each expected value is.
  std::map<ir::ValueId, size_t> producer;
  for (size_t i = 0; i < g.body.nodes.size(); ++i)
    for (ir::ValueId v : g.body.nodes[i].outputs) producer.emplace(v, i);
  std::map<std::string, ir::ValueId> by_name;
  for (size_t i = 0; i < g.values.size(); ++i)
    if (!g.values[i].onnx_name.empty() && producer.count(static_cast<ir::ValueId>(i)))
      by_name.emplace(g.values[i].onnx_name, static_cast<ir::ValueId>(i));
  std::set<std::string> graph_inputs(g.input_names.begin(), g.input_names.end());

  CheckReport rep;
  rep.model = opt.model;
  rep.specialized = loaded.specialized;
  rep.nodes = onnx_nodes_of(g);
  rep.tolerance = opt.tol.use ? strfmt("rtol %g, atol %g", opt.tol.rtol, opt.tol.atol) : "auto";
  std::vector<Target> targets;
  std::set<ir::ValueId> seen;
  for (ExpectedValue& e : *expected) {
    ir::ValueId v = ir::kNoValue;
    if (e.output >= 0 && static_cast<size_t>(e.output) < g.body.results.size()) {
      v = g.body.results[e.output];
      if (e.name.empty()) e.name = g.output_names[e.output];
    } else if (auto it = by_name.find(e.name); it != by_name.end()) {
      v = it->second;
    }
    if (v == ir::kNoValue) {
      rep.skipped.push_back(
          e.name + (graph_inputs.count(e.name) ? " (a graph input)" : " (not a tensor of this model)"));
      continue;
    }
    if (!seen.insert(v).second) continue;
    auto ev = to_runtime(e.value, g.type_of(v));
    if (!ev) return in_file(ev.status(), e.source);
    e.value = onnx::DataValue{};  // the runtime copy is the one compared: keep one copy only
    const auto p = producer.find(v);
    targets.push_back({&e, v, p == producer.end() ? SIZE_MAX : p->second, std::move(*ev)});
  }
  std::stable_sort(targets.begin(), targets.end(),
                   [](const Target& a, const Target& b) { return a.producer < b.producer; });
  if (targets.empty()) {
    return in_file(invalid_input("no expected value names a tensor of the model (output_<k>.pb, "
                                 "<tensor>.pb, .npy, .npz or Polygraphy .json)"),
                   expected_path);
  }

  // The class a tensor is judged by: its node's, widened by the nodes since the previous compared
  // tensor (they have no expected value, so they run on computed inputs: e.g. the Div, Erf, Add and
  // Mul of an exported GELU before its compared output).
  std::vector<OnnxNodeInfo> judged(targets.size());
  for (size_t k = 0, prev = 0; k < targets.size(); ++k) {
    if (targets[k].producer == SIZE_MAX) continue;
    const size_t node = group_of(rep.nodes, targets[k].producer);
    judged[k] = rep.nodes[node];
    for (size_t i = prev; i < node; ++i) {
      judged[k].ulps = std::max(judged[k].ulps, rep.nodes[i].ulps);
      judged[k].reduction = std::max(judged[k].reduction, rep.nodes[i].reduction);
      judged[k].dot = judged[k].dot || rep.nodes[i].dot;
      judged[k].unknown_length = judged[k].unknown_length || rep.nodes[i].unknown_length;
    }
    prev = node + 1;
  }

  // Memory: the compared tensors are taken in chunks of about opt.chunk_bytes (what a run holds of
  // them: the native value plus the f64 precise, bounds and sensitivity values); each chunk repeats
  // the runs with only its tensors as extra graph results, so a model with more activations than
  // memory is still checkable (at the price of more runs). One chunk in the usual case.
  std::vector<std::pair<size_t, size_t>> chunks;
  {
    int64_t held = 0;
    size_t first = 0;
    for (size_t k = 0; k < targets.size(); ++k) {
      const rt::RtValue& e = targets[k].expected;
      const int64_t cost = e.is_tensor() ? e.tensor().nbytes() + 24 * e.tensor().numel() : 0;
      if (k > first && held + cost > opt.chunk_bytes) {
        chunks.emplace_back(first, k);
        first = k;
        held = 0;
      }
      held += cost;
    }
    chunks.emplace_back(first, targets.size());
  }
  auto chunk_label = [&](const char* what, size_t c) {
    return chunks.size() == 1 ? std::string(what) : strfmt("%s (chunk %zu/%zu)", what, c + 1, chunks.size());
  };
  auto values_of = [&](size_t c) {
    std::vector<ir::ValueId> values;
    for (size_t k = chunks[c].first; k < chunks[c].second; ++k) values.push_back(targets[k].value);
    return values;
  };
  const size_t base = g.body.results.size();
  std::string note;

  // Carried: the model end to end.
  std::vector<ir::ValueId> cut;
  std::vector<rt::RtValue> iso_inputs = inputs;
  for (size_t c = 0; c < chunks.size(); ++c) {
    const ir::Graph carried = with_results(g, values_of(c));
    std::string run_note;
    auto runs = run_all(carried, rep.nodes, inputs, {}, progress, chunk_label("model", c), &run_note);
    if (!runs) return in_file(runs.status(), opt.model);
    if (!run_note.empty() && note.find(run_note) == std::string::npos)
      note += (note.empty() ? "" : "; ") + run_note;
    progress.step("comparing");
    for (size_t k = chunks[c].first; k < chunks[c].second; ++k) {
      Target& t = targets[k];
      const size_t at = base + (k - chunks[c].first);
      const rt::RtValue& a = runs->native[at];
      TensorRow row;
      row.name = t.e->name;
      row.order = t.producer;
      row.type = ir::type_to_string(rt::type_of(a));
      if (t.producer != SIZE_MAX) row.node = static_cast<int>(group_of(rep.nodes, t.producer));
      row.carried = compare_value(a, t.expected, runs->at(at), row.node >= 0 ? &judged[k] : nullptr, opt.tol);
      // Isolated: intermediates with an expected value of the computed dtype and shape are fed forward.
      if (t.producer != SIZE_MAX && a.is_tensor() && t.expected.is_tensor() &&
          a.tensor().dtype == t.expected.tensor().dtype && a.tensor().shape == t.expected.tensor().shape) {
        cut.push_back(t.value);
        iso_inputs.push_back(t.expected);
        row.fed = true;
      }
      rep.rows.push_back(std::move(row));
    }
  }

  rep.isolated = opt.isolate && !cut.empty() && targets.size() > 1;
  for (size_t c = 0; rep.isolated && c < chunks.size(); ++c) {
    std::string iso_note;
    const ir::Graph iso_graph = isolated_graph(with_results(g, values_of(c)), cut, rep.nodes);
    auto iso =
        run_all(iso_graph, rep.nodes, iso_inputs, perturbation_sets(iso_graph, rep.nodes, inputs.size()),
                progress, chunk_label("isolated nodes", c), &iso_note);
    if (iso) {
      if (!iso_note.empty() && note.find(iso_note) == std::string::npos)
        note += (note.empty() ? "" : "; ") + ("isolated nodes: " + iso_note);
      progress.step("comparing");
      for (size_t k = chunks[c].first; k < chunks[c].second; ++k) {
        TensorRow& row = rep.rows[k];
        const size_t at = base + (k - chunks[c].first);
        row.has_local = true;
        row.local = compare_value(iso->native[at], targets[k].expected, iso->at(at),
                                  row.node >= 0 ? &judged[k] : nullptr, opt.tol);
      }
    } else {  // e.g. a node that is out of contract on the expected values: check end to end only
      rep.isolated = false;
      for (TensorRow& row : rep.rows) row.has_local = false;
      note += (note.empty() ? "" : "; ") +
              ("isolated run failed, checked end to end only: " + iso.status().to_string());
    }
  }
  rep.note = note;
  find_first_divergence(rep);
  return rep;
}

void find_first_divergence(CheckReport& rep) {
  rep.first = -1;
  rep.first_kind.clear();
  for (size_t k = 0; k < rep.rows.size() && rep.first < 0; ++k)
    if (rep.rows[k].has_local && !rep.rows[k].local.match)
      rep.first = static_cast<int>(k), rep.first_kind = "local";
  for (size_t k = 0; k < rep.rows.size() && rep.first < 0; ++k)
    if (rep.rows[k].failed()) rep.first = static_cast<int>(k), rep.first_kind = "carried";
  rep.verdict = rep.first >= 0 ? Verdict::mismatch : Verdict::match;
}

}  // namespace plumb::check
