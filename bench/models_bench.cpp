// Google Benchmark: whole-model latency on `ref` (batch as exported, one thread), and as
// BM_baseline_model_* on the "baseline" backend (tests/ref_baseline/: every top-level node whose
// op has a baseline kernel, baseline_kernels.h, on ref's kernels before issue 17, the rest on ref:
// the same bits): before and after in one run. Each model is loaded, lowered and planned once, outside the
// timed loop (the first, untimed run plans it); the loop times Session::run alone.
//
// Models: tests/models/{cnn,encoder,lstm} (model.onnx with data/input_<k>.pb) always; and, when
// the environment variable PLUMB_BENCH_MODELS names the output folder of
// /work/shared/bench-models/make_models.py, its resnet18_224, mobilenet_v2_224 and bert4_seq128
// (<name>/model.onnx with <name>/test_data_set_0/input_<k>.pb). A model that is absent is not
// registered (a note on stderr says so); one that fails to load or run reports the error.
//
// Counters: max_abs_err, the largest |output - expected| over the f32 outputs of the last run
// (a sanity check that the timed run computes the model), and peak_rss_MB, the process's peak
// resident set after the runs (run one model per process, --benchmark_filter, for its own peak).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <sys/stat.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "frontends/onnx/model.h"
#include "lowering/onnx/driver.h"
#include "runtime/plan.h"
#include "runtime/session.h"
#if PLUMB_HAVE_REF_BASELINE
#include "runtime/ref_evaluator.h"
#include "tests/ref_baseline/baseline_backend.h"
#endif

namespace plumb::rt {
namespace {

struct ModelFiles {
  std::string name, model, data_dir;
};

struct Loaded {
  std::unique_ptr<Session> session;
  std::vector<Tensor> expected;
};

bool exists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

Expected<std::vector<Tensor>> read_tensors(const std::string& dir, const onnx::OnnxGraph& g, bool outputs) {
  PLUMB_ASSIGN_OR_RETURN(std::vector<onnx::DataValue> vals, onnx::read_test_data_set(dir, g, outputs));
  std::vector<Tensor> out;
  for (const onnx::DataValue& v : vals) {
    if (v.kind != onnx::DataValue::Kind::Tensor)
      return unsupported("models_bench: " + dir + ": only tensor inputs and outputs are supported");
    PLUMB_ASSIGN_OR_RETURN(Tensor t, constant_tensor(v.tensor.to_constant()));
    out.push_back(std::move(t));
  }
  return out;
}

// Loads, lowers, binds the inputs and runs once (planning happens on that first run).
Expected<Loaded> load(const ModelFiles& f, const SessionOptions& options) {
  PLUMB_ASSIGN_OR_RETURN(onnx::OnnxModel m, onnx::load_model(f.model));
  PLUMB_ASSIGN_OR_RETURN(std::vector<Tensor> inputs, read_tensors(f.data_dir, m.graph, false));
  Loaded l;
  PLUMB_ASSIGN_OR_RETURN(l.expected, read_tensors(f.data_dir, m.graph, true));
  PLUMB_ASSIGN_OR_RETURN(ir::Graph g, lower::lower_model(m, rt::RefEvaluator()));
  PLUMB_ASSIGN_OR_RETURN(l.session, Session::create(std::move(g), options));
  for (size_t k = 0; k < inputs.size(); ++k) {
    Status st = l.session->set_input(k, std::move(inputs[k]));
    if (!st.is_ok()) return st;
  }
  Status st = l.session->run();
  if (!st.is_ok()) return st;
  return l;
}

double max_abs_err(const Loaded& l) {
  double worst = 0;
  for (size_t k = 0; k < l.expected.size() && k < l.session->num_outputs(); ++k) {
    const Tensor& got = l.session->output(k).tensor();
    const Tensor& want = l.expected[k];
    if (got.dtype != ir::DType::F32 || want.dtype != ir::DType::F32 || got.numel() != want.numel()) continue;
    for (int64_t i = 0; i < got.numel(); ++i)
      worst = std::max(worst, std::fabs(static_cast<double>(got.as<float>()[i]) - want.as<float>()[i]));
  }
  return worst;
}

double peak_rss_mb() {
  struct rusage ru;
  if (::getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux reports KiB
}

// Loads on the first call (Google Benchmark calls a benchmark several times while it settles the
// iteration count), so that a filtered run loads only its own model.
void run_model(benchmark::State& state, const ModelFiles& f, const SessionOptions& options,
               std::shared_ptr<Expected<Loaded>>& cache) {
  if (!cache) cache = std::make_shared<Expected<Loaded>>(load(f, options));
  if (!cache->has_value()) {
    state.SkipWithError(cache->status().to_string().c_str());
    return;
  }
  Session& s = *(*cache)->session;
  for (auto _ : state) {
    Status st = s.run();
    if (!st.is_ok()) {
      state.SkipWithError(st.to_string().c_str());
      return;
    }
  }
  state.counters["max_abs_err"] = max_abs_err(**cache);
  state.counters["peak_rss_MB"] = peak_rss_mb();
}

std::vector<ModelFiles> model_list() {
  std::vector<ModelFiles> list;
  const std::string src = PLUMB_SOURCE_DIR "/tests/models/";
  for (const char* name : {"cnn", "encoder", "lstm"})
    list.push_back({name, src + name + "/model.onnx", src + name + "/data"});
  const char* dir = std::getenv("PLUMB_BENCH_MODELS");
  if (dir == nullptr || *dir == '\0') {
    std::fprintf(stderr, "PLUMB_BENCH_MODELS not set: resnet18, mobilenet_v2 and bert4 skipped\n");
    return list;
  }
  for (const char* name : {"resnet18_224", "mobilenet_v2_224", "bert4_seq128"}) {
    const std::string d = std::string(dir) + "/" + name;
    if (!exists(d + "/model.onnx")) {
      std::fprintf(stderr, "%s/model.onnx absent: skipped\n", d.c_str());
      continue;
    }
    list.push_back({name, d + "/model.onnx", d + "/test_data_set_0"});
  }
  return list;
}

}  // namespace
}  // namespace plumb::rt

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::vector<std::pair<std::string, plumb::rt::SessionOptions>> backends(1);
  backends[0].first = "ref";
#if PLUMB_HAVE_REF_BASELINE
  backends.emplace_back("baseline", plumb::rt::SessionOptions{});
  backends[1].second.backend = "baseline";
  backends[1].second.extra_backends = {{"baseline", plumb::rt::ref_baseline::make_backend}};
#endif
  for (const plumb::rt::ModelFiles& f : plumb::rt::model_list()) {
    if (!plumb::rt::exists(f.model)) continue;
    for (const auto& [name, options] : backends) {
      auto cache = std::make_shared<std::shared_ptr<plumb::Expected<plumb::rt::Loaded>>>();
      benchmark::RegisterBenchmark(("BM_" + name + "_model_" + f.name).c_str(), [f, options = options, cache](
                                                                                    benchmark::State& st) {
        plumb::rt::run_model(st, f, options, *cache);
      })->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
