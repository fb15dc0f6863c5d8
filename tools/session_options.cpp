#include "tools/session_options.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

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

}  // namespace plumb::cli
