// plumb coverage --sequences N MODELS... [--against SUITE_OR_MODELS]... [--json FILE] [--html FILE]
//                [--top K]   (tools/help.cpp has the user's page; docs/coverage-sequences.md the
// definitions and the JSON). The counting is plumb::hunt (hunt/op_sequences.h); this file parses
// the arguments, prints the summary and writes the files.
#include <cstdlib>
#include <fstream>

#include "hunt/op_sequences.h"
#include "tools/commands.h"

namespace plumb::cli {

namespace {

Status write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return invalid_input("cannot write the file").with_place(path);
  return Status::ok();
}

Status parse_count(const std::string& flag, const std::string& text, long lo, long max, long& out) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < lo || v > max)
    return invalid_input(flag + strfmt(" needs an integer from %ld to %ld, got '", lo, max) + text + "'");
  out = v;
  return Status::ok();
}

}  // namespace

int cmd_coverage_sequences(const Args& args) {
  long n = 3, top = 20;
  std::vector<std::string> models, against;
  std::string json, html;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool valued =
        a == "--sequences" || a == "--against" || a == "--json" || a == "--html" || a == "--top";
    if (valued && i + 1 >= args.size()) return report_error("coverage", invalid_input(a + " needs a value"));
    if (a == "--sequences") {
      if (Status st = parse_count(a, args[++i], 1, 6, n); !st.is_ok()) return report_error("coverage", st);
    } else if (a == "--top") {
      if (Status st = parse_count(a, args[++i], 0, 1000000, top); !st.is_ok())
        return report_error("coverage", st);
    } else if (a == "--against") {
      against.push_back(args[++i]);
    } else if (a == "--json") {
      json = args[++i];
    } else if (a == "--html") {
      html = args[++i];
    } else if (!a.empty() && a[0] != '-') {
      models.push_back(a);
    } else {
      return report_error("coverage", invalid_input("unexpected argument '" + a + "'"));
    }
  }
  if (models.empty())
    return report_error("coverage", invalid_input("usage: plumb coverage --sequences N MODELS... [--against "
                                                  "SUITE_OR_MODELS] [--json FILE] [--html FILE]"));
  hunt::SequenceSet model_set(static_cast<int>(n)), against_set(static_cast<int>(n));
  for (const std::string& m : models)
    if (Status st = hunt::add_source(m, model_set); !st.is_ok()) return report_error("", st);
  for (const std::string& m : against)
    if (Status st = hunt::add_source(m, against_set); !st.is_ok()) return report_error("", st);
  const hunt::SequenceCoverage c =
      hunt::sequence_coverage(model_set, against.empty() ? nullptr : &against_set);
  std::fputs(hunt::coverage_text(c, static_cast<size_t>(top)).c_str(), stdout);
  if (!json.empty())
    if (Status st = write_text(json, hunt::coverage_json(c)); !st.is_ok()) return report_error("", st);
  if (!html.empty())
    if (Status st = write_text(html, hunt::coverage_html(c, 1000)); !st.is_ok()) return report_error("", st);
  return 0;
}

}  // namespace plumb::cli
