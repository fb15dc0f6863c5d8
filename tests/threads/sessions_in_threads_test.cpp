// The library is thread-safe for one Session per thread over one shared loaded graph (issue 23).
// For every whole-model test in tests/models, the model is loaded and lowered ONCE, as `plumb run`
// and `plumb convert` do (check::load_model), into one std::shared_ptr<const ir::Graph>; then
// kThreads threads each make their own Session over that graph and run it kIterations times on
// every input size the model has, at the same time, and every output of every run must equal a
// single-threaded run's byte for byte (NaN payloads included). The shared graph must be unchanged
// afterwards (ir::save_buffer before and after, byte for byte).
//
// Half the threads run in NumericMode::kPrecise (plumb check's mode), against a single-threaded
// precise run. Sessions run with SessionOptions::threads = 1 (the CLI's --threads 1): the question
// here is whether sessions disturb each other, not the kernels' own threads (tests/ref_bits covers
// those). The threads share the input values too (each session binds the same tensors): kernels
// never write their operands, so that is allowed and is checked here as well. And they share one
// memory budget (SessionOptions::memory, as the CLI's --max-memory), which must be back to 0 bytes
// used when every session is gone.
//
// Under ThreadSanitizer (tools/tsan.sh, the `tsan` preset) the same runs are checked for data races.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "check/model_inputs.h"
#include "check/onnx/frontend.h"
#include "ir/save.h"
#include "runtime/memory_budget.h"
#include "runtime/session.h"
#include "tests/subfolders.h"

namespace plumb {
namespace {

constexpr int kThreads = 8;
// Runs of every input size per thread. CI's ASan+UBSan build (Debug, several times slower) runs
// 2: there the question is memory errors under concurrency, and races are TSan's (tools/tsan.sh).
#if defined(__SANITIZE_ADDRESS__)
constexpr int kIterations = 2;
#else
constexpr int kIterations = 10;
#endif

// Its run is an error by design (tests/cli/check_undefined.sh: a ReduceMean over an empty set); the
// threads must then give the same error, and only this model may give one.
constexpr const char* kRunIsAnError = "undefined_mean";
// One run of ssdlite (4740 core nodes) takes 0.5 s, its 8 x 10 runs here about a minute on 2 cores,
// more than all the other models together many times over; it runs with PLUMB_THREADS_LARGE=1.
constexpr const char* kLarge = "dynamic/ssdlite";

// A whole-model test: the model file and its data folders (one per input size).
struct ModelCase {
  std::string name;  // e.g. "resnet_small", "dynamic/fcn"
  std::string model;
  std::vector<std::string> data_dirs;
};

// How gtest names a case in its messages (instead of the struct's bytes).
void PrintTo(const ModelCase& c, std::ostream* os) { *os << c.name; }

using plumb::test_support::subfolders;

// tests/models/NAME/ with model.onnx and data/ (the real and exported models), and
// tests/models/dynamic/NAME/ with model.onnx and data_*/ folders (tests/models/README.md).
std::vector<ModelCase> whole_model_cases() {
  const std::string root = std::string(PLUMB_SOURCE_DIR) + "/tests/models";
  std::vector<ModelCase> cases;
  for (const std::string& n : subfolders(root)) {
    const std::string dir = root + "/" + n;
    if (check::file_exists(dir + "/model.onnx") && !check::data_input_file(dir + "/data", 0).empty())
      cases.push_back({n, dir + "/model.onnx", {dir + "/data"}});
  }
  for (const std::string& n : subfolders(root + "/dynamic")) {
    const std::string dir = root + "/dynamic/" + n;
    if (!check::file_exists(dir + "/model.onnx")) continue;
    ModelCase c{"dynamic/" + n, dir + "/model.onnx", {}};
    for (const std::string& d : subfolders(dir))
      if (d.rfind("data_", 0) == 0) c.data_dirs.push_back(dir + "/" + d);
    if (!c.data_dirs.empty()) cases.push_back(std::move(c));
  }
  return cases;
}

// Every byte a run's outputs consist of: per value its kind, dtype, shape and bytes (strings as
// length + bytes), so that two runs compare equal only when bit-identical.
void append(std::vector<uint8_t>& out, const void* p, size_t n) {
  const auto* b = static_cast<const uint8_t*>(p);
  out.insert(out.end(), b, b + n);
}
void append_i64(std::vector<uint8_t>& out, int64_t v) { append(out, &v, sizeof v); }

void append_tensor(std::vector<uint8_t>& out, const rt::Tensor& t) {
  append_i64(out, static_cast<int64_t>(t.dtype));
  append_i64(out, t.rank());
  for (int64_t d : t.shape) append_i64(out, d);
  append_i64(out, static_cast<int64_t>(t.device));
  if (t.dtype == ir::DType::String) {
    for (int64_t i = 0; i < t.numel(); ++i) {
      append_i64(out, static_cast<int64_t>(t.strings()[i].size()));
      append(out, t.strings()[i].data(), t.strings()[i].size());
    }
  } else if (t.nbytes() > 0 && t.data) {
    append(out, t.data, static_cast<size_t>(t.nbytes()));
  }
}

void append_value(std::vector<uint8_t>& out, const rt::RtValue& v) {
  append_i64(out, static_cast<int64_t>(v.index()));
  if (const auto* t = std::get_if<rt::Tensor>(&v)) {
    append_tensor(out, *t);
  } else if (const auto* s = std::get_if<rt::SequenceValue>(&v)) {
    append_i64(out, static_cast<int64_t>(s->items.size()));
    for (const rt::Tensor& t : s->items) append_tensor(out, t);
    append_i64(out, static_cast<int64_t>(s->maps.size()));
    for (const rt::MapValue& m : s->maps) {
      append_tensor(out, m.keys);
      append_tensor(out, m.values);
    }
  } else if (const auto* o = std::get_if<rt::OptionalValue>(&v)) {
    append_i64(out, o->value ? 1 : 0);
    if (o->value) append_value(out, *o->value);
  } else if (const auto* m = std::get_if<rt::MapValue>(&v)) {
    append_tensor(out, m->keys);
    append_tensor(out, m->values);
  }
}

// One run of `s` on `inputs`: the outputs' bytes, or the error (which must then be the same in
// every thread too).
std::vector<uint8_t> run_bytes(rt::Session& s, const std::vector<rt::RtValue>& inputs, std::string& error) {
  error.clear();
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Status st = s.set_input(k, inputs[k]);
    if (!st.is_ok()) {
      error = st.to_string();
      return {};
    }
  }
  const Status st = s.run();
  if (!st.is_ok()) {
    error = st.to_string();
    return {};
  }
  std::vector<uint8_t> bytes;
  for (size_t k = 0; k < s.num_outputs(); ++k) append_value(bytes, s.output(k));
  return bytes;
}

struct Loaded {
  std::shared_ptr<const ir::Graph> graph;
  std::vector<std::vector<rt::RtValue>> input_sets;  // one per data folder
};

// As the CLI loads it. A model with one data folder is lowered knowing its inputs, as `plumb run
// MODEL --data DIR` does (lraspp and ssdlite need that: the lowering specializes on the input
// shapes); one with several is lowered once without input values, as `plumb convert` does, and
// that one graph runs at every size (tests/cli/dynamic_models.sh).
Expected<Loaded> load_case(const ModelCase& c) {
  const check::Frontend fe = check::onnx_frontend();
  const bool one_size = c.data_dirs.size() == 1;
  const check::InputFiles files{one_size ? c.data_dirs[0] : std::string(), {}};
  PLUMB_ASSIGN_OR_RETURN(check::LoadedModel m, check::load_model(c.model, files, fe));
  Loaded l;
  for (const std::string& dir : c.data_dirs) {
    std::vector<rt::RtValue> inputs;
    if (one_size) {
      PLUMB_RETURN_IF_ERROR(check::have_all_inputs(m, files));
      PLUMB_ASSIGN_OR_RETURN(inputs, check::all_inputs(m, files));
    } else {
      for (size_t k = 0; k < m.graph.body.params.size(); ++k) {
        const std::string file = check::data_input_file(dir, k);
        if (file.empty()) return invalid_input(dir + ": no file for input #" + std::to_string(k));
        PLUMB_ASSIGN_OR_RETURN(rt::RtValue v,
                               check::read_value(file, m.graph.type_of(m.graph.body.params[k]), fe));
        inputs.push_back(std::move(v));
      }
    }
    l.input_sets.push_back(std::move(inputs));
  }
  l.graph = std::make_shared<const ir::Graph>(std::move(m.graph));
  return l;
}

// Both numeric modes: native (`plumb run`) and precise (the f64 graph each session derives from
// the shared one; what `plumb check` runs).
constexpr rt::NumericMode kModes[] = {rt::NumericMode::kNative, rt::NumericMode::kPrecise};
constexpr const char* kModeNames[] = {"native", "precise"};
constexpr size_t kNumModes = 2;

// As the CLI makes them (tools/session_options.cpp), with a memory budget: one budget shared by
// every session of a test, so that its atomic counters are exercised from all threads at once.
rt::SessionOptions session_options(size_t mode, std::shared_ptr<rt::MemoryBudget> budget) {
  rt::SessionOptions o;
  o.mode = kModes[mode];
  o.threads = 1;
  o.memory = std::move(budget);
  return o;
}

// Far more than any of the models needs: no refusal is expected.
std::shared_ptr<rt::MemoryBudget> large_budget() {
  return std::make_shared<rt::MemoryBudget>(int64_t{8} << 30);
}

class SessionsInThreads : public ::testing::TestWithParam<ModelCase> {};

TEST_P(SessionsInThreads, OutputsEqualOneThreadsByteForByte) {
  const ModelCase& c = GetParam();
  const char* large = std::getenv("PLUMB_THREADS_LARGE");
  if (c.name == kLarge && !(large && std::string(large) == "1"))
    GTEST_SKIP() << c.name << " takes about a minute here: run with PLUMB_THREADS_LARGE=1";
  auto loaded = load_case(c);
  ASSERT_TRUE(loaded.has_value()) << c.name << ": " << loaded.status().to_string();
  const std::shared_ptr<const ir::Graph> graph = loaded->graph;
  const std::vector<std::vector<rt::RtValue>>& sets = loaded->input_sets;
  const std::vector<uint8_t> graph_before = ir::save_buffer(*graph);
  ASSERT_FALSE(graph_before.empty()) << c.name;

  // The single-threaded runs: per mode one session, each input size once.
  std::vector<std::vector<uint8_t>> want[kNumModes];
  std::vector<std::string> want_error[kNumModes];
  for (size_t mode = 0; mode < kNumModes; ++mode) {
    want[mode].resize(sets.size());
    want_error[mode].resize(sets.size());
    auto s = rt::Session::create(graph, session_options(mode, large_budget()));
    ASSERT_TRUE(s.has_value()) << c.name << " (" << kModeNames[mode] << "): " << s.status().to_string();
    for (size_t i = 0; i < sets.size(); ++i) {
      want[mode][i] = run_bytes(**s, sets[i], want_error[mode][i]);
      // Every other whole-model test runs (its CLI test says so): an error here would leave the
      // threads comparing errors only.
      if (c.name == kRunIsAnError)
        EXPECT_NE(want_error[mode][i], "")
            << c.name << " on " << c.data_dirs[i] << " ran; it is an error by design";
      else
        EXPECT_EQ(want_error[mode][i], "") << c.name << " (" << kModeNames[mode] << ") on " << c.data_dirs[i];
    }
  }

  // kThreads sessions over the one graph, all at once, half of them in each mode. Thread t starts
  // at input size t and moves on one size per run, so that different sizes (different plans) run
  // at the same time.
  const std::shared_ptr<rt::MemoryBudget> budget = large_budget();
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const size_t mode = static_cast<size_t>(t) % kNumModes;
      const std::string who = "thread " + std::to_string(t) + " (" + kModeNames[mode] + ")";
      auto s = rt::Session::create(graph, session_options(mode, budget));
      if (!s) {
        failures[t] = who + ": " + s.status().to_string();
        return;
      }
      for (int it = 0; it < kIterations; ++it) {
        for (size_t r = 0; r < sets.size(); ++r) {
          const size_t i = (static_cast<size_t>(t) + r) % sets.size();
          std::string error;
          const std::vector<uint8_t> got = run_bytes(**s, sets[i], error);
          const std::string& want_err = want_error[mode][i];
          if (error != want_err || got != want[mode][i]) {
            failures[t] = who + ", iteration " + std::to_string(it) + ", " + c.data_dirs[i] + ": " +
                          (error != want_err ? "error '" + error + "', one thread's '" + want_err + "'"
                                             : "outputs differ from one thread's");
            return;
          }
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (const std::string& f : failures) EXPECT_EQ(f, "") << c.name;
  // Every session is gone: every charge to the shared budget was released, none refused.
  EXPECT_EQ(budget->used(), 0) << c.name;
  EXPECT_EQ(budget->refusals(), 0) << c.name;
  EXPECT_TRUE(ir::save_buffer(*graph) == graph_before) << c.name << ": the shared graph changed";
}

std::string case_name(const ::testing::TestParamInfo<ModelCase>& info) {
  std::string n = info.param.name;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(WholeModels, SessionsInThreads, ::testing::ValuesIn(whole_model_cases()), case_name);

// The list itself: a tests/models without its models must not pass by running nothing.
TEST(SessionsInThreadsList, FindsTheWholeModelTests) {
  const std::vector<ModelCase> cases = whole_model_cases();
  EXPECT_GE(cases.size(), 41u) << "tests/models has fewer whole-model tests than expected";
  size_t dynamic_sizes = 0;
  for (const ModelCase& c : cases)
    if (c.name.rfind("dynamic/", 0) == 0) dynamic_sizes += c.data_dirs.size();
  EXPECT_GE(dynamic_sizes, 20u) << "tests/models/dynamic has fewer input sizes than expected";
}

// The shared overload names a missing graph instead of crashing on it.
TEST(SessionsInThreadsList, NoGraphIsAnError) {
  auto s = rt::Session::create(std::shared_ptr<const ir::Graph>(), session_options(0, nullptr));
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.status().to_string().find("no graph"), std::string::npos) << s.status().to_string();
}

}  // namespace
}  // namespace plumb
