// The one error line of the CLI (DESIGN.md §7, STYLE.md 2.8).
#include <cstdio>
#include <string>

#include "ir/utf8.h"
#include "tools/commands.h"

namespace plumb::cli {

namespace {
// Keeps the report on one line whatever a message holds: line breaks become spaces, other control
// bytes and bytes that are not UTF-8 (a hostile model's names) \xNN.
std::string one_line(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t len = ir::utf8_length(s, i);
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if (len == 0 || (c < 0x20 && c != '\t') || c == 0x7F) {
      out += strfmt("\\x%02X", c);
    } else {
      out.append(s, i, len);
      i += len;
      continue;
    }
    ++i;
  }
  return out;
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
