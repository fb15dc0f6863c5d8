// The one error line of the CLI (DESIGN.md §7, STYLE.md 2.8).
#include <cstdio>
#include <string>

#include "tools/commands.h"

namespace plumb::cli {

namespace {
// Keeps the report on one line whatever a message holds.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}
}  // namespace

int report_error(const std::string& file, const Status& s) {
  std::string line = "plumb: ";
  // A status whose place already starts with the file (a loader put it there) names it once.
  const bool named = !s.is_ok() && s.place().compare(0, file.size(), file) == 0 &&
                     (s.place().size() == file.size() || s.place()[file.size()] == ':');
  if (!file.empty() && !named) line += file + ": ";
  line += s.is_ok() ? std::string("unknown error") : s.to_string();
  std::fprintf(stderr, "%s\n", one_line(line).c_str());
  return 2;
}

}  // namespace plumb::cli
