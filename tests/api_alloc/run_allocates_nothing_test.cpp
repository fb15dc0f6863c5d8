// "No heap allocation during run for static-shape models" (issue 18, include/plumb.h): this
// program replaces the C library's allocator entry points (glibc: malloc, calloc, realloc,
// aligned_alloc, posix_memalign, memalign; operator new reaches them too) with counting ones, and
// counts what happens after plumb_model_plan: binding the buffers and two runs.
// - The C API and the executor allocate nothing for a static-shaped plan: a graph of elementwise
//   ops must count zero.
// - Every whole-model test runs through the C API (converted as `plumb convert` does, where this
//   build has the ONNX frontend): each folder of tests/models with data/, each model of
//   tests/models/dynamic/ at each of its data_<shape>/ sizes (planned for those shapes), and the
//   Cortex-M example's model (examples/embed_cortexm/model). Its outputs must equal the session's
//   (`plumb run`'s engine) byte for byte, or both fail with the same error; and where the plan is
//   static (no value with a run-time shape, no if/while) and the run succeeds, it must count zero
//   allocations: the ref kernels' temporaries come from the arena (runtime/cpu/ref/scratch.h).
//   A run that fails may allocate (its error message). The count of each model is printed.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "include/plumb.h"
#include "ir/save.h"
#include "ir/text.h"
#include "runtime/plan.h"
#include "runtime/session.h"
#if PLUMB_HAVE_ONNX
#include "check/model_inputs.h"
#include "check/onnx/frontend.h"
#include "tests/subfolders.h"
#endif

namespace {
bool g_counting = false;  // test-only instrumentation
long g_allocations = 0;
}  // namespace

// Under AddressSanitizer the allocator is ASan's; elsewhere than glibc there are no __libc_*
// entry points to forward to. The count runs where neither is the case.
#if defined(__SANITIZE_ADDRESS__) || !defined(__GLIBC__)
#define PLUMB_COUNT_ALLOCATIONS 0
#else
#define PLUMB_COUNT_ALLOCATIONS 1
extern "C" {
void* __libc_malloc(size_t n);
void* __libc_calloc(size_t n, size_t size);
void* __libc_realloc(void* p, size_t n);
void* __libc_memalign(size_t align, size_t n);
void __libc_free(void* p);

void* malloc(size_t n) {
  if (g_counting) ++g_allocations;
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t size) {
  if (g_counting) ++g_allocations;
  return __libc_calloc(n, size);
}
void* realloc(void* p, size_t n) {
  if (g_counting) ++g_allocations;
  return __libc_realloc(p, n);
}
void* memalign(size_t align, size_t n) {
  if (g_counting) ++g_allocations;
  return __libc_memalign(align, n);
}
void* aligned_alloc(size_t align, size_t n) { return memalign(align, n); }
int posix_memalign(void** out, size_t align, size_t n) {
  void* p = memalign(align, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
void free(void* p) { __libc_free(p); }
}  // extern "C"
#endif

namespace plumb {
namespace {

struct Counted {
  long allocations = 0;
  plumb_status status = PLUMB_OK;
};

// Loads `bytes` through the C API, plans for `inputs`, then counts the allocations of binding
// every input and output and running twice. `outputs` receives the second run's outputs.
Counted run_counted(const std::vector<uint8_t>& bytes, const std::vector<rt::Tensor>& inputs,
                    std::vector<std::vector<uint8_t>>& outputs, std::string& error) {
  Counted c;
  plumb_model* m = plumb_model_create();
  std::vector<uint8_t> model(bytes.size() + 64);
  const auto at = reinterpret_cast<uintptr_t>(model.data());
  uint8_t* aligned = model.data() + (64 - at % 64) % 64;
  std::memcpy(aligned, bytes.data(), bytes.size());
  c.status = plumb_model_load_memory(m, aligned, bytes.size());
  for (size_t k = 0; c.status == PLUMB_OK && k < inputs.size(); ++k)
    c.status = plumb_model_set_input_shape(m, k, inputs[k].shape.data(), inputs[k].shape.size());
  size_t arena_bytes = 0;
  if (c.status == PLUMB_OK) c.status = plumb_model_arena_size(m, &arena_bytes);
  std::vector<uint8_t> arena(arena_bytes);
  if (c.status == PLUMB_OK) c.status = plumb_model_plan(m, arena.data(), arena.size());
  // Outputs of a static size go to bound buffers; the others are read after the run
  // (plumb_model_output_data).
  outputs.assign(plumb_model_num_outputs(m), {});
  std::vector<uint8_t> bound(outputs.size(), 1);
  for (size_t k = 0; c.status == PLUMB_OK && k < outputs.size(); ++k) {
    plumb_tensor_info info;
    c.status = plumb_model_output_info(m, k, &info);
    size_t n = plumb_dtype_size(info.dtype);
    for (size_t d = 0; d < info.rank; ++d) {
      if (info.dims[d] < 0) bound[k] = 0;
      n *= info.dims[d] < 0 ? 0 : static_cast<size_t>(info.dims[d]);
    }
    outputs[k].assign(n, 0xEE);
  }
  if (c.status == PLUMB_OK) {
    g_allocations = 0;
    g_counting = true;
    for (size_t k = 0; c.status == PLUMB_OK && k < inputs.size(); ++k)
      c.status = plumb_model_bind_input(m, k, inputs[k].data, static_cast<size_t>(inputs[k].nbytes()));
    for (size_t k = 0; c.status == PLUMB_OK && k < outputs.size(); ++k)
      c.status = plumb_model_bind_output(m, k, bound[k] ? outputs[k].data() : nullptr, outputs[k].size());
    for (int run = 0; c.status == PLUMB_OK && run < 2; ++run) c.status = plumb_model_run(m);
    g_counting = false;
    c.allocations = g_allocations;
  }
  for (size_t k = 0; c.status == PLUMB_OK && k < outputs.size(); ++k) {
    if (bound[k]) continue;
    const void* data = nullptr;
    size_t bytes = 0;
    c.status = plumb_model_output_data(m, k, &data, &bytes);
    if (c.status == PLUMB_OK)
      outputs[k].assign(static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + bytes);
  }
  error = plumb_last_error(m);
  plumb_model_destroy(m);
  return c;
}

// The session's outputs (what `plumb run` prints) and error.
Status run_session(ir::Graph g, const std::vector<rt::Tensor>& inputs, std::vector<rt::RtValue>& outputs) {
  PLUMB_ASSIGN_OR_RETURN(auto s, rt::Session::create(std::move(g)));
  for (size_t k = 0; k < inputs.size(); ++k) PLUMB_RETURN_IF_ERROR(s->set_input(k, inputs[k]));
  PLUMB_RETURN_IF_ERROR(s->run());
  outputs = s->outputs();
  return Status::ok();
}

// True when planning `g` for `inputs` gives every top-level value a static shape and no if/while.
bool runs_static(const ir::Graph& g, const std::vector<rt::Tensor>& inputs) {
  std::vector<ir::Type> types;
  for (const rt::Tensor& t : inputs) types.push_back(rt::type_of(t));
  auto plan = rt::make_plan(g, types);
  if (!plan) return false;
  for (const rt::ValuePlan& vp : plan->values)
    if (vp.storage == rt::Storage::kDynamic) return false;
  return true;
}

// Runs `g` both ways and checks equal outputs (or equal errors); returns the C API's count of
// allocations after planning (-1 when it failed).
long expect_same_outputs(const std::string& name, const ir::Graph& g, const std::vector<rt::Tensor>& inputs) {
  const std::vector<uint8_t> bytes = ir::save_buffer(g);
  EXPECT_FALSE(bytes.empty()) << name;
  std::vector<std::vector<uint8_t>> got;
  std::string error;
  const Counted c = run_counted(bytes, inputs, got, error);
  std::vector<rt::RtValue> want;
  const Status s = run_session(g, inputs, want);
  if (!s.is_ok()) {
    EXPECT_NE(c.status, PLUMB_OK) << name << ": the session fails with " << s.to_string();
    EXPECT_EQ(error, s.to_string()) << name;
    return -1;
  }
  EXPECT_EQ(c.status, PLUMB_OK) << name << ": " << error;
  EXPECT_EQ(got.size(), want.size()) << name;
  for (size_t k = 0; c.status == PLUMB_OK && k < want.size() && k < got.size(); ++k) {
    const rt::Tensor& t = want[k].tensor();
    EXPECT_EQ(got[k].size(), static_cast<size_t>(t.nbytes())) << name << " output " << k;
    // (an empty output has no data pointer: memcmp of a null pointer is undefined even for 0 bytes)
    if (!got[k].empty() && got[k].size() == static_cast<size_t>(t.nbytes())) {
      EXPECT_EQ(std::memcmp(got[k].data(), t.data, got[k].size()), 0)
          << name << " output " << k << " differs";
    }
  }
  return c.status == PLUMB_OK ? c.allocations : -1;
}

TEST(CApiRun, StaticGraphAllocatesNothing) {
  if (!PLUMB_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting needs glibc and no AddressSanitizer";
  auto g = ir::parse_graph(R"(plumb 1
func @main(%x: f32[2,3], %w: f32[2,3]) -> (f32[2,3], i32[2,3]) {
  %y = binary %x, %w {kind = mul} : f32[2,3]
  %e = unary %y {kind = exp} : f32[2,3]
  %p = compare %x, %w {kind = lt} : bool[2,3]
  %s = select %p, %e, %x : f32[2,3]
  %i = cast %s {to = i32, saturate = true, round = nearest_even} : i32[2,3]
  return %s, %i
}
)");
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  ASSERT_TRUE(runs_static(
      *g, {rt::Tensor::allocate(ir::DType::F32, {2, 3}), rt::Tensor::allocate(ir::DType::F32, {2, 3})}));
  rt::Tensor x = rt::Tensor::allocate(ir::DType::F32, {2, 3}),
             w = rt::Tensor::allocate(ir::DType::F32, {2, 3});
  for (int64_t i = 0; i < 6; ++i) {
    x.as<float>()[i] = 0.75f * static_cast<float>(i) - 2.0f;
    w.as<float>()[i] = 1.5f - 0.5f * static_cast<float>(i);
  }
  EXPECT_EQ(expect_same_outputs("elementwise graph", *g, {x, w}), 0)
      << "allocations after planning (bind + 2 runs)";
}

#if PLUMB_HAVE_ONNX
struct WholeModel {
  std::string name;  // as printed
  std::string onnx;  // model.onnx
  std::string data;  // the folder with input_<k>.pb
};

using plumb::test_support::subfolders;

// Every whole-model test: tests/models/<name>/data, tests/models/dynamic/<name>/data_<shape>, and
// the Cortex-M example's model.
std::vector<WholeModel> whole_models() {
  std::vector<WholeModel> models;
  const std::string src = PLUMB_SOURCE_DIR;
  auto add = [&](const std::string& name, const std::string& dir, const std::string& data) {
    if (check::file_exists(dir + "/model.onnx") && check::file_exists(data + "/input_0.pb"))
      models.push_back({name, dir + "/model.onnx", data});
  };
  for (const std::string& n : subfolders(src + "/tests/models"))
    add(n, src + "/tests/models/" + n, src + "/tests/models/" + n + "/data");
  for (const std::string& n : subfolders(src + "/tests/models/dynamic")) {
    const std::string dir = src + "/tests/models/dynamic/" + n;
    for (const std::string& d : subfolders(dir)) {
      if (d.rfind("data_", 0) == 0) add("dynamic/" + n + "/" + d, dir, dir + "/" + d);
    }
  }
  add("embed_cortexm", src + "/examples/embed_cortexm/model", src + "/examples/embed_cortexm/model/data");
  return models;
}

TEST(CApiRun, WholeModelsEqualTheSessionAndStaticOnesAllocateNothing) {
  const std::vector<WholeModel> models = whole_models();
  ASSERT_GE(models.size(), 50u) << "fewer whole-model tests than expected";
  const check::Frontend fe = check::onnx_frontend();
  long static_runs = 0;
  for (const WholeModel& wm : models) {
    // As `plumb convert` lowers it: without the input values.
    auto m = check::load_model(wm.onnx, check::InputFiles{}, fe);
    ASSERT_TRUE(m.has_value()) << wm.name << ": " << m.status().to_string();
    std::vector<rt::Tensor> inputs;
    for (size_t k = 0; k < m->graph.body.params.size(); ++k) {
      const ir::Type& declared = m->graph.type_of(m->graph.body.params[k]);
      auto v = check::read_value(check::data_input_file(wm.data, k), declared, fe);
      ASSERT_TRUE(v.has_value()) << wm.name << ": " << v.status().to_string();
      inputs.push_back(v->tensor());
    }
    const long allocations = expect_same_outputs(wm.name, m->graph, inputs);
    const bool is_static = runs_static(m->graph, inputs);
    if (!PLUMB_COUNT_ALLOCATIONS || allocations < 0) continue;
    std::printf("%-32s %s, %ld allocations after planning (bind + 2 runs)\n", wm.name.c_str(),
                is_static ? "static" : "dynamic", allocations);
    if (!is_static) continue;
    ++static_runs;
    EXPECT_EQ(allocations, 0) << wm.name << ": a static-shaped plan allocated after planning (bind + 2 runs)";
  }
  if (PLUMB_COUNT_ALLOCATIONS) {
    EXPECT_GE(static_runs, 40) << "fewer static whole-model runs than expected";
  }
}
#endif

}  // namespace
}  // namespace plumb
