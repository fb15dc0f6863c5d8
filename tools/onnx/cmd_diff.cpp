// plumb diff A B [--data DIR | --input NAME=FILE ...] [--report FILE.json|FILE.html] [--threads N]
//                [--samples K]   (tools/help.cpp has the user's page)
// What changed between two models (issue 24): the arguments, the findings, the verdict line and
// the exit code. The comparison is plumb::check::run_diff (check/onnx/diff_onnx.h). Exits 0
// (equivalent, or equivalent on the data), 1 (different), 3 (inconclusive on the data) or 2 (error:
// one `plumb: ...` line on stderr).
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "check/onnx/diff_onnx.h"
#include "tools/commands.h"
#include "tools/model_session.h"
#include "tools/session_options.h"

namespace plumb::cli {

int cmd_diff(const Args& args) {
  check::DiffRequest req;
  req.threads = machine_threads();
  std::string report;
  std::vector<std::string> models;
  ModelArgs inputs;  // --data and --input only (the two models are read here)
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string { return i + 1 < args.size() ? args[++i] : std::string(); };
    if (a == "--data" || a == "--input") {
      Expected<int> took = take_model_arg(args, i, inputs);
      if (!took) return report_error("diff", took.status());
      if (*took < 0 || (a == "--data" && inputs.data_dir.empty()))
        return report_error("diff", invalid_input(a + " needs a value (got an empty or missing one)"));
    } else if (a == "--report") {
      report = value();
      if (!check::ends_with(report, ".json") && !check::ends_with(report, ".html"))
        return report_error("diff", invalid_input("--report takes a FILE.json or FILE.html"));
    } else if (a == "--threads") {
      if (Status st = parse_threads(value(), req.threads); !st.is_ok()) return report_error("diff", st);
    } else if (a == "--samples") {
      const std::string v = value();
      char* end = nullptr;
      const double k = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || k < 2 || k > 1000 || k != std::floor(k))
        return report_error("diff", invalid_input("--samples needs a whole number of runs, 2 to 1000"));
      req.samples = static_cast<int>(k);
    } else if (!a.empty() && a[0] != '-' && models.size() < 2) {
      models.push_back(a);
    } else {
      return report_error("diff", invalid_input("unexpected argument '" + a + "'"));
    }
  }
  if (models.size() != 2)
    return report_error("diff",
                        invalid_input("usage: plumb diff A B [--data DIR] [--report FILE.json|FILE.html] "
                                      "(plumb diff --help)"));
  req.a = models[0];
  req.b = models[1];
  req.inputs = check::InputFiles{inputs.data_dir, inputs.inputs};
  Expected<check::DiffReport> rep = check::run_diff(req);
  if (!rep) return report_error("", rep.status());
  check::print_diff(*rep, stdout);
  if (!report.empty()) {
    std::ofstream out(report, std::ios::binary);
    out << (check::ends_with(report, ".json") ? check::diff_json(*rep) : check::diff_html(*rep));
    if (!out) return report_error(report, invalid_input("cannot write the report"));
  }
  return rep->exit_code();
}

}  // namespace plumb::cli
