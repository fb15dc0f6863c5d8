#include "tools/shard.h"

#include <cstdlib>

namespace plumb::cli {

Status parse_u64(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi, uint64_t& out) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || v < lo || v > hi)
    return invalid_input(flag + " needs a whole number from " + std::to_string(lo) + " to " +
                         std::to_string(hi) + ", got '" + text + "'");
  out = v;
  return Status::ok();
}

Status parse_shard(const std::string& text, uint64_t& index, uint64_t& count) {
  const size_t slash = text.find('/');
  if (slash == std::string::npos) return invalid_input("--shard needs i/n, got '" + text + "'");
  Status st = parse_u64("--shard's n", text.substr(slash + 1), 1, 1u << 20, count);
  if (st.is_ok()) st = parse_u64("--shard's i", text.substr(0, slash), 0, count - 1, index);
  return st;
}

}  // namespace plumb::cli
