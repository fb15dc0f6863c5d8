#include "tools/session_options.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

}  // namespace

rt::SessionOptions session_options(const std::string& backend) {
  rt::SessionOptions o;
  o.backend = backend;
  o.extra_backends = cli_backends();
  if (verbose("dispatch")) o.on_schedule = [](const std::string& text) { std::fputs(text.c_str(), stderr); };
  return o;
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

}  // namespace plumb::cli
