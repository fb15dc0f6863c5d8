#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "ir/op_table_md.h"

namespace plumb::ir {
namespace {

TEST(SpecTables, UpToDate) {
  const std::string path = std::string(PLUMB_SOURCE_DIR) + "/spec/op_table.md";
  const std::string fresh = render_op_table_markdown();
  if (const char* u = std::getenv("PLUMB_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::ofstream(path) << fresh;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), fresh) << path << " is stale: regenerate it with PLUMB_UPDATE_GOLDEN=1";
}

}  // namespace
}  // namespace plumb::ir
