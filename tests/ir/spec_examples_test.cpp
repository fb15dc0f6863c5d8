// Every spec/ops/<op>.md Example block (```plumb) parses and verifies (STYLE.md 2.9). The test
// names each page that fails and why.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "ir/text.h"
#include "ir/verify.h"

namespace plumb::ir {
namespace {

std::vector<std::string> op_pages() {
  std::vector<std::string> pages;
  const std::string dir = std::string(PLUMB_SOURCE_DIR) + "/spec/ops";
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() > 3 && name.compare(name.size() - 3, 3, ".md") == 0) pages.push_back(dir + "/" + name);
    }
    closedir(d);
  }
  std::sort(pages.begin(), pages.end());
  return pages;
}

// The ```plumb blocks of a page (the text between the fence lines).
std::vector<std::string> plumb_blocks(const std::string& text) {
  std::vector<std::string> blocks;
  std::istringstream in(text);
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line.rfind("```plumb", 0) == 0) {
      inside = true;
      block.clear();
    } else if (inside && line.rfind("```", 0) == 0) {
      inside = false;
      blocks.push_back(block);
    } else if (inside) {
      block += line + "\n";
    }
  }
  return blocks;
}

TEST(SpecExamples, ParseAndVerify) {
  const auto pages = op_pages();
  if (pages.empty()) GTEST_SKIP() << "no spec/ops/*.md pages yet";
  std::string failures;
  int checked = 0;
  for (const std::string& page : pages) {
    std::ifstream f(page);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string name = page.substr(page.find_last_of('/') + 1);
    const auto blocks = plumb_blocks(ss.str());
    if (blocks.empty()) {
      failures += name + ": no ```plumb example block\n";
      continue;
    }
    for (size_t i = 0; i < blocks.size(); ++i) {
      ++checked;
      auto g = parse_graph(blocks[i]);
      if (!g) {
        failures += name + " block " + std::to_string(i) + ": parse: " + g.status().to_string() + "\n";
        continue;
      }
      const Status v = verify(*g);
      if (!v) failures += name + " block " + std::to_string(i) + ": verify: " + v.to_string() + "\n";
    }
  }
  EXPECT_TRUE(failures.empty()) << "spec examples failing (" << checked << " blocks checked):\n" << failures;
}

}  // namespace
}  // namespace plumb::ir
