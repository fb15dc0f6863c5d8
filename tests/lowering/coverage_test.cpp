// spec/onnx_coverage.md is rendered from the lowering registry, libonnx 1.12's schemas and the
// newest ONNX backend node suite; this test fails when the checked-in copy is stale.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lowering/onnx/coverage.h"

namespace plumb::lower {
namespace {

TEST(OnnxCoverage, UpToDate) {
  const std::string suite = std::string(PLUMB_SHARED_DIR) + "/onnx-backend-node";
  // The page lists the suite's since-versions; without the suite it cannot be rendered the same.
  if (!std::filesystem::is_directory(suite)) GTEST_SKIP() << "no ONNX backend node suite at " << suite;
  const std::string path = std::string(PLUMB_SOURCE_DIR) + "/spec/onnx_coverage.md";
  auto fresh = onnx_coverage_markdown(suite);
  ASSERT_TRUE(fresh.has_value()) << fresh.status().to_string();
  if (const char* u = std::getenv("PLUMB_UPDATE_GOLDEN"); u && std::string(u) == "1")
    std::ofstream(path) << *fresh;
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), *fresh) << path << " is stale: regenerate it with PLUMB_UPDATE_GOLDEN=1";
}

// The sources combine as the page's header says: libonnx decides below its newest opset, the suite
// and the rules add versions above it, and a rule's range decides the status.
TEST(OnnxCoverage, SourcesAndStatus) {
  Registry r;
  r.add("Relu", {6, 28}, nullptr);
  r.add("Softmax", {13, 28}, nullptr);
  CoverageVersions v;
  v.schema_max_opset[""] = 17;
  v.versions[{"", "Relu", 1}] = kFromOnnxSchemas;
  v.versions[{"", "Relu", 6}] = kFromOnnxSchemas | kFromRule;
  v.versions[{"", "Relu", 14}] = kFromOnnxSchemas;
  v.versions[{"", "Relu", 10}] = kFromSuite;  // pinned by a test, not a since-version
  v.versions[{"", "Relu", 25}] = kFromSuite;
  v.versions[{"", "Softmax", 1}] = kFromOnnxSchemas;
  v.versions[{"", "Softmax", 13}] = kFromOnnxSchemas | kFromRule;
  v.versions[{"", "Shrink", 9}] = kFromOnnxSchemas;
  v.versions[{"", "Softmax", 30}] = kFromSuite;
  v.deprecated.insert({"", "Softmax", 30});
  const std::string md = render_coverage_markdown(r, v);
  EXPECT_NE(md.find("| Relu | 1 | **not lowered** | no rule covers opset 1 (rules: [6, 28]) | onnx 1.12 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| Relu | 6 | lowered | [6, 28] | onnx 1.12, rule |"), std::string::npos);
  EXPECT_EQ(md.find("| Relu | 10 |"), std::string::npos);
  EXPECT_NE(md.find("| Relu | 25 | lowered | [6, 28] | suite |"), std::string::npos);
  EXPECT_NE(md.find("| Shrink | 9 | **not lowered** | no rule for this op | onnx 1.12 |"), std::string::npos);
  EXPECT_NE(
      md.find("| Softmax | 30 | **not lowered** | deprecated: ONNX removed the op at this version | suite |"),
      std::string::npos);
  EXPECT_NE(md.find("| ai.onnx | 8 | 4 | 4 |"), std::string::npos);
}

}  // namespace
}  // namespace plumb::lower
