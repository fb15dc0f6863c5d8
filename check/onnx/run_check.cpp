// run_check (check/onnx/run_check.h): load, read the expected values, run the carried and the
// isolated graphs (native, precise, and the stochastic run sets of check/bound.h), compare, find
// the first divergence.
#include "check/onnx/run_check.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "check/compare.h"
#include "check/hints.h"
#include "check/onnx/diff_onnx.h"
#include "check/onnx/expected.h"
#include "check/onnx/frontend.h"
#include "check/onnx/values_io.h"
#include "ir/verify.h"
#include "runtime/session.h"

namespace plumb::check {

namespace {

// The progress callbacks of a request, as run_all reports to them: each step names its stage and,
// for a graph run, counts it, so that a caller can show how many of the expected runs are done.
class Progress {
 public:
  explicit Progress(const CheckRequest& r) : text_(r.progress), steps_(r.on_step) {}
  void set_total(int runs) { total_ = runs; }
  // A step that is not a graph run ("lowering", "comparing").
  void step(const std::string& stage) { report(stage, 0, 0, false); }
  // Graph run `k` (1-based) of `of` in `stage` (of = 0: a single run).
  void run(const std::string& stage, int k = 0, int of = 0) { report(stage, k, of, true); }
  // The executor's node counter for the graph run under way (empty when nobody listens).
  std::function<void(size_t, size_t)> node_counter() {
    if (!steps_) return {};
    return [this](size_t done, size_t total) {
      ProgressStep s = last_;
      s.node = done;
      s.nodes = total;
      steps_(s);
    };
  }

 private:
  void report(const std::string& stage, int k, int of, bool is_run) {
    if (text_) text_(of > 0 ? stage + strfmt(" %d/%d", k, of) : stage);
    last_ = ProgressStep{stage, k, of, done_, std::max(total_, done_ + (is_run ? 1 : 0))};
    if (steps_) steps_(last_);
    done_ += is_run;
  }
  const std::function<void(const std::string&)>& text_;
  const std::function<void(const ProgressStep&)>& steps_;
  int done_ = 0, total_ = 0;
  ProgressStep last_;
};

// Each graph run_all runs is verified once (ir::verify) before its first run; the sessions do not
// verify again.
// Every run charges the request's memory budget (CheckRequest::memory), and the outputs it
// returns stay charged while they are held.
struct RunEnv {
  int threads = 1;
  std::shared_ptr<rt::MemoryBudget> memory;
  // A budget's refusal stops the check (exit 2) where another failure of a precise or stochastic
  // run only makes the auto bound unavailable: the refusals counted before a run is compared
  // with those after it.
  int64_t refusals() const { return memory ? memory->refusals() : 0; }
};

// `status` (a run's failure, after a refusal of the budget) with the run named before its reason.
Status in_run(const Status& status, const std::string& run) {
  return Status(status.code(), run + ": " + status.message(), status.label(), status.place());
}

Expected<std::unique_ptr<rt::Session>> make_session(const ir::Graph& g, rt::NumericMode mode,
                                                    const RunEnv& env, Progress& progress,
                                                    const std::string& backend = "ref") {
  rt::SessionOptions o;
  o.mode = mode;
  o.backend = mode == rt::NumericMode::kNative ? backend : "ref";
  o.threads = env.threads;  // ref's results do not depend on it
  o.memory = env.memory;
  o.on_node = progress.node_counter();
  o.verify = false;  // verified by the caller (run_all)
  return rt::Session::create(g, o);
}

// Runs `s` on `inputs` (its outputs are then s.output(k), until its next run).
Status run_session(rt::Session& s, const std::vector<rt::RtValue>& inputs) {
  for (size_t k = 0; k < inputs.size() && k < s.num_inputs(); ++k)
    PLUMB_RETURN_IF_ERROR(s.set_input(k, inputs[k]));
  return s.run();
}

Expected<std::vector<rt::RtValue>> run_graph(const ir::Graph& g, rt::NumericMode mode,
                                             const std::vector<rt::RtValue>& inputs, const RunEnv& env,
                                             Progress& progress, const std::string& backend = "ref") {
  PLUMB_ASSIGN_OR_RETURN(std::unique_ptr<rt::Session> s, make_session(g, mode, env, progress, backend));
  PLUMB_RETURN_IF_ERROR(run_session(*s, inputs));
  return s->copy_outputs();
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
    if (k < own_sigma.size() && own_sigma[k].is_tensor()) b.own_sigma = &own_sigma[k];
    b.isolated = isolated;
    b.unavailable = unavailable;
    return b;
  }
};

// One stochastic run set: `samples` precise runs of the perturbed graph, (y - r)^2 summed per
// result. Returns the number of runs that succeeded; the first failure's reason goes to *why, and
// a failure that the memory budget refused to *refused (the runs stop there).
int stochastic_runs(const ir::Graph& g, const std::vector<OnnxNodeInfo>& nodes, NoiseOptions o, int samples,
                    const RunEnv& env, const std::vector<rt::RtValue>& inputs,
                    const std::vector<rt::RtValue>& precise, std::vector<rt::RtValue>& sumsq,
                    std::vector<rt::RtValue>* sigma, Progress& progress, const std::string& label,
                    std::string* why, Status* refused) {
  int done = 0;
  const uint64_t first_seed = o.seed;
  const size_t base = precise.size() - std::min(precise.size(), o.sigma_of.size());
  for (int k = 0; k < samples; ++k) {
    progress.run(label, k + 1, samples);
    o.seed = first_seed + static_cast<uint64_t>(k);
    if (k > 0) o.sigma_of.clear();
    auto sg = stochastic_graph(g, nodes, o);
    if (!sg) {
      if (why->empty()) *why = sg.status().to_string();
      return done;
    }
    const Status sv = ir::verify(sg->graph);  // made by check/bound.cpp: verified like every run graph
    const int64_t refusals = env.refusals();
    // The run's outputs are read in the session (no copy), but for the sigmas kept (the first run).
    const bool keep = k == 0 && sigma;
    std::unique_ptr<rt::Session> s;
    std::vector<rt::RtValue> kept;
    const Status q = [&]() -> Status {
      PLUMB_RETURN_IF_ERROR(sv);
      PLUMB_ASSIGN_OR_RETURN(s, make_session(sg->graph, rt::NumericMode::kPrecise, env, progress));
      PLUMB_RETURN_IF_ERROR(run_session(*s, inputs));
      if (keep) {
        PLUMB_ASSIGN_OR_RETURN(kept, s->copy_outputs());
      }
      return Status::ok();
    }();
    if (!q.is_ok() && env.refusals() > refusals) {
      *refused = in_run(q, label + strfmt(" %d/%d (f64)", k + 1, samples));
      return done;
    }
    if (!q.is_ok()) {
      if (why->empty()) *why = q.to_string();
      return done;
    }
    sumsq.resize(precise.size());
    for (size_t j = 0; j < precise.size() && j < s->num_outputs(); ++j)
      add_squared_deviation(keep ? kept[j] : s->output(j), precise[j], sumsq[j]);
    if (keep) {
      sigma->assign(precise.size(), rt::RtValue());
      for (size_t j = 0; j < sg->sigma_result.size(); ++j)
        if (sg->sigma_result[j] >= 0 && static_cast<size_t>(sg->sigma_result[j]) < kept.size())
          (*sigma)[base + j] = std::move(kept[sg->sigma_result[j]]);
    }
    ++done;
  }
  return done;
}

// `compared`: the values of the graph's last results (their own op's sigma is reported);
// `first_fed`: in an isolated graph, the first parameter that is a fed expected value (the number
// of parameters when none); `fed_var`: per fed value, its end-to-end noise variance per element.
Expected<Runs> run_all(const ir::Graph& g, const std::vector<OnnxNodeInfo>& nodes,
                       const std::vector<rt::RtValue>& inputs, size_t first_fed,
                       const std::vector<ir::ValueId>& compared, int samples, const RunEnv& env,
                       const std::vector<std::vector<double>>* fed_var, Progress& progress,
                       const std::string& label, std::string* note, const std::string& backend) {
  Runs r;
  PLUMB_RETURN_IF_ERROR(ir::verify(g));
  progress.run(label + ": native run");
  int64_t refusals = env.refusals();
  auto n = run_graph(g, rt::NumericMode::kNative, inputs, env, progress, backend);
  if (!n) return env.refusals() > refusals ? in_run(n.status(), label + ": native run") : n.status();
  r.native = std::move(*n);
  progress.run(label + ": precise (f64) run");
  refusals = env.refusals();
  auto p = run_graph(g, rt::NumericMode::kPrecise, inputs, env, progress);
  if (!p && env.refusals() > refusals) return in_run(p.status(), label + ": precise (f64) run");
  if (!p) {
    r.unavailable = "precise run failed: " + p.status().to_string();
    *note = r.unavailable + ": auto bound unavailable";
    return r;
  }
  r.precise = std::move(*p);
  r.isolated = first_fed < g.body.params.size();
  std::string why;
  Status refused;
  NoiseOptions ops;
  ops.seed = 1;
  // The native run's backend declares where it may exceed the core ops' error (spec/numerics.md):
  // the noise model is widened there by exactly that (the backend's native run above succeeded,
  // so it can be made).
  if (backend != "ref") {
    auto b = rt::make_backend(backend);
    if (b) ops.declared = (*b)->declared_error(g, rt::NumericMode::kNative);
  }
  if (!r.isolated) ops.sigma_of = compared;
  r.ops_runs = stochastic_runs(g, nodes, ops, samples, env, inputs, r.precise, r.ops,
                               r.isolated ? nullptr : &r.own_sigma, progress, label + ": stochastic runs",
                               &why, &refused);
  if (!refused.is_ok()) return refused;
  if (r.isolated) {
    // The fed expected values moved by their own noise (check/bound.h "inputs"), on the host. One
    // session for these runs (the same graph on other inputs): created, planned and its constants
    // widened once.
    std::unique_ptr<rt::Session> precise;
    for (int k = 0; k < samples; ++k) {
      progress.run(label + ": expected-input noise runs", k + 1, samples);
      std::vector<rt::RtValue> moved = inputs;
      for (size_t j = first_fed; j < inputs.size(); ++j) {
        const size_t f = j - first_fed;
        moved[j] =
            perturbed_input(inputs[j], fed_var && f < fed_var->size() ? (*fed_var)[f] : std::vector<double>{},
                            static_cast<uint64_t>(k) * 1000003 + j + 1);
      }
      const int64_t before = env.refusals();
      const Status q = [&]() -> Status {
        if (!precise) {
          PLUMB_ASSIGN_OR_RETURN(precise, make_session(g, rt::NumericMode::kPrecise, env, progress));
        }
        return run_session(*precise, moved);
      }();
      if (!q.is_ok() && env.refusals() > before)
        return in_run(q, label + strfmt(": expected-input noise run %d/%d (f64)", k + 1, samples));
      if (!q.is_ok()) {
        if (why.empty()) why = q.to_string();
        break;
      }
      r.inputs.resize(r.precise.size());
      for (size_t j = 0; j < r.precise.size() && j < precise->num_outputs(); ++j)
        add_squared_deviation(precise->output(j), r.precise[j], r.inputs[j]);
      ++r.inputs_runs;
    }
  }
  const int got = r.isolated ? std::min(r.ops_runs, r.inputs_runs) : r.ops_runs;
  if (got < samples) {
    r.unavailable = strfmt("%d of %d stochastic runs", got, samples) + (why.empty() ? "" : ": " + why);
    *note = "stochastic runs failed (" + r.unavailable + ")";
  }
  if (got < 2) r.ops_runs = r.inputs_runs = 0;  // too few samples to estimate a spread
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
  Progress progress(opt);
  const std::string expected_path = !opt.against.empty()   ? opt.against
                                    : opt.expected.empty() ? opt.inputs.data_dir
                                                           : opt.expected;
  if (expected_path.empty()) return invalid_input("no expected values given (an expected folder or file)");
  if (!opt.against.empty() && !opt.expected.empty())
    return invalid_input("give either expected values or a reference model (--against), not both");

  progress.step("lowering " + opt.model);
  PLUMB_ASSIGN_OR_RETURN(LoadedModel loaded, load_model(opt.model, opt.inputs, onnx_frontend()));
  PLUMB_ASSIGN_OR_RETURN(const std::vector<rt::RtValue> inputs, all_inputs(loaded, opt.inputs));
  const ir::Graph g = std::move(loaded.graph);

  progress.step(opt.against.empty() ? "reading expected values" : "running the reference " + opt.against);
  std::vector<std::string> ignored;
  auto expected = opt.against.empty() ? read_expected(expected_path, &ignored)
                                      : reference_values(opt.against, opt.inputs, g, opt.threads, opt.memory);
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
  rep.backend = opt.backend;
  rep.skipped = ignored;
  std::vector<Target> targets;
  std::map<ir::ValueId, size_t> target_of;  // core value -> its entry in targets
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
    auto ev = to_runtime(e.value, g.type_of(v));
    if (!ev) return in_file(ev.status(), e.source);
    e.value = onnx::DataValue{};  // the runtime copy is the one compared: keep one copy only
    if (auto dup = target_of.find(v); dup != target_of.end()) {
      // Two files for one tensor: the same values are one expectation; different ones would make
      // the verdict depend on which file was read, so neither is chosen.
      const Target& first = targets[dup->second];
      if (!compare(first.expected, *ev, Tolerance{0.0, 0.0}).match)
        return invalid_input("two different expected values for tensor '" + e.name + "': " + first.e->source +
                             " and " + e.source + " (keep one)");
      continue;
    }
    target_of.emplace(v, targets.size());
    const auto p = producer.find(v);
    targets.push_back({&e, v, p == producer.end() ? SIZE_MAX : p->second, std::move(*ev)});
  }
  std::stable_sort(targets.begin(), targets.end(),
                   [](const Target& a, const Target& b) { return a.producer < b.producer; });
  if (targets.empty() && !opt.against.empty())
    return in_file(
        invalid_input("no computed tensor of " + opt.model + " matches one of this reference model"),
        opt.against);
  if (targets.empty()) {
    std::string seen;  // what was there instead, so the user sees the names that did not match
    for (size_t k = 0; k < rep.skipped.size() && k < 3; ++k) seen += (k ? "; " : "") + rep.skipped[k];
    if (rep.skipped.size() > 3) seen += strfmt("; and %zu more", rep.skipped.size() - 3);
    return in_file(invalid_input("no expected value names a tensor of the model (output_<k>.pb, "
                                 "<tensor>.pb, .npy, .npz or Polygraphy .json)" +
                                 (seen.empty() ? std::string() : ": " + seen)),
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
  // them: the native value, the f64 precise value, two sums of squared deviations and a sigma); each chunk
  // repeats the runs with only its tensors as extra graph results, so a model with more activations than
  // memory is still checkable (at the price of more runs). One chunk in the usual case.
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
  {  // the runs to come: native, precise and the stochastic ones per graph (check/bound.h)
    const int per_chunk = 2 + opt.samples + (opt.isolate && targets.size() > 1 ? 2 + 2 * opt.samples : 0);
    progress.set_total(static_cast<int>(chunks.size()) * per_chunk);
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
  const RunEnv env{opt.threads, opt.memory};

  // Carried: the model end to end.
  std::vector<ir::ValueId> cut;
  std::vector<rt::RtValue> iso_inputs = inputs;
  std::vector<std::vector<double>> fed_var;           // per fed value: its end-to-end noise variance
  std::vector<RowEvidence> evidence(targets.size());  // for the hints (check/hints.h)
  for (size_t c = 0; c < chunks.size(); ++c) {
    const ir::Graph carried = with_results(g, values_of(c));
    std::string run_note;
    auto runs = run_all(carried, rep.nodes, inputs, carried.body.params.size(), values_of(c), opt.samples,
                        env, nullptr, progress, chunk_label("model", c), &run_note, opt.backend);
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
      row.value = t.value;
      row.order = t.producer;
      row.type = ir::type_to_string(rt::type_of(a));
      if (t.producer != SIZE_MAX) row.node = static_cast<int>(group_of(rep.nodes, t.producer));
      row.carried = compare_value(a, t.expected, runs->at(at), row.node >= 0 ? &judged[k] : nullptr, opt.tol);
      evidence[k] = RowEvidence{&t.expected, count_negative(a)};
      // Isolated: intermediates with an expected value of the computed dtype and shape are fed forward.
      if (t.producer != SIZE_MAX && a.is_tensor() && t.expected.is_tensor() &&
          a.tensor().dtype == t.expected.tensor().dtype && a.tensor().shape == t.expected.tensor().shape) {
        cut.push_back(t.value);
        iso_inputs.push_back(t.expected);
        fed_var.push_back(noise_variance(runs->at(at).ops, a.tensor().numel()));
        row.fed = true;
      }
      rep.rows.push_back(std::move(row));
    }
  }

  rep.isolated = opt.isolate && !cut.empty() && targets.size() > 1;
  for (size_t c = 0; rep.isolated && c < chunks.size(); ++c) {
    std::string iso_note;
    const ir::Graph iso_graph = isolated_graph(with_results(g, values_of(c)), cut, rep.nodes);
    const int64_t refusals = env.refusals();
    auto iso = run_all(iso_graph, rep.nodes, iso_inputs, inputs.size(), values_of(c), opt.samples, env,
                       &fed_var, progress, chunk_label("isolated nodes", c), &iso_note, opt.backend);
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
    } else if (env.refusals() > refusals) {
      return in_file(iso.status(), opt.model);
    } else {  // e.g. a node that is out of contract on the expected values: check end to end only
      rep.isolated = false;
      for (TensorRow& row : rep.rows) row.has_local = false;
      note += (note.empty() ? "" : "; ") +
              ("isolated run failed, checked end to end only: " + iso.status().to_string());
    }
  }
  rep.note = note;
  find_first_divergence(rep);
  if (rep.first >= 0) {
    // The tensors known to agree where the first differing one was computed: those fed forward
    // (their expected values were its nodes' inputs), or, judged end to end, those that matched.
    std::set<ir::ValueId> known;
    for (const TensorRow& row : rep.rows)
      if (rep.first_kind == "local" ? row.fed : row.carried.match) known.insert(row.value);
    rep.span = divergence_span(g, rep.nodes, rep.rows[rep.first].value, known);
    rep.hints = expected_value_hints(g, rep, evidence);
  }
  return rep;
}

void find_first_divergence(CheckReport& rep) {
  rep.first = -1;
  rep.first_kind.clear();
  for (size_t k = 0; k < rep.rows.size() && rep.first < 0; ++k)
    if (rep.rows[k].has_local && rep.rows[k].failed())
      rep.first = static_cast<int>(k), rep.first_kind = "local";
  for (size_t k = 0; k < rep.rows.size() && rep.first < 0; ++k)
    if (rep.rows[k].failed()) rep.first = static_cast<int>(k), rep.first_kind = "carried";
  size_t undecided = 0;
  for (const TensorRow& row : rep.rows) undecided += row.inconclusive();
  rep.verdict = rep.first >= 0 ? Verdict::mismatch : undecided > 0 ? Verdict::inconclusive : Verdict::match;
  rep.inconclusive_reason.clear();
  if (rep.verdict == Verdict::inconclusive)
    rep.inconclusive_reason = strfmt(
        "%zu of %zu tensors cannot be decided by the auto bound (reasons above); no "
        "mismatch found",
        undecided, rep.rows.size());
}

}  // namespace plumb::check
