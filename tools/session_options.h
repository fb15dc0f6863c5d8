// The session options the commands start from: the backend by name, among this library's and
// this program's own (cli_backends), and PLUMB_VERBOSE (a comma-separated list): with
// "dispatch", every schedule a session makes is printed to stderr (runtime/schedule.h
// describe_schedule: each step, each fallback with its reason, each copy).
#pragma once

#include <string>
#include <vector>

#include "runtime/session.h"

namespace plumb::cli {

// Backends this program links in beyond the library's table: none in `plumb` (tools/main.cpp's
// weak default); tests/backends/cli_backends.cpp gives the tests' plumb_testbackend its "test".
std::vector<rt::BackendEntry> cli_backends();

rt::SessionOptions session_options(const std::string& backend);

}  // namespace plumb::cli
