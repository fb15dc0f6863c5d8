// The spec's labels are covered by tests, and every op has its page (STYLE.md 2.9, 2.10).
//
// SpecLabels.AllCovered: every label `<mnemonic>.C<n>` / `<mnemonic>.R<n>` written anywhere in
// spec/ops/*.md (for a mnemonic of spec/ops.def) needs a test in tests/ whose suite is
// `Infer<Enum>` or `Verify<Enum>` (C-labels) or `Ref<Enum>` (R-labels) and whose name starts with
// `C<n>` / `R<n>` (not followed by another digit): e.g. gather.R1 <- TEST(RefGather, R1IndexOutOfRange).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool digit(char c) { return c >= '0' && c <= '9'; }

// mnemonic -> ops.def enum name
std::map<std::string, std::string> ops_by_mnemonic() {
  std::map<std::string, std::string> m;
#define PLUMB_OP(Enum, mnemonic, ...) m[mnemonic] = #Enum;
#include "spec/ops.def"
  return m;
}

struct Label {
  std::string mnemonic;
  char letter;  // 'C' or 'R'
  int number;
  bool operator<(const Label& o) const {
    return std::tie(mnemonic, letter, number) < std::tie(o.mnemonic, o.letter, o.number);
  }
  std::string str() const { return mnemonic + "." + letter + std::to_string(number); }
};

// Every `<ident>.C<n>` / `<ident>.R<n>` in `text` whose ident is a core op mnemonic.
std::vector<Label> labels_in(const std::string& text, const std::map<std::string, std::string>& ops) {
  std::vector<Label> out;
  for (size_t dot = 1; dot + 2 < text.size(); ++dot) {
    if (text[dot] != '.' || (text[dot + 1] != 'C' && text[dot + 1] != 'R') || !digit(text[dot + 2])) continue;
    size_t begin = dot;
    while (begin > 0 && ident_char(text[begin - 1])) --begin;
    if (begin == dot || (begin > 0 && text[begin - 1] == '.')) continue;
    size_t end = dot + 2;
    while (end < text.size() && digit(text[end])) ++end;
    if (end < text.size() && ident_char(text[end])) continue;
    const std::string mnemonic = text.substr(begin, dot - begin);
    if (!ops.count(mnemonic) || end - (dot + 2) > 4) continue;
    out.push_back(Label{mnemonic, text[dot + 1], std::stoi(text.substr(dot + 2, end - dot - 2))});
  }
  return out;
}

// (suite, name) of every TEST / TEST_F / TEST_P in `text`.
std::vector<std::pair<std::string, std::string>> tests_in(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  auto skip_space = [&](size_t i) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    return i;
  };
  auto ident = [&](size_t& i) {
    const size_t b = i;
    while (i < text.size() && ident_char(text[i])) ++i;
    return text.substr(b, i - b);
  };
  for (size_t at = text.find("TEST"); at != std::string::npos; at = text.find("TEST", at + 4)) {
    if (at > 0 && ident_char(text[at - 1])) continue;
    size_t i = at + 4;
    if (text.compare(i, 2, "_F") == 0 || text.compare(i, 2, "_P") == 0) i += 2;
    if (i >= text.size() || text[i] != '(') continue;
    i = skip_space(i + 1);
    const std::string suite = ident(i);
    i = skip_space(i);
    if (i >= text.size() || text[i] != ',') continue;
    i = skip_space(i + 1);
    const std::string name = ident(i);
    if (!suite.empty() && !name.empty()) out.emplace_back(suite, name);
  }
  return out;
}

std::vector<fs::path> files_under(const fs::path& dir, const std::vector<std::string>& exts) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const std::string ext = it->path().extension().string();
    if (std::find(exts.begin(), exts.end(), ext) != exts.end()) out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

const fs::path kSource = PLUMB_SOURCE_DIR;

TEST(SpecLabels, ParsersFindLabelsAndTests) {
  const auto ops = ops_by_mnemonic();
  const std::vector<Label> found = labels_in(
      "- `gather.R1`: x; arg_reduce.C12, (shape_of.C2) not.C1 graph.V1 xgather.C1 gather.C1x a.gather.C3",
      ops);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].str(), "gather.R1");
  EXPECT_EQ(found[1].str(), "arg_reduce.C12");
  EXPECT_EQ(found[2].str(), "shape_of.C2");
  const auto tests = tests_in("TEST(RefGather, R1Oob) {}\nTEST_F( InferIf ,\n C2X)\nMY_TEST(A, B) TEST(x)");
  ASSERT_EQ(tests.size(), 2u);
  EXPECT_EQ(tests[0], (std::pair<std::string, std::string>{"RefGather", "R1Oob"}));
  EXPECT_EQ(tests[1], (std::pair<std::string, std::string>{"InferIf", "C2X"}));
}

TEST(SpecLabels, AllCovered) {
  const auto ops = ops_by_mnemonic();
  std::set<Label> labels;
  std::map<std::string, std::string> where;
  for (const fs::path& page : files_under(kSource / "spec" / "ops", {".md"}))
    for (const Label& l : labels_in(read_text(page), ops))
      if (labels.insert(l).second) where[l.str()] = page.filename().string();
  // Covered: (suite, letter, number) from the test names.
  std::set<std::tuple<std::string, char, int>> covered;
  for (const fs::path& file : files_under(kSource / "tests", {".cpp", ".cc", ".h"}))
    for (const auto& [suite, name] : tests_in(read_text(file))) {
      if (name.size() < 2 || (name[0] != 'C' && name[0] != 'R') || !digit(name[1])) continue;
      size_t end = 1;
      while (end < name.size() && digit(name[end])) ++end;
      if (end - 1 > 4) continue;
      covered.emplace(suite, name[0], std::stoi(name.substr(1, end - 1)));
    }
  std::vector<std::string> missing;
  for (const Label& l : labels) {
    const std::string& e = ops.at(l.mnemonic);
    const bool ok = l.letter == 'C' ? covered.count({"Infer" + e, 'C', l.number}) ||
                                          covered.count({"Verify" + e, 'C', l.number})
                                    : covered.count({"Ref" + e, 'R', l.number}) > 0;
    if (!ok)
      missing.push_back(l.str() + " (" + where[l.str()] + "): needs TEST(" +
                        (l.letter == 'C' ? "Infer" + e + " or Verify" + e : "Ref" + e) + ", " + l.letter +
                        std::to_string(l.number) + "...)");
  }
  std::string list;
  for (const std::string& m : missing) list += "\n  " + m;
  EXPECT_TRUE(missing.empty()) << missing.size() << " of " << labels.size()
                               << " spec labels have no test:" << list;
}

// Each page numbers its own op's labels from 1 without gaps (spec page format).
TEST(SpecLabels, NumberedWithoutGaps) {
  const auto ops = ops_by_mnemonic();
  std::string problems;
  for (const auto& [mnemonic, e] : ops) {
    const fs::path page = kSource / "spec" / "ops" / (mnemonic + ".md");
    if (!fs::exists(page)) continue;  // SpecPages.OnePerOp reports it
    std::map<char, std::set<int>> numbers;
    for (const Label& l : labels_in(read_text(page), ops))
      if (l.mnemonic == mnemonic) numbers[l.letter].insert(l.number);
    for (const auto& [letter, set] : numbers) {
      int expect = 1;
      for (int n : set) {
        if (n != expect) {
          problems += "\n  " + mnemonic + ".md: " + letter + std::to_string(expect) + " is missing";
          break;
        }
        ++expect;
      }
    }
  }
  EXPECT_TRUE(problems.empty()) << "label numbering gaps:" << problems;
}

TEST(SpecPages, OnePerOp) {
  const std::vector<std::string> kHeadings = {"## Semantics", "## Operands",    "## Attributes",
                                              "## Results",   "## Constraints", "## Runtime errors",
                                              "## Dtypes",    "## Example"};
  std::string problems;
  for (const auto& [mnemonic, e] : ops_by_mnemonic()) {
    const fs::path page = kSource / "spec" / "ops" / (mnemonic + ".md");
    if (!fs::exists(page)) {
      problems += "\n  " + mnemonic + ": spec/ops/" + mnemonic + ".md is missing";
      continue;
    }
    const std::string text = read_text(page);
    if (text.rfind("# " + mnemonic + "\n", 0) != 0)
      problems += "\n  " + mnemonic + ".md: first line is not '# " + mnemonic + "'";
    // The headings, each on a line of its own, in this order.
    size_t from = 0;
    for (const std::string& h : kHeadings) {
      size_t at = text.find("\n" + h + "\n", from);
      if (at == std::string::npos) {
        problems += "\n  " + mnemonic + ".md: no '" + h + "' after the previous section";
        break;
      }
      from = at + h.size() + 1;
    }
  }
  EXPECT_TRUE(problems.empty()) << "spec pages:" << problems;
}

}  // namespace
