// The C API (include/plumb.h) on small graphs written in the text form: load (memory, file),
// bad files, queries with symbolic dims, input shapes, arenas (caller's and owned, too small,
// re-planned), binding, run, runtime errors, one model per thread.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "include/plumb.h"
#include "ir/save.h"
#include "ir/text.h"

namespace {

// y = (x + w) * x, z = sum(x) (f32), over x: f32[N, 2]: a constant used in place and a symbolic dim.
const char* kModel = R"(plumb 1
func @main(%x: f32[N,2]) -> (f32[N,2], f32[]) {
  %w = constant {value = dense<f32[2]>[1, -2]} : f32[2]
  %s = shape_of %x : i64[2]
  %wb = broadcast %w, %s {dims = [1]} : f32[N,2]
  %a = binary %x, %wb {kind = add} : f32[N,2]
  %y = binary %a, %x {kind = mul} : f32[N,2]
  %z = reduce %x {kind = sum, axes = [0, 1]} : f32[]
  return %y, %z
}
)";

// gather with an index from the input: index 5 is out of range (gather.R1).
const char* kGather = R"(plumb 1
func @main(%i: i64[1]) -> (f32[1]) {
  %t = constant {value = dense<f32[3]>[10, 20, 30]} : f32[3]
  %r = gather %t, %i {kind = axis, axis = 0, batch_dims = 0} : f32[1]
  return %r
}
)";

std::vector<uint8_t> plumb_bytes(const char* text) {
  auto g = plumb::ir::parse_graph(text);
  EXPECT_TRUE(g.has_value()) << g.status().to_string();
  if (!g) return {};
  return plumb::ir::save_buffer(*g);
}

// A buffer aligned to 64 bytes (plumb_model_load_memory uses such a buffer in place).
struct Aligned {
  explicit Aligned(const std::vector<uint8_t>& bytes, size_t shift = 0) : storage(bytes.size() + 128) {
    auto at = reinterpret_cast<uintptr_t>(storage.data());
    data = storage.data() + (64 - at % 64) % 64 + shift;
    std::memcpy(data, bytes.data(), bytes.size());
    size = bytes.size();
  }
  std::vector<uint8_t> storage;
  uint8_t* data = nullptr;
  size_t size = 0;
};

struct Model {
  plumb_model* m = plumb_model_create();
  ~Model() { plumb_model_destroy(m); }
  std::string error() const { return plumb_last_error(m); }
};

// Runs kModel for x of shape [n, 2] with values 0, 1, 2, ...; checks y and z.
void expect_model_runs(plumb_model* m, int64_t n, void* arena, size_t arena_bytes) {
  const int64_t dims[2] = {n, 2};
  ASSERT_EQ(plumb_model_set_input_shape(m, 0, dims, 2), PLUMB_OK) << plumb_last_error(m);
  ASSERT_EQ(plumb_model_plan(m, arena, arena_bytes), PLUMB_OK) << plumb_last_error(m);
  std::vector<float> x(static_cast<size_t>(n) * 2), y(x.size(), -1.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  float z = -1;
  ASSERT_EQ(plumb_model_bind_input(m, 0, x.data(), x.size() * sizeof(float)), PLUMB_OK)
      << plumb_last_error(m);
  ASSERT_EQ(plumb_model_bind_output(m, 0, y.data(), y.size() * sizeof(float)), PLUMB_OK)
      << plumb_last_error(m);
  ASSERT_EQ(plumb_model_bind_output(m, 1, &z, sizeof z), PLUMB_OK) << plumb_last_error(m);
  ASSERT_EQ(plumb_model_run(m), PLUMB_OK) << plumb_last_error(m);
  EXPECT_STREQ(plumb_last_error(m), "");
  float sum = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const float w = i % 2 == 0 ? 1.0f : -2.0f;
    EXPECT_EQ(y[i], (x[i] + w) * x[i]) << i;
    sum += x[i];
  }
  EXPECT_EQ(z, sum);
  const void* data = nullptr;
  size_t bytes = 0;
  ASSERT_EQ(plumb_model_output_data(m, 1, &data, &bytes), PLUMB_OK);
  ASSERT_EQ(bytes, sizeof(float));
  EXPECT_EQ(*static_cast<const float*>(data), sum);
}

TEST(CApi, LoadMemoryQueryPlanRun) {
  const std::vector<uint8_t> bytes = plumb_bytes(kModel);
  Aligned buf(bytes);
  Model m;
  ASSERT_EQ(plumb_model_load_memory(m.m, buf.data, buf.size), PLUMB_OK) << m.error();
  ASSERT_EQ(plumb_model_num_inputs(m.m), 1u);
  ASSERT_EQ(plumb_model_num_outputs(m.m), 2u);
  plumb_tensor_info info;
  ASSERT_EQ(plumb_model_input_info(m.m, 0, &info), PLUMB_OK);
  EXPECT_EQ(info.dtype, PLUMB_F32);
  ASSERT_EQ(info.rank, 2u);
  EXPECT_EQ(info.dims[0], -1);
  EXPECT_STREQ(info.dim_names[0], "N");
  EXPECT_EQ(info.dims[1], 2);
  EXPECT_STREQ(info.dim_names[1], "");
  ASSERT_EQ(plumb_model_output_info(m.m, 1, &info), PLUMB_OK);
  EXPECT_EQ(info.rank, 0u);

  // No shape for N yet: planning says which input needs one.
  size_t need = 0;
  EXPECT_EQ(plumb_model_arena_size(m.m, &need), PLUMB_INVALID_INPUT);
  EXPECT_NE(m.error().find("set its shape first"), std::string::npos) << m.error();

  const int64_t dims[2] = {3, 2};
  ASSERT_EQ(plumb_model_set_input_shape(m.m, 0, dims, 2), PLUMB_OK) << m.error();
  ASSERT_EQ(plumb_model_arena_size(m.m, &need), PLUMB_OK) << m.error();
  EXPECT_GT(need, 0u);
  ASSERT_EQ(plumb_model_output_info(m.m, 0, &info), PLUMB_OK);
  ASSERT_EQ(info.rank, 2u);
  EXPECT_EQ(info.dims[0], 3);  // planned

  // A caller's arena at an odd address: the model aligns inside it.
  std::vector<uint8_t> arena(need + 1);
  expect_model_runs(m.m, 3, arena.data() + 1, need);
  // Re-planned for a smaller N into the same arena; then a larger N needs more than it has.
  expect_model_runs(m.m, 1, arena.data() + 1, need);
  const int64_t big[2] = {1000, 2};
  ASSERT_EQ(plumb_model_set_input_shape(m.m, 0, big, 2), PLUMB_OK);
  EXPECT_EQ(plumb_model_plan(m.m, arena.data() + 1, need), PLUMB_INVALID_INPUT);
  EXPECT_NE(m.error().find("the arena has"), std::string::npos) << m.error();
  // The library's own arena.
  expect_model_runs(m.m, 1000, nullptr, 0);
}

TEST(CApi, AlignedBufferIsUsedInPlace) {
  const std::vector<uint8_t> bytes = plumb_bytes(kModel);
  Aligned buf(bytes);
  Model m;
  ASSERT_EQ(plumb_model_load_memory(m.m, buf.data, buf.size), PLUMB_OK) << m.error();
  // The constant w = [1, -2] is read where the buffer holds it: changing it there changes y.
  const float w[2] = {1.0f, -2.0f};
  uint8_t* at = nullptr;
  for (size_t i = 0; i + sizeof w <= buf.size; i += 4)
    if (std::memcmp(buf.data + i, w, sizeof w) == 0) at = buf.data + i;
  ASSERT_NE(at, nullptr);
  const float w2[2] = {3.0f, 4.0f};
  std::memcpy(at, w2, sizeof w2);
  const int64_t dims[2] = {1, 2};
  ASSERT_EQ(plumb_model_set_input_shape(m.m, 0, dims, 2), PLUMB_OK);
  ASSERT_EQ(plumb_model_plan(m.m, nullptr, 0), PLUMB_OK) << m.error();
  const float x[2] = {2.0f, 5.0f};
  float y[2] = {0, 0}, z = 0;
  ASSERT_EQ(plumb_model_bind_input(m.m, 0, x, sizeof x), PLUMB_OK);
  ASSERT_EQ(plumb_model_bind_output(m.m, 0, y, sizeof y), PLUMB_OK);
  ASSERT_EQ(plumb_model_bind_output(m.m, 1, &z, sizeof z), PLUMB_OK);
  ASSERT_EQ(plumb_model_run(m.m), PLUMB_OK) << m.error();
  EXPECT_EQ(y[0], (2.0f + 3.0f) * 2.0f);
  EXPECT_EQ(y[1], (5.0f + 4.0f) * 5.0f);
}

TEST(CApi, UnalignedBufferIsCopied) {
  const std::vector<uint8_t> bytes = plumb_bytes(kModel);
  Aligned buf(bytes, 4);
  Model m;
  ASSERT_EQ(plumb_model_load_memory(m.m, buf.data, buf.size), PLUMB_OK) << m.error();
  std::memset(buf.data, 0, buf.size);  // the model holds its own copy
  expect_model_runs(m.m, 4, nullptr, 0);
}

TEST(CApi, LoadFile) {
  const std::vector<uint8_t> bytes = plumb_bytes(kModel);
  const std::string path = ::testing::TempDir() + "capi_load_file.plumb";
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_TRUE(f);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
  Model m;
  ASSERT_EQ(plumb_model_load_file(m.m, path.c_str()), PLUMB_OK) << m.error();
  expect_model_runs(m.m, 2, nullptr, 0);
  std::remove(path.c_str());
}

TEST(CApi, BadFileIsAnErrorWithAMessage) {
  Model m;
  EXPECT_EQ(plumb_model_load_file(m.m, "/nonexistent/model.plumb"), PLUMB_INVALID_INPUT);
  EXPECT_EQ(m.error(), "/nonexistent/model.plumb: cannot open: No such file or directory");

  std::vector<uint8_t> junk(256, 0x5a);
  Aligned j(junk);
  EXPECT_EQ(plumb_model_load_memory(m.m, j.data, j.size), PLUMB_INVALID_MODEL);
  EXPECT_NE(m.error().find("(file.F2)"), std::string::npos) << m.error();

  // Truncated and corrupted copies of a real file: refused, never run.
  const std::vector<uint8_t> bytes = plumb_bytes(kModel);
  Aligned cut(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(bytes.size() / 2)));
  EXPECT_EQ(plumb_model_load_memory(m.m, cut.data, cut.size), PLUMB_INVALID_MODEL);
  EXPECT_NE(m.error().find("file.F"), std::string::npos) << m.error();
  EXPECT_EQ(plumb_model_num_inputs(m.m), 0u);
  size_t need = 0;
  EXPECT_EQ(plumb_model_arena_size(m.m, &need), PLUMB_INVALID_INPUT);
  EXPECT_EQ(m.error(), "no model is loaded");
  EXPECT_EQ(plumb_model_run(m.m), PLUMB_INVALID_INPUT);
}

TEST(CApi, VerifierRefusesAnInvalidGraph) {
  // The text parser checks nothing of the op rules: binary operands of two shapes (binary.C*).
  auto g = plumb::ir::parse_graph(R"(plumb 1
func @main(%x: f32[2], %y: f32[3]) -> (f32[2]) {
  %z = binary %x, %y {kind = add} : f32[2]
  return %z
}
)");
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  Aligned buf(plumb::ir::save_buffer(*g));
  ASSERT_GT(buf.size, 0u);
  Model m;
  EXPECT_EQ(plumb_model_load_memory(m.m, buf.data, buf.size), PLUMB_INVALID_MODEL);
  EXPECT_NE(m.error().find("binary"), std::string::npos) << m.error();
}

TEST(CApi, WrongInputShape) {
  Aligned buf(plumb_bytes(kModel));
  Model m;
  ASSERT_EQ(plumb_model_load_memory(m.m, buf.data, buf.size), PLUMB_OK) << m.error();
  const int64_t rank3[3] = {1, 2, 3};
  EXPECT_EQ(plumb_model_set_input_shape(m.m, 0, rank3, 3), PLUMB_INVALID_INPUT);
  EXPECT_EQ(m.error(), "input 'x': expected f32[N,2], got f32[1,2,3] (rank differs)");
  const int64_t wrong[2] = {4, 3};
  EXPECT_EQ(plumb_model_set_input_shape(m.m, 0, wrong, 2), PLUMB_INVALID_INPUT);
  EXPECT_EQ(m.error(), "input 'x': expected f32[N,2], got f32[4,3] (dim 1 is 3, not 2)");
  const int64_t negative[2] = {-1, 2};
  EXPECT_EQ(plumb_model_set_input_shape(m.m, 0, negative, 2), PLUMB_INVALID_INPUT);
  EXPECT_EQ(plumb_model_set_input_shape(m.m, 1, wrong, 2), PLUMB_INVALID_INPUT);
  EXPECT_EQ(m.error(), "input #1 does not exist: the model has 1");

  const int64_t ok[2] = {4, 2};
  ASSERT_EQ(plumb_model_set_input_shape(m.m, 0, ok, 2), PLUMB_OK);
  EXPECT_EQ(plumb_model_run(m.m), PLUMB_INVALID_INPUT);  // not planned
  ASSERT_EQ(plumb_model_plan(m.m, nullptr, 0), PLUMB_OK) << m.error();
  EXPECT_EQ(plumb_model_run(m.m), PLUMB_INVALID_INPUT);
  EXPECT_EQ(m.error(), "input 'x' is not bound");
  std::vector<float> x(8);
  EXPECT_EQ(plumb_model_bind_input(m.m, 0, x.data(), 7 * sizeof(float)), PLUMB_INVALID_INPUT);
  EXPECT_EQ(m.error(), "input 'x' is f32[4,2]: 32 bytes, the buffer has 28");
  EXPECT_EQ(plumb_model_bind_input(m.m, 0, reinterpret_cast<uint8_t*>(x.data()) + 1, 32),
            PLUMB_INVALID_INPUT);
  float small[2];
  EXPECT_EQ(plumb_model_bind_output(m.m, 0, small, sizeof small), PLUMB_INVALID_INPUT);
  EXPECT_EQ(m.error(), "output 'y' is f32[4,2]: 32 bytes, the buffer has 8");
}

TEST(CApi, SymbolicDimsMustAgree) {
  auto g = plumb::ir::parse_graph(R"(plumb 1
func @main(%x: f32[N], %y: f32[N]) -> (f32[N]) {
  %z = binary %x, %y {kind = add} : f32[N]
  return %z
}
)");
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  g->input_names = {"x", "y"};
  Aligned buf(plumb::ir::save_buffer(*g));
  Model m;
  ASSERT_EQ(plumb_model_load_memory(m.m, buf.data, buf.size), PLUMB_OK) << m.error();
  const int64_t two = 2, three = 3;
  ASSERT_EQ(plumb_model_set_input_shape(m.m, 0, &two, 1), PLUMB_OK);
  ASSERT_EQ(plumb_model_set_input_shape(m.m, 1, &three, 1), PLUMB_OK);
  size_t need = 0;
  EXPECT_EQ(plumb_model_arena_size(m.m, &need), PLUMB_INVALID_INPUT);
  EXPECT_EQ(m.error(), "input 'y': expected f32[N], got f32[3] (dim 0 is N = 3, but input 'x' has N = 2)");
}

TEST(CApi, RuntimeErrorNamesTheNodeAndLabel) {
  Aligned buf(plumb_bytes(kGather));
  Model m;
  ASSERT_EQ(plumb_model_load_memory(m.m, buf.data, buf.size), PLUMB_OK) << m.error();
  ASSERT_EQ(plumb_model_plan(m.m, nullptr, 0), PLUMB_OK) << m.error();
  int64_t index = 2;
  float r = 0;
  ASSERT_EQ(plumb_model_bind_input(m.m, 0, &index, sizeof index), PLUMB_OK);
  ASSERT_EQ(plumb_model_bind_output(m.m, 0, &r, sizeof r), PLUMB_OK);
  ASSERT_EQ(plumb_model_run(m.m), PLUMB_OK) << m.error();
  EXPECT_EQ(r, 30.0f);
  index = 5;  // read in place: the next run sees it
  EXPECT_EQ(plumb_model_run(m.m), PLUMB_RUNTIME_ERROR);
  EXPECT_NE(m.error().find("gather"), std::string::npos) << m.error();
  EXPECT_NE(m.error().find("(gather.R1)"), std::string::npos) << m.error();
  const void* data = nullptr;
  size_t bytes = 0;
  EXPECT_EQ(plumb_model_output_data(m.m, 0, &data, &bytes),
            PLUMB_INVALID_INPUT);  // no outputs after a failed run
}

TEST(CApi, StringInputsAreUnsupported) {
  auto g = plumb::ir::parse_graph(R"(plumb 1
func @main(%s: string[2]) -> (string[2]) {
  return %s
}
)");
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  Aligned buf(plumb::ir::save_buffer(*g));
  Model m;
  EXPECT_EQ(plumb_model_load_memory(m.m, buf.data, buf.size), PLUMB_UNSUPPORTED);
  EXPECT_NE(m.error().find("the C API binds ranked tensors of numeric or bool type only"), std::string::npos)
      << m.error();
}

TEST(CApi, DTypes) {
  EXPECT_STREQ(plumb_dtype_name(PLUMB_F32), "f32");
  EXPECT_STREQ(plumb_dtype_name(PLUMB_BF16), "bf16");
  EXPECT_EQ(plumb_dtype_size(PLUMB_F64), 8u);
  EXPECT_EQ(plumb_dtype_size(PLUMB_I4), 1u);  // one byte per element at run time
  EXPECT_EQ(plumb_dtype_size(PLUMB_BOOL), 1u);
  EXPECT_EQ(plumb_dtype_name(static_cast<plumb_dtype>(99)), nullptr);
  EXPECT_STREQ(plumb_last_error(nullptr), "no model (NULL)");
}

// One model per thread, at once: no state is shared between models.
TEST(CApi, OneModelPerThread) {
  const std::vector<uint8_t> bytes = plumb_bytes(kModel);
  Aligned buf(bytes);
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      plumb_model* m = plumb_model_create();
      for (int i = 0; i < 20; ++i) {
        const int64_t dims[2] = {1 + t + i, 2};
        std::vector<float> x(static_cast<size_t>(dims[0]) * 2, 1.5f), y(x.size());
        float z = 0;
        bool ok = plumb_model_load_memory(m, buf.data, buf.size) == PLUMB_OK &&
                  plumb_model_set_input_shape(m, 0, dims, 2) == PLUMB_OK &&
                  plumb_model_plan(m, nullptr, 0) == PLUMB_OK &&
                  plumb_model_bind_input(m, 0, x.data(), x.size() * sizeof(float)) == PLUMB_OK &&
                  plumb_model_bind_output(m, 0, y.data(), y.size() * sizeof(float)) == PLUMB_OK &&
                  plumb_model_bind_output(m, 1, &z, sizeof z) == PLUMB_OK && plumb_model_run(m) == PLUMB_OK;
        ok = ok && z == 1.5f * static_cast<float>(x.size()) && y[0] == 2.5f * 1.5f && y[1] == -0.5f * 1.5f;
        if (!ok) ++failures[t];
      }
      plumb_model_destroy(m);
    });
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

}  // namespace
