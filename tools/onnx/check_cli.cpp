// plumb check MODEL (--data DIR | --input NAME=FILE ...) [--expected PATH | --against REF]
//                   [--tolerance auto | --rtol R --atol A] [--report FILE.json|FILE.html ...]
//                   [--no-isolate] [--chunk-mb N] [--samples K] [--threads N] [--max-memory BYTES]
//                   [--progress]   (tools/help.cpp has the user's page)
// The converter-validation workflow (DESIGN.md §7): the arguments, a progress line on a terminal,
// the report and the exit code. The check itself is plumb::check::run_check
// (check/onnx/run_check.h). Exits 0 (match), 1 (mismatch), 3 (inconclusive) or 2 (error: one
// `plumb: ...` line on stderr).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "check/onnx/run_check.h"
#include "runtime/backend.h"
#include "tools/commands.h"
#include "tools/session_options.h"

namespace plumb::cli {

namespace {

using check::ends_with;

bool parse_double(const std::string& s, double* v) {
  char* end = nullptr;
  *v = std::strtod(s.c_str(), &end);
  return !s.empty() && *end == '\0' && *v >= 0;
}

// Progress on stderr. On a terminal: one line, rewritten at each step and as the nodes of a graph
// run complete (at most ten times a second), with the graph runs done of those expected, the node
// within the run under way, and an estimate of the time left (from the time the work done took,
// counting a run in progress by its nodes), erased when done. Elsewhere (a CI log) only with
// --progress, one line per stage (a stage of repeated runs once), so that the error contract (one
// line on stderr) holds for scripts by default.
class Progress {
 public:
  explicit Progress(bool lines) : tty_(::isatty(2) != 0), lines_(lines && !tty_) {}
  ~Progress() { done(); }
  void step(const check::ProgressStep& s) {
    const bool node_update = s.nodes > 0;
    if (lines_) {
      if (s.run <= 1 && !node_update) std::fprintf(stderr, "plumb check: %s\n", s.stage.c_str());
      return;
    }
    if (!tty_) return;
    using clock = std::chrono::steady_clock;
    const clock::time_point now = clock::now();
    if (s.runs_done == 0 && !started_) start_ = now, started_ = true;
    if (node_update && s.node < s.nodes && now - shown_at_ < std::chrono::milliseconds(100)) return;
    shown_at_ = now;
    std::string text = s.stage + (s.runs > 0 ? strfmt(" %d/%d", s.run, s.runs) : "");
    if (s.runs_total > 0) {
      text += strfmt("  [%d of %d runs done", s.runs_done, s.runs_total);
      if (node_update) text += strfmt(", node %zu of %zu", s.node, s.nodes);
      const double done = s.runs_done + (node_update ? static_cast<double>(s.node) / s.nodes : 0.0);
      const double spent = std::chrono::duration<double>(now - start_).count();
      if (done > 0 && done < s.runs_total && spent > 1) {
        const double left = spent / done * (s.runs_total - done);
        text += strfmt(", about %s left", duration(left).c_str());
      }
      text += "]";
    }
    std::fprintf(stderr, "\r\033[Kplumb check: %s", text.c_str());
    std::fflush(stderr);
    shown_ = true;
  }
  void done() {
    if (shown_) std::fprintf(stderr, "\r\033[K");
    shown_ = false;
  }

 private:
  static std::string duration(double s) {
    if (s < 60) return strfmt("%.0f s", std::ceil(s));
    return strfmt("%d min %02d s", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  }
  bool tty_, lines_;
  bool shown_ = false, started_ = false;
  std::chrono::steady_clock::time_point start_, shown_at_;
};

struct Options {
  check::CheckRequest request;
  bool auto_tol_requested = false;
  bool progress_lines = false;  // --progress: one line per stage when stderr is not a terminal
  std::vector<std::string> reports;
};

int parse_args(const Args& args, Options& opt) {
  check::CheckRequest& req = opt.request;
  req.threads = machine_threads();
  int64_t max_memory = default_max_memory();
  bool fixed = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string { return i + 1 < args.size() ? args[++i] : std::string(); };
    // A path option given an empty or missing value is an error, not the option left out: a
    // script's unset variable ("--expected $DIR") must not silently check against nothing.
    auto path_value = [&](std::string* out) {
      *out = value();
      return !out->empty();
    };
    if (a == "--data") {
      if (!path_value(&req.inputs.data_dir))
        return report_error("check", invalid_input("--data needs a folder (got an empty or missing value)"));
    } else if (a == "--input") {
      const std::string v = value();
      const size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0)
        return report_error("check", invalid_input("--input needs NAME=FILE, got '" + v + "'"));
      req.inputs.named.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (a == "--expected") {
      if (!path_value(&req.expected))
        return report_error("check",
                            invalid_input("--expected needs a PATH (got an empty or missing value)"));
    } else if (a == "--against") {
      if (!path_value(&req.against))
        return report_error(
            "check", invalid_input("--against needs a REFERENCE model (got an empty or missing value)"));
    } else if (a == "--rtol") {
      if (!parse_double(value(), &req.tol.rtol))
        return report_error("check", invalid_input("--rtol needs a number >= 0"));
      fixed = true;
    } else if (a == "--atol") {
      if (!parse_double(value(), &req.tol.atol))
        return report_error("check", invalid_input("--atol needs a number >= 0"));
      fixed = true;
    } else if (a == "--tolerance") {
      if (value() != "auto")
        return report_error("check", invalid_input("--tolerance takes 'auto' (or use --rtol/--atol)"));
      opt.auto_tol_requested = true;
    } else if (a == "--report") {
      const std::string f = value();
      if (!ends_with(f, ".json") && !ends_with(f, ".html"))
        return report_error("check", invalid_input("--report takes a FILE.json or FILE.html"));
      opt.reports.push_back(f);
    } else if (a == "--progress") {
      opt.progress_lines = true;
    } else if (a == "--backend") {
      req.backend = value();
      // check's runs use the library's backends (not a program's own, e.g. the tests' "test").
      if (auto b = rt::make_backend(req.backend); !b) return report_error("check", b.status());
    } else if (a == "--no-isolate") {
      req.isolate = false;
    } else if (a == "--chunk-mb") {
      double mb = 0;
      if (!parse_double(value(), &mb) || mb > 1e9)
        return report_error("check", invalid_input("--chunk-mb needs a number of megabytes >= 0"));
      req.chunk_bytes = static_cast<int64_t>(mb * 1e6);
    } else if (a == "--threads") {
      Status st = parse_threads(value(), req.threads);
      if (!st.is_ok()) return report_error("check", st);
    } else if (a == "--max-memory") {
      Status st = parse_max_memory(value(), max_memory);
      if (!st.is_ok()) return report_error("check", st);
    } else if (a == "--samples") {
      double k = 0;
      if (!parse_double(value(), &k) || k < 2 || k > 1000 || k != std::floor(k))
        return report_error("check", invalid_input("--samples needs a whole number of runs, 2 to 1000"));
      req.samples = static_cast<int>(k);
    } else if (req.model.empty() && (a.empty() || a[0] != '-')) {
      req.model = a;
    } else {
      return report_error("check", invalid_input("unexpected argument '" + a + "'"));
    }
  }
  if (req.model.empty() || req.inputs.empty())
    return report_error("check",
                        invalid_input("usage: plumb check MODEL (--data DIR | --input NAME=FILE ...) "
                                      "[--expected PATH] [options] (plumb check --help)"));
  if (!req.against.empty() && !req.expected.empty())
    return report_error("check", invalid_input("--expected and --against exclude each other"));
  if (req.inputs.data_dir.empty() && req.expected.empty() && req.against.empty())
    return report_error("check", invalid_input("with --input and no --data, give the expected values with "
                                               "--expected PATH"));
  if (fixed && opt.auto_tol_requested)
    return report_error("check", invalid_input("--tolerance auto and --rtol/--atol exclude each other"));
  req.tol.use = fixed;
  req.memory = std::make_shared<rt::MemoryBudget>(max_memory);
  return -1;
}

int exit_code(check::Verdict v) {
  switch (v) {
    case check::Verdict::match: return 0;
    case check::Verdict::mismatch: return 1;
    case check::Verdict::inconclusive: return 3;
  }
  return 2;
}

}  // namespace

int cmd_check(const Args& args) {
  Options opt;
  if (int rc = parse_args(args, opt); rc >= 0) return rc;
  Progress progress(opt.progress_lines);
  opt.request.on_step = [&](const check::ProgressStep& s) { progress.step(s); };
  Expected<check::CheckReport> rep = check::run_check(opt.request);
  progress.done();
  if (!rep) return report_error("", rep.status());
  report_memory(opt.request.memory.get());
  print_report(*rep, stdout);
  for (const std::string& f : opt.reports) {
    std::ofstream out(f, std::ios::binary);
    out << (ends_with(f, ".json") ? report_json(*rep) : report_html(*rep));
    if (!out) return report_error(f, invalid_input("cannot write the report"));
  }
  return exit_code(rep->verdict);
}

}  // namespace plumb::cli
