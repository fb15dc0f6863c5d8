// plumb check MODEL --data DIR [--expected PATH] [--tolerance auto | --rtol R --atol A]
//                   [--report FILE.json|FILE.html ...] [--no-isolate] [--chunk-mb N] [--samples K]
// The converter-validation workflow (DESIGN.md §7, issue 6). Runs MODEL on the reference runtime
// with DIR's input_<k>.pb and compares with the expected values (tools/onnx/check_expected.h:
// output_<k>.pb, any tensor named by ONNX tensor name in .pb/.npy/.npz files or Polygraphy JSON).
// - Isolated per-node checking (default when intermediates are given): each node is also evaluated
//   on the expected values of its inputs, so local error is told apart from error carried forward
//   (tools/onnx/check_eval.h). The first divergence is the first node (topological order) whose
//   outputs differ on its own expected inputs; without intermediates, the first differing tensor.
// - Tolerance from data (`--tolerance auto`, the default): a precise (f64) run and K stochastic
//   runs per run set (`--samples K`, check_bound.h) estimate each tensor's noise; `--rtol/--atol`
//   give the fixed |a - e| <= atol + rtol |e| instead (the auto bound still classifies noise vs
//   semantic).
// Prints a table, `first divergence: node '<ONNX node name>' (<OpType>-<opset>)` when one is
// found, and exits 0 (match), 1 (mismatch), 2 (error: one `plumb: ...` line on stderr) or 3
// (inconclusive: the noise estimate cannot decide, with the reason).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <type_traits>
#include <utility>

#include "frontends/onnx/model.h"
#include "frontends/onnx/tensor_proto.h"
#include "ir/load.h"
#include "lowering/onnx/driver.h"
#include "runtime/session.h"
#include "tools/commands.h"
#include "tools/onnx/check_eval.h"
#include "tools/onnx/check_expected.h"
#include "tools/onnx/check_report.h"
#include "tools/onnx/values_io.h"

namespace plumb::cli {

namespace {

bool parse_double(const std::string& s, double* v) {
  char* end = nullptr;
  *v = std::strtod(s.c_str(), &end);
  return !s.empty() && *end == '\0' && *v >= 0;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A one-line progress indicator on a terminal only (stderr), erased when done.
class Progress {
 public:
  Progress() : tty_(::isatty(2) != 0) {}
  ~Progress() { done(); }
  void step(const std::string& what) {
    if (!tty_) return;
    std::fprintf(stderr, "\r\033[Kplumb check: %s", what.c_str());
    std::fflush(stderr);
    shown_ = true;
  }
  void done() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
    shown_ = false;
  }

 private:
  bool tty_;
  bool shown_ = false;
};

struct Options {
  std::string model, data, expected;
  FixedTolerance tol;
  bool auto_tol_requested = false;
  bool isolate = true;
  int64_t chunk_bytes = int64_t{1} << 30;  // --chunk-mb: compared tensors held per run
  int samples = kDefaultSamples;           // --samples: stochastic runs per run set
  std::vector<std::string> reports;
};

Expected<std::vector<rt::RtValue>> run_graph(const ir::Graph& g, rt::NumericMode mode,
                                             const std::vector<rt::RtValue>& inputs) {
  rt::SessionOptions o;
  o.mode = mode;
  PLUMB_ASSIGN_OR_RETURN(std::unique_ptr<rt::Session> s, rt::Session::create(g, o));
  for (size_t k = 0; k < inputs.size() && k < s->num_inputs(); ++k)
    PLUMB_RETURN_IF_ERROR(s->set_input(k, inputs[k]));
  PLUMB_RETURN_IF_ERROR(s->run());
  return s->outputs();
}

// The runs of one graph: native, and for the auto bound precise and the stochastic run sets
// (check_bound.h; empty when they could not run: the auto bound is then unavailable and a
// differing float tensor is inconclusive).
struct Runs {
  std::vector<rt::RtValue> native, precise;
  std::vector<rt::RtValue> ops, inputs;  // per result: sum over the runs of (y - r)^2
  std::vector<rt::RtValue> own_sigma;    // per result (the compared ones): its own op's sigma
  int ops_runs = 0, inputs_runs = 0;
  bool isolated = false;
  std::string unavailable;
  BoundInputs at(size_t k) const {
    BoundInputs b;
    if (k < precise.size()) b.precise = &precise[k];
    if (k < ops.size()) b.ops = NoiseSamples{&ops[k], ops_runs};
    if (k < inputs.size()) b.inputs = NoiseSamples{&inputs[k], inputs_runs};
    if (k < own_sigma.size() && own_sigma[k].is_tensor() && own_sigma[k].tensor().data) b.own_sigma = &own_sigma[k];
    b.isolated = isolated;
    b.unavailable = unavailable;
    return b;
  }
};

// One stochastic run set: `samples` precise runs of the perturbed graph, (y - r)^2 summed per
// result. Returns the number of runs that succeeded; the first failure's reason goes to *why.
int stochastic_runs(const ir::Graph& g, const std::vector<OnnxNodeInfo>& nodes, NoiseOptions o, int samples,
                    const std::vector<rt::RtValue>& inputs, const std::vector<rt::RtValue>& precise,
                    std::vector<rt::RtValue>& sumsq, std::vector<rt::RtValue>* sigma, Progress& progress,
                    const std::string& label, std::string* why) {
  int done = 0;
  const uint64_t first_seed = o.seed;
  const size_t base = precise.size() - std::min(precise.size(), o.sigma_of.size());
  for (int k = 0; k < samples; ++k) {
    progress.step(label + strfmt(" %d/%d", k + 1, samples));
    o.seed = first_seed + static_cast<uint64_t>(k);
    if (k > 0) o.sigma_of.clear();
    auto sg = stochastic_graph(g, nodes, o);
    if (!sg) {
      if (why->empty()) *why = sg.status().to_string();
      return done;
    }
    auto q = run_graph(sg->graph, rt::NumericMode::kPrecise, inputs);
    if (!q) {
      if (why->empty()) *why = q.status().to_string();
      return done;
    }
    sumsq.resize(precise.size());
    for (size_t j = 0; j < precise.size() && j < q->size(); ++j)
      add_squared_deviation((*q)[j], precise[j], sumsq[j]);
    if (k == 0 && sigma) {
      sigma->assign(precise.size(), rt::RtValue());
      for (size_t j = 0; j < sg->sigma_result.size(); ++j)
        if (sg->sigma_result[j] >= 0 && static_cast<size_t>(sg->sigma_result[j]) < q->size())
          (*sigma)[base + j] = std::move((*q)[sg->sigma_result[j]]);
    }
    ++done;
  }
  return done;
}

// `compared`: the values of the graph's last results (their own op's sigma is reported);
// `first_fed`: in an isolated graph, the first parameter that is a fed expected value (the number
// of parameters when none).
Expected<Runs> run_all(const ir::Graph& g, const std::vector<OnnxNodeInfo>& nodes,
                       const std::vector<rt::RtValue>& inputs, size_t first_fed,
                       const std::vector<ir::ValueId>& compared, int samples, Progress& progress,
                       const std::string& label, std::string* note) {
  Runs r;
  progress.step(label + ": native run");
  PLUMB_ASSIGN_OR_RETURN(r.native, run_graph(g, rt::NumericMode::kNative, inputs));
  progress.step(label + ": precise (f64) run");
  auto p = run_graph(g, rt::NumericMode::kPrecise, inputs);
  if (!p) {
    r.unavailable = "precise run failed: " + p.status().to_string();
    *note = r.unavailable + ": auto bound unavailable";
    return r;
  }
  r.precise = std::move(*p);
  r.isolated = first_fed < g.body.params.size();
  std::string why;
  NoiseOptions ops;
  ops.seed = 1;
  if (!r.isolated) ops.sigma_of = compared;
  r.ops_runs =
      stochastic_runs(g, nodes, ops, samples, inputs, r.precise, r.ops, r.isolated ? nullptr : &r.own_sigma,
                      progress, label + ": stochastic run", &why);
  if (r.isolated) {
    NoiseOptions fed;
    fed.seed = 1000003;
    fed.ops = false;
    for (size_t k = first_fed; k < g.body.params.size(); ++k) fed.rounded_params.push_back(k);
    r.inputs_runs = stochastic_runs(g, nodes, fed, samples, inputs, r.precise, r.inputs, nullptr, progress,
                                    label + ": expected-input rounding run", &why);
  }
  const int got = r.isolated ? std::min(r.ops_runs, r.inputs_runs) : r.ops_runs;
  if (got < samples) {
    r.unavailable = strfmt("%d of %d stochastic runs", got, samples) + (why.empty() ? "" : ": " + why);
    *note = "stochastic runs failed (" + r.unavailable + ")";
  }
  if (got < 2) r.ops_runs = r.inputs_runs = 0;  // too few samples to estimate a spread
  return r;
}

// Offers a graph input's value to the lowering (LowerOptions::input_values: rules that need it as a
// build-time constant specialize on it). Compiles to nothing with a driver that lacks the field.
template <typename O, typename = void>
struct HasInputValues : std::false_type {};
template <typename O>
struct HasInputValues<O, std::void_t<decltype(std::declval<O&>().input_values)>> : std::true_type {};
template <typename O>
void offer_input_value(O& options, const std::string& name, const onnx::Tensor& t) {
  if constexpr (HasInputValues<O>::value) options.input_values[name] = t;
}

Expected<ir::Graph> load_model_with_inputs(const Options& opt, std::vector<onnx::DataValue>* inputs) {
  const bool is_onnx = ends_with(opt.model, ".onnx");
  if (!is_onnx) {
    PLUMB_ASSIGN_OR_RETURN(ir::Graph g, ir::load_file(opt.model));
    for (size_t k = 0; k < g.body.params.size(); ++k) {
      const std::string f = opt.data + "/input_" + std::to_string(k) + ".pb";
      PLUMB_ASSIGN_OR_RETURN(onnx::DataValue dv,
                             onnx::read_data_file(f, onnx::data_kind_of(g.type_of(g.body.params[k]))));
      inputs->push_back(std::move(dv));
    }
    return g;
  }
  PLUMB_ASSIGN_OR_RETURN(onnx::OnnxModel model, onnx::load_model(opt.model));
  lower::LowerOptions lo;
  const auto real = model.graph.real_inputs();
  for (size_t k = 0; k < real.size(); ++k) {
    const std::string f = opt.data + "/input_" + std::to_string(k) + ".pb";
    PLUMB_ASSIGN_OR_RETURN(onnx::DataValue dv, onnx::read_data_file(f));
    if (dv.kind == onnx::DataValue::Kind::Tensor) offer_input_value(lo, real[k]->name, dv.tensor);
    inputs->push_back(std::move(dv));
  }
  return lower::lower_model(model, lo);
}

int parse_args(const Args& args, Options& opt) {
  bool fixed = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string { return i + 1 < args.size() ? args[++i] : std::string(); };
    if (a == "--data") {
      opt.data = value();
    } else if (a == "--expected") {
      opt.expected = value();
    } else if (a == "--rtol") {
      if (!parse_double(value(), &opt.tol.rtol))
        return report_error("check", invalid_input("--rtol needs a number >= 0"));
      fixed = true;
    } else if (a == "--atol") {
      if (!parse_double(value(), &opt.tol.atol))
        return report_error("check", invalid_input("--atol needs a number >= 0"));
      fixed = true;
    } else if (a == "--tolerance") {
      if (value() != "auto")
        return report_error("check", invalid_input("--tolerance takes 'auto' (or use --rtol/--atol)"));
      opt.auto_tol_requested = true;
    } else if (a == "--report") {
      const std::string f = value();
      if (!ends_with(f, ".json") && !ends_with(f, ".html"))
        return report_error("check", invalid_input("--report takes a FILE.json or FILE.html"));
      opt.reports.push_back(f);
    } else if (a == "--no-isolate") {
      opt.isolate = false;
    } else if (a == "--chunk-mb") {
      double mb = 0;
      if (!parse_double(value(), &mb) || mb > 1e9)
        return report_error("check", invalid_input("--chunk-mb needs a number of megabytes >= 0"));
      opt.chunk_bytes = static_cast<int64_t>(mb * 1e6);
    } else if (a == "--samples") {
      double k = 0;
      if (!parse_double(value(), &k) || k < 2 || k > 1000 || k != std::floor(k))
        return report_error("check", invalid_input("--samples needs a whole number of runs, 2 to 1000"));
      opt.samples = static_cast<int>(k);
    } else if (opt.model.empty() && (a.empty() || a[0] != '-')) {
      opt.model = a;
    } else {
      return report_error("check", invalid_input("unexpected argument '" + a + "'"));
    }
  }
  if (opt.model.empty() || opt.data.empty())
    return report_error(
        "check",
        invalid_input("usage: plumb check MODEL --data DIR [--expected PATH] "
                      "[--tolerance auto | --rtol R --atol A] [--report FILE.json|.html] [--no-isolate] "
                      "[--chunk-mb N] [--samples K]"));
  if (fixed && opt.auto_tol_requested)
    return report_error("check", invalid_input("--tolerance auto and --rtol/--atol exclude each other"));
  opt.tol.use = fixed;
  if (opt.expected.empty()) opt.expected = opt.data;
  return -1;
}

struct Target {
  ExpectedValue* e;
  ir::ValueId value;
  size_t producer;  // top-level core node index, SIZE_MAX when none (a graph input)
  rt::RtValue expected;
};

}  // namespace

int cmd_check(const Args& args) {
  Options opt;
  if (int rc = parse_args(args, opt); rc >= 0) return rc;
  Progress progress;

  progress.step("lowering " + opt.model);
  std::vector<onnx::DataValue> input_data;
  auto graph = load_model_with_inputs(opt, &input_data);
  if (!graph) return report_error(opt.model, graph.status());
  const ir::Graph g = std::move(*graph);
  std::vector<rt::RtValue> inputs;
  for (size_t k = 0; k < g.body.params.size(); ++k) {
    const std::string f = opt.data + "/input_" + std::to_string(k) + ".pb";
    if (k >= input_data.size()) return report_error(f, invalid_input("missing input " + std::to_string(k)));
    auto v = to_runtime(input_data[k], g.type_of(g.body.params[k]));
    if (!v) return report_error(f, v.status());
    inputs.push_back(std::move(*v));
  }

  progress.step("reading expected values");
  auto expected = read_expected(opt.expected);
  if (!expected) return report_error(opt.expected, expected.status());

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
    if (!ev) return report_error(e.source, ev.status());
    e.value = onnx::DataValue{};  // the runtime copy is the one compared: keep one copy only
    const auto p = producer.find(v);
    targets.push_back({&e, v, p == producer.end() ? SIZE_MAX : p->second, std::move(*ev)});
  }
  std::stable_sort(targets.begin(), targets.end(),
                   [](const Target& a, const Target& b) { return a.producer < b.producer; });
  if (targets.empty()) {
    progress.done();
    return report_error(opt.expected,
                        invalid_input("no expected value names a tensor of the model (output_<k>.pb, "
                                      "<tensor>.pb, .npy, .npz or Polygraphy .json)"));
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
  // them: the native value plus the f64 precise value, two sums of squared deviations and a sigma); each
  // chunk repeats the runs with only its tensors as extra graph results, so a model with more activations
  // than memory is still checkable (at the price of more runs). One chunk in the usual case.
  std::vector<std::pair<size_t, size_t>> chunks;
  {
    int64_t held = 0;
    size_t first = 0;
    for (size_t k = 0; k < targets.size(); ++k) {
      const rt::RtValue& e = targets[k].expected;
      const int64_t cost = e.is_tensor() ? e.tensor().nbytes() + 32 * e.tensor().numel() : 0;
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
    auto runs = run_all(carried, rep.nodes, inputs, carried.body.params.size(), values_of(c), opt.samples,
                        progress, chunk_label("model", c), &run_note);
    if (!runs) {
      progress.done();
      return report_error(opt.model, runs.status());
    }
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
    auto iso = run_all(iso_graph, rep.nodes, iso_inputs, inputs.size(), values_of(c), opt.samples, progress,
                       chunk_label("isolated nodes", c), &iso_note);
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
        // The end-to-end row's terms: the node's local noise (measured on its own inputs here) and
        // what the rest of the graph carries in (the end-to-end noise beyond it).
        if (row.local.term_local >= 0 && row.carried.have_bounds) {
          const double loc = row.local.term_local, tot = row.carried.sigma_rms;
          row.carried.term_local = loc;
          row.carried.term_carried = std::sqrt(std::max(0.0, tot * tot - loc * loc));
        }
      }
    } else {  // e.g. a node that is out of contract on the expected values: check end to end only
      rep.isolated = false;
      for (TensorRow& row : rep.rows) row.has_local = false;
      note += (note.empty() ? "" : "; ") +
              ("isolated run failed, checked end to end only: " + iso.status().to_string());
    }
  }
  for (size_t k = 0; k < rep.rows.size() && rep.first < 0; ++k)
    if (rep.rows[k].has_local && rep.rows[k].failed())
      rep.first = static_cast<int>(k), rep.first_kind = "local";
  for (size_t k = 0; k < rep.rows.size() && rep.first < 0; ++k)
    if (rep.rows[k].failed()) rep.first = static_cast<int>(k), rep.first_kind = "carried";
  progress.done();

  if (!note.empty()) std::printf("note: %s\n", note.c_str());
  print_report(rep, stdout);
  for (const std::string& f : opt.reports) {
    std::ofstream out(f, std::ios::binary);
    out << (ends_with(f, ".json") ? report_json(rep) : report_html(rep));
    if (!out) return report_error(f, invalid_input("cannot write the report"));
  }
  return rep.first >= 0 ? 1 : rep.inconclusive() ? 3 : 0;
}

}  // namespace plumb::cli
