// Reads every model.onnx and every input_/output_ .pb of the ONNX backend node suites.
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "frontends/onnx/model.h"
#include "frontends/onnx/tensor_proto.h"

namespace plumb::onnx {
namespace {

bool is_dir(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> list_dir(const std::string& p) {
  std::vector<std::string> out;
  DIR* d = opendir(p.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(n);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

struct Counts {
  int models = 0;
  int pbs = 0;
  int failures = 0;
  int guess_mismatches = 0;
  int roundtrips = 0;
  int functions = 0;
  int function_defaults = 0;
  int max_ir = 0;
  std::set<std::string> dtypes;  // dtypes of every tensor read (initializers and data)
};

// Tensors of a value, depth first.
void collect(const DataValue& v, std::vector<const Tensor*>& out) {
  if (v.kind == DataValue::Kind::Tensor || v.kind == DataValue::Kind::Map) out.push_back(&v.tensor);
  for (const auto& e : v.elems) collect(e, out);
}

// read -> write -> read gives the same tensors (dtype, dims, bytes).
bool round_trips(const DataValue& v, DataKind kind) {
  auto bytes = serialize_data_value(v);
  if (!bytes) return false;
  auto again = parse_data_value(*bytes, kind);
  if (!again) return false;
  std::vector<const Tensor*> a, b;
  collect(v, a);
  collect(*again, b);
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i]->dtype != b[i]->dtype || a[i]->dims != b[i]->dims || a[i]->bytes() != b[i]->bytes())
      return false;
  return true;
}

// Reads <dir>/model.onnx and each test_data_set_*/{input,output}_<k>.pb with the kind of the
// k-th graph input/output.
void read_test_folder(const std::string& dir, Counts& c) {
  auto m = load_model(dir + "/model.onnx");
  if (!m) {
    ++c.failures;
    ADD_FAILURE() << m.status().to_string();
    return;
  }
  ++c.models;
  c.functions += static_cast<int>(m->functions().size());
  for (const auto& f : m->functions()) c.function_defaults += static_cast<int>(f.attribute_defaults.size());
  c.max_ir = std::max(c.max_ir, static_cast<int>(m->ir_version));
  for (const auto& t : m->graph.initializers) c.dtypes.insert(std::string(ir::dtype_name(t.dtype)));
  const auto inputs = m->graph.real_inputs();
  for (const auto& ds : list_dir(dir)) {
    if (ds.rfind("test_data_set_", 0) != 0) continue;
    for (const auto& f : list_dir(dir + "/" + ds)) {
      const bool in = f.rfind("input_", 0) == 0, out = f.rfind("output_", 0) == 0;
      if ((!in && !out) || f.size() < 3 || f.substr(f.size() - 3) != ".pb") continue;
      const size_t k = std::stoul(f.substr(in ? 6 : 7));
      const OnnxValueInfo* vi = nullptr;
      if (in && k < inputs.size()) vi = inputs[k];
      if (out && k < m->graph.outputs.size()) vi = &m->graph.outputs[k];
      const std::string path = dir + "/" + ds + "/" + f;
      auto v =
          (vi != nullptr && vi->type) ? read_data_file(path, data_kind_of(*vi->type)) : read_data_file(path);
      if (!v) {
        ++c.failures;
        ADD_FAILURE() << v.status().to_string();
        continue;
      }
      ++c.pbs;
      std::vector<const Tensor*> ts;
      collect(*v, ts);
      for (const Tensor* t : ts) c.dtypes.insert(std::string(ir::dtype_name(t->dtype)));
      const DataKind kind = vi != nullptr && vi->type ? data_kind_of(*vi->type) : DataKind::Tensor;
      if (round_trips(*v, kind)) {
        ++c.roundtrips;
      } else {
        ++c.failures;
        ADD_FAILURE() << path << ": read -> write -> read changed the value";
      }
      // The guessed kind agrees with the declared one (an optional and a one-element sequence
      // have the same bytes, so a guessed Sequence is fine for an Optional).
      if (vi != nullptr && vi->type) {
        std::string bytes = *read_file_bytes(path);
        auto g = guess_data_kind(bytes);
        if (!g || (*g != kind && !(kind == DataKind::Optional && *g == DataKind::Sequence))) {
          ++c.guess_mismatches;
          ADD_FAILURE() << path << ": guessed kind differs from the declared one";
        }
      }
    }
  }
}

void read_suite(const std::string& root, Counts& c) {
  for (const auto& t : list_dir(root)) {
    const std::string dir = root + "/" + t;
    if (!is_dir(dir)) continue;
    struct stat st;
    if (stat((dir + "/model.onnx").c_str(), &st) == 0) {
      read_test_folder(dir, c);
    } else {
      read_suite(dir, c);  // Debian's layout nests suites (node/, simple/, pytorch-*/)
    }
  }
}

TEST(OnnxModel, LoadsEveryBackendNodeModel) {
  const std::string root = std::string(PLUMB_SHARED_DIR) + "/onnx-backend-node";
  if (!is_dir(root)) GTEST_SKIP() << "no " << root;
  Counts c;
  read_suite(root, c);
  std::printf("onnx-backend-node: %d models, %d .pb files read (%d round trips), %d failures\n", c.models,
              c.pbs, c.roundtrips, c.failures);
  std::string dts;
  for (const auto& d : c.dtypes) dts += " " + d;
  std::printf("dtypes seen:%s\n", dts.c_str());
  std::printf("model-local functions: %d (%d attribute defaults); newest IR version: %d\n", c.functions,
              c.function_defaults, c.max_ir);
  EXPECT_EQ(c.failures, 0);
  EXPECT_GE(c.models, 1802);
  EXPECT_GE(c.pbs, 6201);
}

TEST(OnnxModel, LoadsEveryDebianTestdataModel) {
  const std::string root = "/usr/share/libonnx-testdata/data";
  if (!is_dir(root)) GTEST_SKIP() << "no " << root << " (libonnx-testdata)";
  Counts c;
  read_suite(root, c);
  std::printf("libonnx-testdata: %d models, %d .pb files read (%d round trips), %d failures\n", c.models,
              c.pbs, c.roundtrips, c.failures);
  EXPECT_EQ(c.failures, 0);
  EXPECT_GE(c.models, 1072);
  EXPECT_GE(c.pbs, 3205);
}

}  // namespace
}  // namespace plumb::onnx

namespace plumb::onnx {
namespace {

// Deterministic byte flips and cuts of real models and data files: every result is a value or a
// Status, never a crash (run under PLUMB_SANITIZE for the memory side).
TEST(OnnxModel, SurvivesCorruptedFiles) {
  const std::string root = std::string(PLUMB_SHARED_DIR) + "/onnx-backend-node";
  if (!is_dir(root)) GTEST_SKIP() << "no " << root;
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  auto next = [&]() {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
  };
  int tried = 0, rejected = 0;
  const auto tests = list_dir(root);
  for (size_t i = 0; i < tests.size(); i += 9) {
    const std::string dir = root + "/" + tests[i];
    for (const std::string& file : {dir + "/model.onnx", dir + "/test_data_set_0/input_0.pb"}) {
      auto bytes = read_file_bytes(file);
      if (!bytes || bytes->empty()) continue;
      for (int k = 0; k < 8; ++k) {
        std::string b = *bytes;
        if (k == 0) {
          b.resize(next() % b.size());
        } else {
          for (int f = 0; f < k; ++f) b[next() % b.size()] ^= static_cast<char>(1 + next() % 255);
        }
        ++tried;
        if (file.size() > 5 && file.substr(file.size() - 5) == ".onnx") {
          if (!parse_model(b, dir)) ++rejected;
        } else {
          auto kind = guess_data_kind(b);
          if (!kind || !parse_data_value(b, *kind)) ++rejected;
        }
      }
    }
  }
  std::printf("corrupted files: %d tried, %d rejected with a Status\n", tried, rejected);
  EXPECT_GT(tried, 1000);
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace plumb::onnx
