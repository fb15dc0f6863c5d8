// plumb reduce MODEL --data DIR (--predicate 'CMD {model} {data}' | --until check-fails |
//              --until backends-differ A,B) -o OUT   (tools/help.cpp has the user's page;
// docs/reduce.md how it works). The reduction is plumb::hunt::reduce_model (hunt/reduce.h); this
// file parses the arguments, shows progress and prints the summary line.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "hunt/reduce.h"
#include "tools/commands.h"
#include "tools/session_options.h"

namespace plumb::cli {

namespace {

Status parse_number(const std::string& flag, const std::string& text, double lo, double hi, double& out) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= lo && v <= hi))
    return invalid_input(flag + strfmt(" needs a number from %g to %g, got '", lo, hi) + text + "'");
  out = v;
  return Status::ok();
}

}  // namespace

int cmd_reduce(const Args& args) {
  hunt::ReduceRequest req;
  std::string model, until;
  bool have_mode = false, verbose = false;
  bool rtol = false, atol = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool valued = a == "--data" || a == "--expected" || a == "--predicate" || a == "--until" ||
                        a == "-o" || a == "--rtol" || a == "--atol" || a == "--samples" || a == "--threads" ||
                        a == "--timeout";
    if (valued && (i + 1 >= args.size() || args[i + 1].empty()))
      return report_error("reduce", invalid_input(a + " needs a value"));
    Status st = Status::ok();
    double v = 0;
    if (a == "--data") {
      req.data_dir = args[++i];
    } else if (a == "--expected") {
      req.expected = args[++i];
    } else if (a == "-o") {
      req.out_dir = args[++i];
    } else if (a == "--predicate" || a == "--until") {
      if (have_mode) return report_error("reduce", invalid_input("give one of --predicate and --until"));
      have_mode = true;
      if (a == "--predicate") {
        req.mode = hunt::ReduceMode::kCommand;
        req.command = args[++i];
      } else {
        until = args[++i];
        if (until == "backends-differ") {  // --until backends-differ A,B: the pair is the next word
          const std::string pair = i + 1 < args.size() ? args[++i] : std::string();
          const size_t comma = pair.find(',');
          if (comma == std::string::npos || comma == 0 || comma + 1 == pair.size())
            return report_error("reduce", invalid_input("--until backends-differ needs two backends, A,B"));
          req.backend_a = pair.substr(0, comma);
          req.backend_b = pair.substr(comma + 1);
        }
      }
    } else if (a == "--rtol" || a == "--atol") {
      st = parse_number(a, args[++i], 0, 1e30, v);
      (a == "--rtol" ? req.tol.rtol : req.tol.atol) = v;
      (a == "--rtol" ? rtol : atol) = true;
    } else if (a == "--samples") {
      st = parse_number(a, args[++i], 2, 1000, v);
      req.samples = static_cast<int>(v);
      if (st.is_ok() && v != std::floor(v)) st = invalid_input("--samples needs a whole number of runs");
    } else if (a == "--threads") {
      st = parse_threads(args[++i], req.threads);
    } else if (a == "--timeout") {
      st = parse_number(a, args[++i], 0.001, 1e6, req.timeout_s);
    } else if (a == "--no-simplify") {
      req.simplify = false;
    } else if (a == "--no-hint") {
      req.hint = false;
    } else if (a == "-v" || a == "--verbose") {
      verbose = true;
    } else if (!a.empty() && a[0] != '-' && model.empty()) {
      model = a;
    } else {
      st = invalid_input("unexpected argument '" + a + "'");
    }
    if (!st.is_ok()) return report_error("reduce", st);
  }
  if (!until.empty()) {
    if (until == "check-fails") {
      req.mode = hunt::ReduceMode::kCheckFails;
    } else if (until == "backends-differ") {
      req.mode = hunt::ReduceMode::kBackendsDiffer;
    } else {
      return report_error(
          "reduce", invalid_input("--until takes check-fails or backends-differ A,B, got '" + until + "'"));
    }
  }
  if (model.empty() || req.data_dir.empty() || req.out_dir.empty() || !have_mode)
    return report_error("reduce",
                        invalid_input("usage: plumb reduce MODEL --data DIR (--predicate 'CMD {model} "
                                      "{data}' | --until check-fails | --until backends-differ A,B) "
                                      "-o OUT (plumb reduce --help)"));
  if (rtol != atol) return report_error("reduce", invalid_input("give --rtol and --atol together"));
  req.tol.use = rtol;
  req.model = model;
  req.extra_backends = cli_backends();
  if (verbose)
    req.progress = [](const std::string& line) { std::fprintf(stderr, "reduce: %s\n", line.c_str()); };
  Expected<hunt::ReduceResult> r = hunt::reduce_model(req);
  if (!r) return report_error("", r.status());
  std::printf("%s\n", r->summary(req.out_dir).c_str());
  if (!r->note.empty()) std::printf("note: %s\n", r->note.c_str());
  return 0;
}

}  // namespace plumb::cli
