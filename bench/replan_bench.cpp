// Google Benchmark: what planning for a new input shape costs (issue 13). A model exported with
// dynamic axes (tests/models/dynamic/<name>, made by tests/models/make_dynamic_models.py) is
// lowered once without input values (as `plumb convert` does) and run on `ref` at two input
// sizes in turn:
//   BM_SameShape/<name>       every run at the first size (the plan is made once);
//   BM_TwoShapesCached/<name> the sizes alternate, one plan kept per shape (the session default);
//   BM_TwoShapesReplan/<name> the sizes alternate with max_plans = 1: every run re-plans.
// ReplanCost = TwoShapesReplan - TwoShapesCached per run is the price of planning (make_plan,
// buffer table, compile) that the per-shape cache saves.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "frontends/onnx/model.h"
#include "lowering/onnx/driver.h"
#include "runtime/plan.h"
#include "runtime/ref_evaluator.h"
#include "runtime/session.h"

namespace plumb::rt {
namespace {

struct Case {
  std::string name;
  std::vector<std::string> sizes;  // data_<tag> folders
};

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases{
      {"gpt", {"b2s7", "b3s12"}}, {"fcn", {"2x3x20x28", "3x3x32x16"}}, {"shapes", {"n2l6", "n4l9"}}};
  return kCases;
}

std::string dir_of(const std::string& name) {
  return std::string(PLUMB_SOURCE_DIR) + "/tests/models/dynamic/" + name;
}

struct Loaded {
  std::unique_ptr<Session> session;
  std::vector<std::vector<Tensor>> feeds;  // per size
};

Expected<Loaded> load(const Case& c, int max_plans) {
  PLUMB_ASSIGN_OR_RETURN(onnx::OnnxModel m, onnx::load_model(dir_of(c.name) + "/model.onnx"));
  PLUMB_ASSIGN_OR_RETURN(ir::Graph g, lower::lower_model(m, rt::RefEvaluator()));
  SessionOptions o;
  o.max_plans = max_plans;
  Loaded l;
  PLUMB_ASSIGN_OR_RETURN(l.session, Session::create(std::move(g), o));
  for (const std::string& tag : c.sizes) {
    PLUMB_ASSIGN_OR_RETURN(std::vector<onnx::DataValue> vals,
                           onnx::read_test_data_set(dir_of(c.name) + "/data_" + tag, m.graph, false));
    std::vector<Tensor> feed;
    for (const onnx::DataValue& v : vals) {
      if (v.kind != onnx::DataValue::Kind::Tensor) return unsupported("replan_bench: tensor inputs only");
      PLUMB_ASSIGN_OR_RETURN(Tensor t, constant_tensor(v.tensor.to_constant()));
      feed.push_back(std::move(t));
    }
    l.feeds.push_back(std::move(feed));
  }
  return l;
}

Status run_size(Loaded& l, size_t k) {
  for (size_t i = 0; i < l.feeds[k].size(); ++i)
    PLUMB_RETURN_IF_ERROR(l.session->set_input(i, l.feeds[k][i]));
  return l.session->run();
}

void bench(benchmark::State& state, const Case& c, int max_plans, bool alternate) {
  Expected<Loaded> l = load(c, max_plans);
  if (!l) {
    state.SkipWithError(l.status().to_string().c_str());
    return;
  }
  size_t k = 0;
  for (auto _ : state) {
    Status st = run_size(*l, k);
    if (!st.is_ok()) {
      state.SkipWithError(st.to_string().c_str());
      return;
    }
    if (alternate) k = 1 - k;
  }
  state.counters["plans_made"] = static_cast<double>(l->session->plans_made());
}

int register_all() {
  for (const Case& c : cases()) {
    benchmark::RegisterBenchmark(("BM_SameShape/" + c.name).c_str(),
                                 [c](benchmark::State& s) { bench(s, c, 8, false); });
    benchmark::RegisterBenchmark(("BM_TwoShapesCached/" + c.name).c_str(),
                                 [c](benchmark::State& s) { bench(s, c, 8, true); });
    benchmark::RegisterBenchmark(("BM_TwoShapesReplan/" + c.name).c_str(),
                                 [c](benchmark::State& s) { bench(s, c, 1, true); });
  }
  return 0;
}
const int kRegistered = register_all();

}  // namespace
}  // namespace plumb::rt

BENCHMARK_MAIN();
