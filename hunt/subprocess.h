// Running a user's shell command with a time limit (`plumb reduce --predicate`): /bin/sh -c CMD in
// its own process group, killed as a group when the limit passes.
#pragma once

#include <string>

#include "ir/status.h"

namespace plumb::hunt {

struct CommandResult {
  int exit_code = -1;      // the exit status; 128 + N when killed by signal N
  bool timed_out = false;  // killed after the limit (exit_code is then 128 + SIGKILL)
};

// Runs `command` with /bin/sh -c, its stdout and stderr sent to `log` (a file, truncated; "" for
// /dev/null). An error only when the process cannot be started.
Expected<CommandResult> run_shell(const std::string& command, double timeout_s, const std::string& log);

// `s` quoted for /bin/sh ('...' with embedded quotes escaped).
std::string shell_quote(const std::string& s);

}  // namespace plumb::hunt
