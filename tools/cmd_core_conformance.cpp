// plumb conformance --core DIR [--backend B] [--filter REGEX] [-j N] [--csv FILE] [--cells FILE]
//                   [--strict] [--digest FILE]
// Runs the core conformance vectors (spec/conformance.md): every DIR/<op>/<case>.plumbt, checked on
// backend B (default ref). Prints `<case>: <reason>` per failure and ends with
// `N passed, N failed, N skipped`; exit 0 when nothing failed, 1 otherwise, 2 on a usage error.
// With --cells, every line of FILE (an `op[.kind] dt[,dt...]` cell) must be claimed by a passing
// positive case; missing ones are printed as `missing cell: <cell>` and make the exit code 1.
// --strict compares every output bit for bit, ignoring tolerance classes (a diagnostic).
// --digest FILE writes `<case> <digest>` per case (tools/value_digest.h): two runs, two builds or
// two backends gave byte-identical outputs exactly when their digest files are equal.
// Needs only ir + runtime, so it is part of the tiny build.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "runtime/backend.h"
#include "tools/commands.h"
#include "tools/core_vectors.h"
#include "tools/session_options.h"

namespace plumb::cli {
namespace {

bool is_dir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') names.emplace_back(e->d_name);
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// "<op>/<case>" for every DIR/<op>/<case>.plumbt, sorted.
std::vector<std::string> find_cases(const std::string& root) {
  std::vector<std::string> out;
  const std::string ext = ".plumbt";
  for (const std::string& op : list_dir(root)) {
    if (!is_dir(root + "/" + op)) continue;
    for (const std::string& f : list_dir(root + "/" + op))
      if (f.size() > ext.size() && f.compare(f.size() - ext.size(), ext.size(), ext) == 0)
        out.push_back(op + "/" + f.substr(0, f.size() - ext.size()));
  }
  return out;
}

Expected<std::string> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return invalid_input("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct CaseResult {
  bool ran = false;
  Status status;
  std::vector<std::string> cells;  // claimed by a passing positive case
  std::string digest;              // what the run produced (check_vector_case)
};

CaseResult run_case(const std::string& root, const std::string& name, const std::string& backend, bool strict,
                    int threads) {
  CaseResult r;
  r.ran = true;
  auto text = read_file(root + "/" + name + ".plumbt");
  if (!text) {
    r.status = text.status();
    return r;
  }
  auto c = parse_vector_case(name, std::move(*text));
  if (!c) {
    r.status = c.status();
    return r;
  }
  r.status = check_vector_case(*c, backend, strict, &r.digest, threads);
  if (r.status.is_ok() && !c->expects.empty()) r.cells = c->cells;
  return r;
}

int usage() {
  std::fprintf(
      stderr,
      "usage: plumb conformance --core DIR [--backend B] [--filter REGEX] [-j N] [--threads N] [--csv FILE] "
      "[--cells FILE] [--strict] [--digest FILE]\n");
  return 2;
}

std::string csv_field(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

}  // namespace

int cmd_core_conformance(const Args& args) {
  std::string root, backend = "ref", filter, csv, cells_file, digest_file;
  int jobs = 1, threads = 1;
  bool strict = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--strict") {
      strict = true;
      continue;
    }
    if (i + 1 >= args.size()) return usage();
    const std::string& v = args[++i];
    if (a == "--core")
      root = v;
    else if (a == "--backend")
      backend = v;
    else if (a == "--filter")
      filter = v;
    else if (a == "--csv")
      csv = v;
    else if (a == "--cells")
      cells_file = v;
    else if (a == "--digest")
      digest_file = v;
    else if (a == "-j")
      jobs = std::max(1, std::atoi(v.c_str()));
    else if (a == "--threads") {
      Status st = parse_threads(v, threads);
      if (!st.is_ok()) return report_error("", st);
    } else
      return usage();
  }
  if (root.empty() || !is_dir(root)) return report_error(root, invalid_input("--core needs a vector folder"));
  std::regex re;
  try {
    re = std::regex(filter.empty() ? ".*" : filter);
  } catch (const std::regex_error&) {
    return report_error("", invalid_input("--filter: bad regular expression '" + filter + "'"));
  }

  if (auto b = rt::make_backend(backend, cli_backends()); !b) return report_error("", b.status());
  std::vector<std::string> names;
  for (const std::string& n : find_cases(root))
    if (std::regex_search(n, re)) names.push_back(n);
  std::vector<CaseResult> results(names.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t k; (k = next++) < names.size();)
      results[k] = run_case(root, names[k], backend, strict, threads);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < jobs; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();

  int passed = 0, failed = 0, skipped = 0;
  std::set<std::string> covered;
  std::string rows = "case,result,reason\n";
  for (size_t k = 0; k < names.size(); ++k) {
    const CaseResult& r = results[k];
    if (r.status.code() == ErrorCode::kUnsupported) {
      ++skipped;  // the backend does not support an op or dtype of the case: stated, not failed
      std::printf("%s: skipped: %s\n", names[k].c_str(), r.status.to_string().c_str());
      rows += names[k] + ",skip," + csv_field(r.status.to_string()) + "\n";
    } else if (r.status.is_ok()) {
      ++passed;
      covered.insert(r.cells.begin(), r.cells.end());
      rows += names[k] + ",pass,\n";
    } else {
      ++failed;
      std::printf("%s: %s\n", names[k].c_str(), r.status.to_string().c_str());
      rows += names[k] + ",fail," + csv_field(r.status.to_string()) + "\n";
    }
  }
  int missing = 0;
  if (!cells_file.empty()) {
    auto text = read_file(cells_file);
    if (!text) return report_error(cells_file, text.status());
    std::istringstream lines(*text);
    int total = 0;
    for (std::string line; std::getline(lines, line);) {
      if (line.empty() || line[0] == '#') continue;
      ++total;
      if (!covered.count(line)) {
        ++missing;
        std::printf("missing cell: %s\n", line.c_str());
      }
    }
    std::printf("cells: %d of %d covered by a passing vector\n", total - missing, total);
  }
  if (!csv.empty()) {
    std::ofstream f(csv);
    if (!f) return report_error(csv, invalid_input("cannot write the CSV file"));
    f << rows;
  }
  if (!digest_file.empty()) {
    std::ofstream f(digest_file);
    for (size_t k = 0; k < names.size(); ++k) f << names[k] << ' ' << results[k].digest << '\n';
    if (!f) return report_error(digest_file, invalid_input("cannot write the digest file"));
  }
  std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed == 0 && missing == 0 ? 0 : 1;
}

}  // namespace plumb::cli
