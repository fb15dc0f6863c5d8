// plumb check-many LIST [--shard i/n] [--threads N]: `plumb check` of many model folders (the
// ONNX test layout: FOLDER/model.onnx and FOLDER/test_data_set_0/ with its inputs and expected
// outputs), one JSON line per folder on stdout. LIST has one folder a line; line j (from 0) belongs
// to shard j mod n. Each line starts with its index, so `plumb merge` of the shards' outputs is
// the unsharded run's output (docs/scale-out.md). A folder's error is a result, not a stop.
#include <cstdio>
#include <fstream>

#include "check/onnx/run_check.h"
#include "check/report_format.h"
#include "tools/commands.h"
#include "tools/shard.h"

namespace plumb::cli {

namespace {

std::string result_line(uint64_t index, const std::string& folder) {
  check::CheckRequest req;
  req.model = folder + "/model.onnx";
  req.inputs.data_dir = folder + "/test_data_set_0";
  std::string line = "{\"index\":" + std::to_string(index) + ",\"folder\":" + check::json_str(folder);
  Expected<check::CheckReport> rep = check::run_check(req);
  if (!rep)
    return line + ",\"result\":\"error\",\"message\":" + check::json_str(rep.status().to_string()) + "}";
  line += ",\"result\":" + check::json_str(check::verdict_name(rep->verdict));
  if (rep->verdict == check::Verdict::mismatch)
    line += ",\"first_divergence\":" + check::json_str(rep->divergence_text());
  if (rep->verdict == check::Verdict::inconclusive)
    line += ",\"reason\":" + check::json_str(rep->inconclusive_reason);
  return line + "}";
}

}  // namespace

int cmd_check_many(const Args& args) {
  std::string list;
  uint64_t shard = 0, shards = 1;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    Status st = Status::ok();
    if (a == "--shard") {
      if (i + 1 >= args.size()) return report_error("check-many", invalid_input("--shard needs i/n"));
      st = parse_shard(args[++i], shard, shards);
    } else if (!a.empty() && a[0] != '-' && list.empty()) {
      list = a;
    } else {
      st = invalid_input("unexpected argument '" + a + "'");
    }
    if (!st.is_ok()) return report_error("check-many", st);
  }
  if (list.empty())
    return report_error("check-many", invalid_input("usage: plumb check-many LIST [--shard i/n]"));
  std::ifstream in(list);
  if (!in) return report_error(list, invalid_input("cannot read the list"));
  std::string folder;
  for (uint64_t j = 0; std::getline(in, folder); ++j) {
    if (j % shards != shard) continue;
    std::printf("%s\n", result_line(j, folder).c_str());
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace plumb::cli
