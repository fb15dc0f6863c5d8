#include "hunt/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace plumb::hunt {

Expected<CommandResult> run_shell(const std::string& command, double timeout_s, const std::string& log) {
  const std::string out = log.empty() ? std::string("/dev/null") : log;
  const pid_t pid = ::fork();
  if (pid < 0) return internal_error("cannot fork to run the predicate");
  if (pid == 0) {
    ::setpgid(0, 0);  // its own group, so a timeout kills what it started too
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here: whichever runs first
  CommandResult r;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    int ws = 0;
    const pid_t got = ::waitpid(pid, &ws, WNOHANG);
    if (got == pid) {
      r.exit_code = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
      return r;
    }
    if (got < 0) return internal_error("lost the predicate's process");
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &ws, 0);
      r.timed_out = true;
      r.exit_code = 128 + SIGKILL;
      return r;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(20));
  }
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace plumb::hunt
