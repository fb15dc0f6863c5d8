// Helpers for the plumb::check tests: small f32 tensors, graphs from the text form, and a
// temporary folder holding a .plumb model with its input and expected files (.npy, named by ONNX
// tensor name as check/onnx/expected.h reads them).
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "check/npy.h"
#include "ir/save.h"
#include "ir/text.h"
#include "runtime/value.h"

namespace plumb::check::testing {

inline rt::RtValue f32(std::vector<int64_t> shape, const std::vector<float>& data) {
  rt::Tensor t = rt::Tensor::allocate(ir::DType::F32, std::move(shape));
  if (!data.empty()) std::memcpy(t.data, data.data(), data.size() * sizeof(float));
  return rt::RtValue(std::move(t));
}

inline std::vector<float> floats(const rt::RtValue& v) {
  const rt::Tensor& t = v.tensor();
  return std::vector<float>(t.as<float>(), t.as<float>() + t.numel());
}

inline std::vector<double> doubles(const rt::RtValue& v) {
  const rt::Tensor& t = v.tensor();
  return std::vector<double>(t.as<double>(), t.as<double>() + t.numel());
}

inline ir::Graph graph_of(const std::string& text) {
  auto g = ir::parse_graph(text);
  EXPECT_TRUE(g.has_value()) << g.status().to_string();
  return g ? std::move(*g) : ir::Graph{};
}

// A fresh folder under $TMPDIR (or /tmp), removed with its files at destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base && *base ? base : "/tmp") + "/plumb_check_test.XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    path_ = ::mkdtemp(buf.data()) ? std::string(buf.data()) : std::string();
  }
  ~TempDir() {
    if (!path_.empty()) std::system(("rm -rf '" + path_ + "'").c_str());  // NOLINT(cert-env33-c)
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

  // Writes `text` as model.plumb; returns its path.
  std::string model(const std::string& text) const {
    const std::string f = file("model.plumb");
    const Status s = ir::save_file(graph_of(text), f);
    EXPECT_TRUE(s.is_ok()) << s.to_string();
    return f;
  }
  static void write_npy_file(const std::string& path, const rt::RtValue& v) {
    const Status s = write_npy(path, v.tensor());
    EXPECT_TRUE(s.is_ok()) << s.to_string();
  }

 private:
  std::string path_;
};

}  // namespace plumb::check::testing
