// plumb conformance SUITE_DIR [--filter REGEX] [--csv FILE] [-j N] [--threads N] [--timeout S] [--backend
// ref]
//                             [--known-failures FILE] [--digest FILE] [-v]
// Runs every test folder of an ONNX backend suite (model.onnx + test_data_set_*/input_<k>.pb,
// output_<k>.pb) through plumb: load, lower, verify, run on the backend, compare with the ONNX
// defaults (rtol 1e-3, atol 1e-7; integers, bools and strings exact). Each test runs in its own
// process, so a crash or a hang (timeout) fails that test and the run goes on. Ends with
// `N passed, N failed, N skipped`. With --known-failures, listed tests that fail are counted as
// skipped (with the file's reason), and a listed test that passes fails the run: the list only
// shrinks. --digest FILE writes `<test> <digest>` per test: the digest of every output of every
// data set (tools/value_digest.h), "-" where the model did not run to the end; two runs gave
// byte-identical outputs exactly when their digest files are equal.
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "check/compare.h"
#include "check/onnx/values_io.h"
#include "frontends/onnx/model.h"
#include "lowering/onnx/driver.h"
#include "runtime/ref_evaluator.h"
#include "runtime/session.h"
#include "tools/commands.h"
#include "tools/session_options.h"
#include "tools/value_digest.h"

namespace plumb::cli {

namespace {

using check::compare;
using check::Comparison;
using check::to_runtime;
using check::Tolerance;

struct Options {
  std::string suite;
  std::string filter;
  std::string csv;
  std::string known_failures;
  std::string digest;
  std::string backend = "ref";
  int jobs = 1;
  int threads = 1;  // SessionOptions::threads of each test's session
  int timeout_s = 300;
  bool verbose = false;
};

enum class Outcome { kPass, kFail, kSkip };

struct Result {
  std::string test;
  Outcome outcome = Outcome::kFail;
  std::string reason;  // one line
  std::string digest = "-";
};

bool is_dir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool is_file(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n != "." && n != "..") names.push_back(n);
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (s.size() > 400) s = s.substr(0, 400) + "...";
  return s;
}

std::string error_kind(const Status& s) {
  switch (s.code()) {
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kInvalidModel: return "invalid model";
    case ErrorCode::kInvalidInput: return "invalid input";
    case ErrorCode::kRuntimeError: return "runtime error";
    default: return "internal error";
  }
}

// One test, in the current process.
Result run_test(const Options& o, const std::string& name) {
  Result r{name, Outcome::kFail, ""};
  const std::string dir = o.suite + "/" + name;
  auto fail = [&](const std::string& stage, const Status& s) {
    r.reason = stage + ": " + error_kind(s) + ": " + one_line(s.to_string());
    return r;
  };
  auto model = onnx::load_model(dir + "/model.onnx");
  if (!model) return fail("load", model.status());
  const std::vector<const onnx::OnnxValueInfo*> inputs = model->graph.real_inputs();
  int sets = 0;
  uint64_t digest = kDigestSeed;
  std::string mismatch;
  for (const std::string& set : list_dir(dir)) {
    if (set.rfind("test_data_set_", 0) != 0 || !is_dir(dir + "/" + set)) continue;
    ++sets;
    const std::string sd = dir + "/" + set;
    // The set's inputs are read first: a model that takes an attribute-like parameter (axes,
    // pads, a shape) as a graph input is lowered specialized on this set's value of it.
    std::vector<onnx::DataValue> values;
    lower::LowerOptions lo;
    for (size_t k = 0; k < inputs.size(); ++k) {
      if (!inputs[k]->type) return fail("input", invalid_model("", "graph input has no type"));
      const std::string f = sd + "/input_" + std::to_string(k) + ".pb";
      auto dv = onnx::read_data_file(f, onnx::data_kind_of(*inputs[k]->type));
      if (!dv) return fail("input", dv.status());
      if (dv->kind == onnx::DataValue::Kind::Tensor) lo.input_values[inputs[k]->name] = dv->tensor;
      values.push_back(std::move(*dv));
    }
    auto graph = lower::lower_model(*model, rt::RefEvaluator(), lo);
    if (!graph) return fail("lower", graph.status());
    rt::SessionOptions so = session_options(o.backend);
    so.threads = o.threads;
    auto session = rt::Session::create(std::move(*graph), so);
    if (!session) return fail("compile", session.status());
    rt::Session& s = **session;
    for (size_t k = 0; k < s.num_inputs() && k < values.size(); ++k) {
      auto v = to_runtime(values[k], s.input_type(k));
      if (!v) return fail("input", v.status());
      Status st = s.set_input(k, std::move(*v));
      if (!st.is_ok()) return fail("input", st);
    }
    Status st = s.run();
    if (!st.is_ok()) return fail("run", st);
    for (size_t k = 0; k < s.num_outputs(); ++k) digest = digest_value(s.output(k), digest);
    for (size_t k = 0; k < s.num_outputs(); ++k) {
      const std::string f = sd + "/output_" + std::to_string(k) + ".pb";
      if (!is_file(f)) continue;
      const ir::Type& declared = s.graph().type_of(s.graph().body.results[k]);
      auto dv = onnx::read_data_file(f, onnx::data_kind_of(declared));
      if (!dv) return fail("expected", dv.status());
      auto expected = to_runtime(*dv, declared);
      if (!expected) return fail("expected", expected.status());
      Comparison c = compare(s.output(k), *expected, Tolerance{});
      if (!c.match && mismatch.empty())  // the first one; the other sets still run (for the digest)
        mismatch = "mismatch: " + set + " output " + std::to_string(k) + " ('" + s.output_name(k) +
                   "'): " + one_line(c.why);
    }
  }
  r.digest = digest_hex(digest);
  if (!mismatch.empty()) {
    r.reason = mismatch;
    return r;
  }
  if (sets == 0) {
    r.outcome = Outcome::kSkip;
    r.reason = "no test_data_set_* folder";
    return r;
  }
  r.outcome = Outcome::kPass;
  return r;
}

struct Running {
  pid_t pid;
  int fd;
  std::string test;
  std::string out;
};

std::string encode(const Result& r) {
  const char c = r.outcome == Outcome::kPass ? 'P' : r.outcome == Outcome::kSkip ? 'S' : 'F';
  return std::string(1, c) + r.digest + ' ' + r.reason;
}

Result decode(const std::string& test, const std::string& msg, int wstatus) {
  Result r{test, Outcome::kFail, ""};
  if (WIFSIGNALED(wstatus)) {
    const int sig = WTERMSIG(wstatus);
    r.reason = sig == SIGALRM ? "timeout" : "crashed: " + std::string(strsignal(sig));
    return r;
  }
  if (msg.empty()) {
    r.reason = "crashed: exited without a result";
    return r;
  }
  r.outcome = msg[0] == 'P' ? Outcome::kPass : msg[0] == 'S' ? Outcome::kSkip : Outcome::kFail;
  const size_t space = msg.find(' ');
  r.digest = msg.substr(1, space == std::string::npos ? std::string::npos : space - 1);
  r.reason = space == std::string::npos ? std::string() : msg.substr(space + 1);
  return r;
}

std::vector<Result> run_all(const Options& o, const std::vector<std::string>& tests) {
  std::vector<Result> results;
  std::vector<Running> running;
  size_t next = 0;
  std::fflush(stdout);
  std::fflush(stderr);
  while (next < tests.size() || !running.empty()) {
    while (next < tests.size() && static_cast<int>(running.size()) < o.jobs) {
      int fds[2];
      if (::pipe(fds) != 0) {
        results.push_back(Result{tests[next++], Outcome::kFail, "cannot create a pipe"});
        continue;
      }
      const pid_t pid = ::fork();
      if (pid == 0) {
        ::close(fds[0]);
        ::alarm(static_cast<unsigned>(o.timeout_s));
        const std::string msg = encode(run_test(o, tests[next]));
        size_t off = 0;
        while (off < msg.size()) {
          const ssize_t w = ::write(fds[1], msg.data() + off, msg.size() - off);
          if (w <= 0) break;
          off += static_cast<size_t>(w);
        }
        ::_exit(0);
      }
      ::close(fds[1]);
      if (pid < 0) {
        ::close(fds[0]);
        results.push_back(Result{tests[next++], Outcome::kFail, "cannot fork"});
        continue;
      }
      running.push_back(Running{pid, fds[0], tests[next++], ""});
    }
    // Drain the pipes (a child must never block on a full pipe), then reap finished children.
    std::vector<pollfd> pfds;
    for (const Running& r : running) pfds.push_back(pollfd{r.fd, POLLIN, 0});
    ::poll(pfds.data(), pfds.size(), 200);
    for (size_t i = 0; i < running.size(); ++i) {
      if (!(pfds[i].revents & (POLLIN | POLLHUP))) continue;
      char buf[4096];
      const ssize_t n = ::read(running[i].fd, buf, sizeof buf);
      if (n > 0) running[i].out.append(buf, static_cast<size_t>(n));
    }
    for (size_t i = 0; i < running.size();) {
      int ws = 0;
      if (::waitpid(running[i].pid, &ws, WNOHANG) == running[i].pid) {
        char buf[4096];
        ssize_t n;
        while ((n = ::read(running[i].fd, buf, sizeof buf)) > 0)
          running[i].out.append(buf, static_cast<size_t>(n));
        ::close(running[i].fd);
        results.push_back(decode(running[i].test, running[i].out, ws));
        running.erase(running.begin() + static_cast<long>(i));
      } else {
        ++i;
      }
    }
  }
  std::sort(results.begin(), results.end(), [](const Result& a, const Result& b) { return a.test < b.test; });
  return results;
}

// `test_name  reason...` per line; '#' comments.
std::map<std::string, std::string> read_known_failures(const std::string& path) {
  std::map<std::string, std::string> known;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string name;
    ls >> name;
    std::string reason;
    std::getline(ls, reason);
    known[name] = reason;
  }
  return known;
}

}  // namespace

int cmd_conformance(const Args& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string { return i + 1 < args.size() ? args[++i] : std::string(); };
    if (a == "--filter")
      o.filter = value();
    else if (a == "--csv")
      o.csv = value();
    else if (a == "--backend")
      o.backend = value();
    else if (a == "--known-failures")
      o.known_failures = value();
    else if (a == "--digest")
      o.digest = value();
    else if (a == "--timeout")
      o.timeout_s = std::max(1, std::atoi(value().c_str()));
    else if (a == "-j")
      o.jobs = std::max(1, std::atoi(value().c_str()));
    else if (a == "--threads") {
      Status st = parse_threads(value(), o.threads);
      if (!st.is_ok()) return report_error("conformance", st);
    } else if (a == "-v")
      o.verbose = true;
    else if (o.suite.empty())
      o.suite = a;
    else
      return report_error("conformance", invalid_input("unexpected argument '" + a + "'"));
  }
  if (o.suite.empty())
    return report_error("conformance", invalid_input("usage: plumb conformance SUITE_DIR [options]"));
  if (!is_dir(o.suite)) return report_error(o.suite, invalid_input("not a folder"));
  std::regex re;
  try {
    re = std::regex(o.filter.empty() ? ".*" : o.filter);
  } catch (const std::regex_error& e) {
    return report_error("conformance", invalid_input("--filter: " + std::string(e.what())));
  }
  std::vector<std::string> tests;
  for (const std::string& n : list_dir(o.suite))
    if (is_file(o.suite + "/" + n + "/model.onnx") && std::regex_search(n, re)) tests.push_back(n);
  const auto known =
      o.known_failures.empty() ? std::map<std::string, std::string>() : read_known_failures(o.known_failures);

  std::vector<Result> results = run_all(o, tests);
  int passed = 0, failed = 0, skipped = 0;
  for (Result& r : results) {
    std::string name = r.test.rfind("test_", 0) == 0 ? r.test.substr(5) : r.test;
    auto k = known.find(name);
    if (k == known.end()) k = known.find(r.test);
    if (k != known.end()) {
      if (r.outcome == Outcome::kPass) {
        r.outcome = Outcome::kFail;
        r.reason = "passes but is listed in " + o.known_failures + ": remove it from the list";
      } else if (r.outcome == Outcome::kFail) {
        r.outcome = Outcome::kSkip;
        r.reason = "known failure:" + k->second + " [" + r.reason + "]";
      }
    }
    if (r.outcome == Outcome::kPass) ++passed;
    if (r.outcome == Outcome::kFail) ++failed;
    if (r.outcome == Outcome::kSkip) ++skipped;
    if (r.outcome == Outcome::kFail || o.verbose)
      std::printf("%s %s: %s\n",
                  r.outcome == Outcome::kPass   ? "PASS"
                  : r.outcome == Outcome::kSkip ? "SKIP"
                                                : "FAIL",
                  r.test.c_str(), r.reason.c_str());
  }
  if (!o.csv.empty()) {
    std::ofstream csv(o.csv);
    csv << "test,status,reason\n";
    for (const Result& r : results) {
      std::string reason = r.reason;
      std::replace(reason.begin(), reason.end(), '"', '\'');
      csv << r.test << ","
          << (r.outcome == Outcome::kPass   ? "pass"
              : r.outcome == Outcome::kSkip ? "skip"
                                            : "fail")
          << ",\"" << reason << "\"\n";
    }
  }
  if (!o.digest.empty()) {
    std::ofstream f(o.digest);
    for (const Result& r : results) f << r.test << ' ' << r.digest << '\n';
    if (!f) return report_error(o.digest, invalid_input("cannot write the digest file"));
  }
  std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed == 0 ? 0 : 1;
}

}  // namespace plumb::cli
