// The session options the commands start from: the backend by name, among this library's and
// this program's own (cli_backends), and PLUMB_VERBOSE (a comma-separated list): with
// "dispatch", every schedule a session makes is printed to stderr (runtime/schedule.h
// describe_schedule: each step, each fallback with its reason, each copy), with "memory" the
// peak of the command's memory budget (report_memory); the --threads option every command that
// runs graphs takes (SessionOptions::threads), and --max-memory (SessionOptions::memory, one
// budget per command), with the other options plumb run and plumb bench share.
#pragma once

#include <string>
#include <vector>

#include "ir/status.h"
#include "runtime/session.h"

namespace plumb::cli {

// Backends this program links in beyond the library's table: none in `plumb` (tools/main.cpp's
// weak default); tests/backends/cli_backends.cpp gives the tests' plumb_testbackend its "test".
std::vector<rt::BackendEntry> cli_backends();

// threads = 1: the conformance commands' default (their -j runs tests side by side); memory: a
// budget of default_max_memory() bytes.
rt::SessionOptions session_options(const std::string& backend);

// The default of --max-memory (plumb run, bench and check): half the machine's physical memory
// (sysconf's pages times the page size), or 16 GiB where the system does not say.
int64_t default_max_memory();

// --max-memory BYTES: a non-negative integer, optionally followed by K, M, G or T (powers of
// 1024), else an InvalidInput naming the flag and the text.
Status parse_max_memory(const std::string& text, int64_t& bytes);

// With PLUMB_VERBOSE=memory (or all): `plumb: memory: peak P bytes of the budget of L` on
// stderr, P the most bytes the command held at once (the smallest --max-memory it runs in).
void report_memory(const rt::MemoryBudget* budget);

// The default of --threads in plumb run and plumb check: the machine's cores (at least 1).
int machine_threads();

// --threads N: N an integer from 1 to 1024, else an InvalidInput naming the flag and the text.
Status parse_threads(const std::string& text, int& threads);

// Consumes args[i] (and its value) when it is one of the session options of plumb run and plumb
// bench: --backend B, --precise, --threads N, --max-iterations N, --max-bytes N, --max-memory
// BYTES (a new budget). 1 taken, 0 not ours, -1 a usage error (a missing value), or an
// InvalidInput error naming the flag and the text.
Expected<int> take_session_arg(const std::vector<std::string>& args, size_t& i, rt::SessionOptions& o);

}  // namespace plumb::cli
