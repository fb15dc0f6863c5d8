// plumb bench MODEL [--data DIR | --input NAME=FILE ...] [--backend B] [--precise] [--threads N]
//                   [--max-iterations N] [--max-bytes N] [--max-memory BYTES] [--runs N] [--json]
// (the session options as plumb run takes them, tools/session_options.h; --threads defaults to 1)
// Latency of one model on one backend (issue 16): loads and prepares the session once, runs it
// once to warm up (the first plan, its schedule and compiled spans, caches), then N timed runs.
// Prints `median_ms=... min_ms=... max_ms=... peak_rss_mb=...` (the process's peak resident set,
// loading and lowering included), or one JSON object with --json. bench/peer_ort.sh times
// onnxruntime on the same models and inputs.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "runtime/session.h"
#include "tools/commands.h"
#include "tools/model_session.h"
#include "tools/session_options.h"

namespace plumb::cli {

namespace {

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// `s` as a JSON string literal.
std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      o += strfmt("\\u%04x", c);
      continue;
    }
    o += c;
  }
  return o + "\"";
}

}  // namespace

int cmd_bench(const Args& args) {
  ModelArgs m;
  rt::SessionOptions opts = session_options("ref");  // 1 thread unless --threads says otherwise
  int64_t runs = 10;
  bool json = false;
  auto usage = [] {
    std::fprintf(
        stderr,
        "usage: plumb bench MODEL [--data DIR | --input NAME=FILE ...] [--backend B] [--precise] "
        "[--threads N] [--max-iterations N] [--max-bytes N] [--max-memory BYTES] [--runs N] [--json]\n");
    return 2;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto next = [&](std::string& dst) {
      if (i + 1 >= args.size()) return false;
      dst = args[++i];
      return true;
    };
    std::string v;
    Expected<int> taken = take_model_arg(args, i, m);
    if (!taken) return report_error("", taken.status());
    if (*taken == 0) taken = take_session_arg(args, i, opts);
    if (!taken) return report_error("", taken.status());
    if (*taken < 0) return usage();
    if (*taken) continue;
    if (a == "--runs") {
      if (!next(v)) return usage();
      char* end = nullptr;
      runs = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end != '\0' || runs < 1 || runs > 1000000)
        return report_error("",
                            invalid_input("--runs needs a whole number from 1 to 1000000, got '" + v + "'"));
    } else if (a == "--json") {
      json = true;
    } else {
      return report_error("", invalid_input("unknown option '" + a + "'"));
    }
  }
  if (m.model.empty() || (m.data_dir.empty() && m.inputs.empty())) return usage();
  std::string file;
  auto created = open_model_session(m, opts, &file);
  if (!created) return report_error(file, created.status());
  rt::Session& s = **created;
  const std::string& model = m.model;
  using clock = std::chrono::steady_clock;
  Status st = s.run();  // warm-up: plans, compiles, touches every buffer
  if (!st.is_ok()) return report_error(model, st);
  std::vector<double> ms;
  for (int64_t r = 0; r < runs; ++r) {
    const auto t0 = clock::now();
    st = s.run();
    const auto t1 = clock::now();
    if (!st.is_ok()) return report_error(model, st);
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  const double median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  if (json)
    std::printf(
        "{\"model\": %s, \"backend\": %s, \"runs\": %lld, \"median_ms\": %.3f, \"min_ms\": %.3f, "
        "\"max_ms\": %.3f, \"peak_rss_mb\": %.1f}\n",
        json_str(model).c_str(), json_str(opts.backend).c_str(), static_cast<long long>(runs), median,
        ms.front(), ms.back(), peak_rss_mb());
  else
    std::printf("median_ms=%.3f min_ms=%.3f max_ms=%.3f peak_rss_mb=%.1f\n", median, ms.front(), ms.back(),
                peak_rss_mb());
  return 0;
}

}  // namespace plumb::cli
