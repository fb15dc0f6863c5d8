// plumb gen -o DIR --seed S --count N [--shard i/n] [--ops LIST] [--opset V] [--max-nodes K]
// [--targets COVERAGE.json] [--other-opsets EVERY]
// (tools/help.cpp has the user's page; docs/gen.md how it works). The generator is
// plumb::hunt::write_generated_model (hunt/gen_model.h); this file parses the arguments and picks
// the shard's share of the run: model k belongs to shard k mod n.
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "hunt/gen_model.h"
#include "tools/commands.h"
#include "tools/shard.h"

namespace plumb::cli {

namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const size_t end = comma == std::string::npos ? text.size() : comma;
    if (end > start) out.push_back(text.substr(start, end - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

int cmd_gen(const Args& args) {
  hunt::GenOptions opt;
  std::string out_dir;
  uint64_t count = 0, shard = 0, shards = 1, v = 0;
  bool have_count = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool valued = a == "-o" || a == "--seed" || a == "--count" || a == "--shard" || a == "--ops" ||
                        a == "--opset" || a == "--max-nodes" || a == "--targets" || a == "--other-opsets";
    if (valued && (i + 1 >= args.size() || args[i + 1].empty()))
      return report_error("gen", invalid_input(a + " needs a value"));
    Status st = Status::ok();
    if (a == "-o") {
      out_dir = args[++i];
    } else if (a == "--seed") {
      st = parse_u64(a, args[++i], 0, UINT64_MAX, opt.seed);
    } else if (a == "--count") {
      st = parse_u64(a, args[++i], 0, 100000000, count);
      have_count = true;
    } else if (a == "--shard") {
      st = parse_shard(args[++i], shard, shards);
    } else if (a == "--ops") {
      opt.ops = split_commas(args[++i]);
    } else if (a == "--opset") {
      // 13..17: Debian's libonnx 1.12 knows opsets up to 17; 13 is where axes became inputs.
      st = parse_u64(a, args[++i], 13, 17, v);
      opt.opset = static_cast<int>(v);
    } else if (a == "--max-nodes") {
      st = parse_u64(a, args[++i], 1, 1000, v);
      opt.max_nodes = static_cast<int>(v);
    } else if (a == "--other-opsets") {
      st = parse_u64(a, args[++i], 0, 1000000, v);
      opt.other_every = static_cast<int>(v);
    } else if (a == "--targets") {
      auto t = hunt::read_gen_targets(args[++i]);
      if (!t) return report_error("gen", t.status());
      opt.targets = std::make_shared<const hunt::GenTargets>(std::move(*t));
    } else {
      st = invalid_input("unexpected argument '" + a + "'");
    }
    if (!st.is_ok()) return report_error("gen", st);
  }
  if (out_dir.empty() || !have_count)
    return report_error("gen",
                        invalid_input("usage: plumb gen -o DIR --seed S --count N [--shard i/n] (plumb "
                                      "gen --help)"));
  for (uint64_t k = shard; k < count; k += shards) {
    if (Status st = hunt::write_generated_model(out_dir, opt, k); !st.is_ok()) return report_error("gen", st);
  }
  return 0;
}

}  // namespace plumb::cli
