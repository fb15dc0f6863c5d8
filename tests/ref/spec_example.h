// Shared by the ref kernel tests: the Example block of a spec page (spec/ops/<op>.md) parses,
// runs on ref, and gives the values of its `// expect k = <literal>` lines for the inputs of its
// `// input %name = <literal>` lines.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ir/text.h"
#include "runtime/session.h"

namespace plumb::rt::testing {

inline std::string read_spec_page(const std::string& op) {
  std::ifstream f(std::string(PLUMB_SOURCE_DIR) + "/spec/ops/" + op + ".md");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A `dense<T>[...]` literal evaluated through a one-constant graph (the text parser and the
// executor's constant path).
inline Expected<RtValue> spec_literal(const std::string& lit) {
  const size_t open = lit.find("dense<"), close = lit.find(">[");
  if (open == std::string::npos || close == std::string::npos) return invalid_input("bad literal " + lit);
  const std::string type = lit.substr(open + 6, close - open - 6);
  auto g = ir::parse_graph("plumb 1\nfunc @main() -> (" + type + ") {\n  %c = constant {value = " + lit +
                           "} : " + type + "\n  return %c\n}\n");
  if (!g) return g.status();
  auto s = Session::create(std::move(*g));
  if (!s) return s.status();
  PLUMB_RETURN_IF_ERROR((*s)->run());
  return (*s)->outputs()[0];
}

// Runs op's example; `same(got, want)` compares each expected output.
template <typename Same>
void expect_spec_example(const std::string& op, Same same) {
  const std::string page = read_spec_page(op);
  const size_t b = page.find("```plumb\n"), e = page.find("```", b + 9);
  ASSERT_TRUE(b != std::string::npos && e != std::string::npos) << op;
  const std::string block = page.substr(b + 9, e - b - 9);
  auto g = ir::parse_graph(block);
  ASSERT_TRUE(g.has_value()) << op << ": " << g.status().to_string();
  auto s = Session::create(std::move(*g));
  ASSERT_TRUE(s.has_value()) << op << ": " << s.status().to_string();
  std::istringstream lines(block);
  std::string line;
  std::vector<std::pair<size_t, std::string>> expects;
  while (std::getline(lines, line)) {
    if (line.rfind("// input %", 0) == 0) {
      const std::string name = line.substr(10, line.find(' ', 10) - 10);
      auto v = spec_literal(line.substr(line.find('=') + 2));
      ASSERT_TRUE(v.has_value()) << op << ": " << v.status().to_string();
      ASSERT_TRUE((*s)->set_input(name, std::move(*v)).is_ok()) << op << ": input " << name;
    } else if (line.rfind("// expect ", 0) == 0) {
      expects.emplace_back(std::stoul(line.substr(10)), line.substr(line.find('=') + 2));
    }
  }
  const Status st = (*s)->run();
  ASSERT_TRUE(st.is_ok()) << op << ": " << st.to_string();
  ASSERT_FALSE(expects.empty()) << op;
  for (const auto& [k, lit] : expects) {
    auto want = spec_literal(lit);
    ASSERT_TRUE(want.has_value()) << op << ": " << want.status().to_string();
    EXPECT_TRUE(same((*s)->output(k).tensor(), want->tensor()))
        << op << ": output " << k << " is not " << lit;
  }
}

}  // namespace plumb::rt::testing
