#include "tools/session_options.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <thread>

namespace plumb::cli {
namespace {

bool verbose(const std::string& what) {
  const char* env = std::getenv("PLUMB_VERBOSE");
  if (!env) return false;
  std::istringstream list(env);
  for (std::string item; std::getline(list, item, ',');)
    if (item == what || item == "all") return true;
  return false;
}

Status parse_count(const std::string& flag, const std::string& text, int64_t& out) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 0)
    return invalid_input(flag + " needs a non-negative integer, got '" + text + "'");
  out = v;
  return Status::ok();
}

}  // namespace

rt::SessionOptions session_options(const std::string& backend) {
  rt::SessionOptions o;
  o.backend = backend;
  o.extra_backends = cli_backends();
  o.memory = std::make_shared<rt::MemoryBudget>(default_max_memory());
  if (verbose("dispatch")) o.on_schedule = [](const std::string& text) { std::fputs(text.c_str(), stderr); };
  return o;
}

int64_t default_max_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return int64_t{16} << 30;
  return static_cast<int64_t>(pages) / 2 * static_cast<int64_t>(page);
}

Status parse_max_memory(const std::string& text, int64_t& bytes) {
  const Status bad = invalid_input(
      "--max-memory needs a number of bytes (optionally with K, M, G or T), got '" + text + "'");
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 18) return bad;
  const std::string suffix = text.substr(digits);
  int shift = 0;
  if (suffix == "K")
    shift = 10;
  else if (suffix == "M")
    shift = 20;
  else if (suffix == "G")
    shift = 30;
  else if (suffix == "T")
    shift = 40;
  else if (!suffix.empty())
    return bad;
  const long long v = std::strtoll(text.substr(0, digits).c_str(), nullptr, 10);
  if (v > (INT64_MAX >> shift)) return bad;
  bytes = static_cast<int64_t>(v) << shift;
  return Status::ok();
}

void report_memory(const rt::MemoryBudget* budget) {
  if (!budget || !verbose("memory")) return;
  std::fprintf(stderr, "plumb: memory: peak %lld bytes of the budget of %lld\n", (long long)budget->peak(),
               (long long)budget->limit());
}

int machine_threads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

Status parse_threads(const std::string& text, int& threads) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 1 || v > 1024)
    return invalid_input("--threads needs an integer from 1 to 1024, got '" + text + "'");
  threads = static_cast<int>(v);
  return Status::ok();
}

Expected<int> take_session_arg(const std::vector<std::string>& args, size_t& i, rt::SessionOptions& o) {
  const std::string& a = args[i];
  const bool valued = a == "--backend" || a == "--threads" || a == "--max-iterations" || a == "--max-bytes" ||
                      a == "--max-memory";
  if (!valued) {
    if (a != "--precise") return 0;
    o.mode = rt::NumericMode::kPrecise;
    return 1;
  }
  if (i + 1 >= args.size()) return -1;
  const std::string& v = args[++i];
  Status st = Status::ok();
  if (a == "--backend")
    o.backend = v;
  else if (a == "--threads")
    st = parse_threads(v, o.threads);
  else if (a == "--max-iterations")
    st = parse_count(a, v, o.max_while_iterations);
  else if (a == "--max-memory") {
    int64_t bytes = 0;
    st = parse_max_memory(v, bytes);
    if (st.is_ok()) o.memory = std::make_shared<rt::MemoryBudget>(bytes);
  } else
    st = parse_count(a, v, o.max_bytes);
  if (!st.is_ok()) return st;
  return 1;
}

}  // namespace plumb::cli
