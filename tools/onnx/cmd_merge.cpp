// plumb merge FILE...: the JSONL results of a sharded run (plumb check-many --shard i/n), merged
// into what the unsharded run prints: every line starts with {"index":K, and the merged output is
// the lines sorted by K. A missing file, a line without an index, or an index given twice is an
// error (two shards of different runs, or one shard twice).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include "tools/commands.h"

namespace plumb::cli {

int cmd_merge(const Args& args) {
  if (args.empty()) return report_error("merge", invalid_input("usage: plumb merge FILE..."));
  std::map<uint64_t, std::string> lines;
  static const std::string kPrefix = "{\"index\":";
  for (const std::string& file : args) {
    std::ifstream in(file);
    if (!in) return report_error(file, invalid_input("cannot read the file"));
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      char* end = nullptr;
      const bool has = line.compare(0, kPrefix.size(), kPrefix) == 0;
      const unsigned long long k = has ? std::strtoull(line.c_str() + kPrefix.size(), &end, 10) : 0;
      if (!has || end == line.c_str() + kPrefix.size() || *end != ',')
        return report_error(file, invalid_input(strfmt("line %d does not start with {\"index\":K,", n)));
      if (!lines.emplace(k, line).second)
        return report_error(file, invalid_input(strfmt("line %d: index %llu given twice", n, k)));
    }
  }
  for (const auto& [k, line] : lines) std::printf("%s\n", line.c_str());
  return 0;
}

}  // namespace plumb::cli
