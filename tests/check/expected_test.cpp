// Expected-value readers of `plumb check` (check/onnx/expected.cpp): base64, Polygraphy's
// JSON, and a folder mixing .pb/.npz/.json.
#include "check/onnx/expected.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "frontends/onnx/npy.h"

namespace plumb::check {
namespace {

std::string b64(const std::string& bytes) {  // independent encoder for the test
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    out += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], k[v & 63]};
  }
  if (i + 1 == bytes.size()) {
    const uint32_t v = uint8_t(bytes[i]) << 16;
    out += {k[v >> 18], k[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {
    const uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8);
    out += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], '='};
  }
  return out;
}

std::string npy_of(const std::vector<float>& v, std::vector<int64_t> dims) {
  std::vector<uint8_t> bytes(v.size() * 4);
  std::memcpy(bytes.data(), v.data(), bytes.size());
  auto s = onnx::serialize_npy(onnx::Tensor::owned("", ir::DType::F32, std::move(dims), std::move(bytes)));
  EXPECT_TRUE(s) << s.status().to_string();
  return s ? *s : std::string();
}

float at(const onnx::Tensor& t, size_t k) {
  float f;
  std::memcpy(&f, t.data + 4 * k, 4);
  return f;
}

TEST(CheckBase64, DecodesRfc4648Vectors) {
  EXPECT_EQ(*decode_base64(""), "");
  EXPECT_EQ(*decode_base64("Zg=="), "f");
  EXPECT_EQ(*decode_base64("Zm8="), "fo");
  EXPECT_EQ(*decode_base64("Zm9v"), "foo");
  EXPECT_EQ(*decode_base64("Zm9vYmFy"), "foobar");
  EXPECT_EQ(*decode_base64("Zm9v\nYmE="), "fooba");
}

TEST(CheckBase64, RejectsInvalidText) {
  EXPECT_FALSE(decode_base64("Zm9v!"));
  EXPECT_FALSE(decode_base64("Zg==Zg"));
  EXPECT_FALSE(decode_base64("Z"));
}

TEST(CheckPolygraphy, ReadsRunResultsWithLazyArrays) {
  const std::string a = b64(npy_of({1.5f, -2.0f, 3.25f}, {3}));
  const std::string b = b64(npy_of({7.0f}, {1, 1}));
  const std::string json =
      R"({"lst": [["onnxrt-runner-N0", [{"outputs": {"/fc1/Gemm_output_0": {"values": {"array": ")" + a +
      R"(", "polygraphy_class": "ndarray"}, "polygraphy_class": "LazyArray"}, "y": {"values": {"array": ")" +
      b +
      R"(", "polygraphy_class": "ndarray"}, "polygraphy_class": "LazyArray"}}, "runtime": 0.01,
      "runner_name": "onnxrt-runner-N0", "polygraphy_class": "IterationResult"}]],
      ["trt-runner-N0", []]], "polygraphy_class": "RunResults"})";
  auto ts = parse_polygraphy_json(json);
  ASSERT_TRUE(ts) << ts.status().to_string();
  ASSERT_EQ(ts->size(), 2u);
  EXPECT_EQ((*ts)[0].name, "/fc1/Gemm_output_0");
  EXPECT_EQ((*ts)[0].dims, (std::vector<int64_t>{3}));
  EXPECT_EQ(at((*ts)[0], 0), 1.5f);
  EXPECT_EQ(at((*ts)[0], 1), -2.0f);
  EXPECT_EQ(at((*ts)[0], 2), 3.25f);
  EXPECT_EQ((*ts)[1].name, "y");
  EXPECT_EQ((*ts)[1].dims, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(at((*ts)[1], 0), 7.0f);
}

TEST(CheckPolygraphy, ReadsPlainNdarraysAndSavedInputs) {
  const std::string a = b64(npy_of({4.0f, 5.0f}, {2}));
  auto outs = parse_polygraphy_json(R"({"lst": [["r", [{"outputs": {"t": {"array": ")" + a +
                                    R"(", "polygraphy_class": "ndarray"}}}]]]})");
  ASSERT_TRUE(outs) << outs.status().to_string();
  ASSERT_EQ(outs->size(), 1u);
  EXPECT_EQ(at((*outs)[0], 1), 5.0f);
  auto ins = parse_polygraphy_json(R"([{"x": {"array": ")" + a + R"(", "polygraphy_class": "ndarray"}}])");
  ASSERT_TRUE(ins) << ins.status().to_string();
  ASSERT_EQ(ins->size(), 1u);
  EXPECT_EQ((*ins)[0].name, "x");
}

TEST(CheckPolygraphy, MalformedJsonIsAnErrorNotACrash) {
  EXPECT_FALSE(parse_polygraphy_json(""));
  EXPECT_FALSE(parse_polygraphy_json("{\"lst\": [[\"r\", [{\"outputs\": {\"t\": {\"array\": \"QUJD"));
  EXPECT_FALSE(parse_polygraphy_json(std::string(100000, '[')));  // nesting is bounded
  EXPECT_FALSE(parse_polygraphy_json(R"({"lst": []})"));
  EXPECT_FALSE(parse_polygraphy_json(R"({"t": {"array": "QUJD"}})"));  // base64 of "ABC": not .npy
}

TEST(CheckExpected, ReadsAFolderMixingFormats) {
  char tmpl[] = "/tmp/plumb_check_expected_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::vector<uint8_t> bytes(8);
  const float v[2] = {1.0f, 2.0f};
  std::memcpy(bytes.data(), v, 8);
  ASSERT_TRUE(
      onnx::write_npz(dir + "/acts.npz", {onnx::Tensor::owned("a/b:0", ir::DType::F32, {2}, bytes)}).is_ok());
  std::ofstream(dir + "/p.json") << R"({"lst": [["r", [{"outputs": {"z": {"array": ")" +
                                        b64(npy_of({3.0f}, {1}))
                                 << R"("}}}]]]})";
  std::ofstream(dir + "/notes.txt") << "ignored";
  auto e = read_expected(dir);
  ASSERT_TRUE(e) << e.status().to_string();
  ASSERT_EQ(e->size(), 2u);
  EXPECT_EQ((*e)[0].name, "a/b:0");
  EXPECT_EQ((*e)[1].name, "z");
  EXPECT_EQ((*e)[1].output, -1);
  auto one = read_expected(dir + "/p.json");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->size(), 1u);
  EXPECT_FALSE(read_expected(dir + "/notes.txt"));
  std::remove((dir + "/acts.npz").c_str());
  std::remove((dir + "/p.json").c_str());
  std::remove((dir + "/notes.txt").c_str());
  ::rmdir(dir.c_str());
}

// .npy files named through names.json; the ONNX test layout's input_<k> / output_<k> only when the
// name is that exactly (output_logits.npy is a tensor called output_logits, not output 0).
TEST(CheckExpected, NamesJsonNamesNpyFilesAndTheLayoutIsExact) {
  char tmpl[] = "/tmp/plumb_check_names_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  for (const char* f : {"a.npy", "b.npy", "input_0.npy", "output_1.npy", "output_logits.npy"})
    std::ofstream(dir + "/" + f, std::ios::binary) << npy_of({1.0f}, {1});
  std::ofstream(dir + "/names.json") << R"({"a.npy": "/conv/Conv_output_0", "b": "x:0", "nothere.npy": "y"})";
  std::vector<std::string> ignored;
  auto e = read_expected(dir, &ignored);
  ASSERT_TRUE(e) << e.status().to_string();
  ASSERT_EQ(e->size(), 4u);  // input_0.npy is an input, names.json is no value
  EXPECT_EQ((*e)[0].name, "/conv/Conv_output_0");
  EXPECT_EQ((*e)[1].name, "x:0");
  EXPECT_EQ((*e)[2].output, 1);
  EXPECT_EQ((*e)[3].name, "output_logits");
  EXPECT_EQ((*e)[3].output, -1);
  ASSERT_EQ(ignored.size(), 1u);
  EXPECT_NE(ignored[0].find("nothere.npy"), std::string::npos);
  // Not a mapping: ignored with a note, the stems name the files.
  std::ofstream(dir + "/names.json") << R"({"a.npy": 3})";
  ignored.clear();
  e = read_expected(dir, &ignored);
  ASSERT_TRUE(e) << e.status().to_string();
  EXPECT_EQ((*e)[0].name, "a");
  ASSERT_EQ(ignored.size(), 1u);
  EXPECT_NE(ignored[0].find("not a {file.npy: tensor name} mapping"), std::string::npos);
  for (const char* f : {"a.npy", "b.npy", "input_0.npy", "output_1.npy", "output_logits.npy", "names.json"})
    std::remove((dir + "/" + f).c_str());
  ::rmdir(dir.c_str());
}

}  // namespace
}  // namespace plumb::check
