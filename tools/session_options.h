// The session options the commands start from: the backend by name, among this library's and
// this program's own (cli_backends), and PLUMB_VERBOSE (a comma-separated list): with
// "dispatch", every schedule a session makes is printed to stderr (runtime/schedule.h
// describe_schedule: each step, each fallback with its reason, each copy); and the --threads
// option every command that runs graphs takes (SessionOptions::threads), with the other options
// plumb run and plumb bench share.
#pragma once

#include <string>
#include <vector>

#include "ir/status.h"
#include "runtime/session.h"

namespace plumb::cli {

// Backends this program links in beyond the library's table: none in `plumb` (tools/main.cpp's
// weak default); tests/backends/cli_backends.cpp gives the tests' plumb_testbackend its "test".
std::vector<rt::BackendEntry> cli_backends();

// threads = 1: the conformance commands' default (their -j runs tests side by side).
rt::SessionOptions session_options(const std::string& backend);

// The default of --threads in plumb run and plumb check: the machine's cores (at least 1).
int machine_threads();

// --threads N: N an integer from 1 to 1024, else an InvalidInput naming the flag and the text.
Status parse_threads(const std::string& text, int& threads);

// Consumes args[i] (and its value) when it is one of the session options of plumb run and plumb
// bench: --backend B, --precise, --threads N, --max-iterations N, --max-bytes N. 1 taken, 0 not
// ours, -1 a usage error (a missing value), or an InvalidInput error naming the flag and the text.
Expected<int> take_session_arg(const std::vector<std::string>& args, size_t& i, rt::SessionOptions& o);

}  // namespace plumb::cli
