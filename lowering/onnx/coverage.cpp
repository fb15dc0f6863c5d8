#include "lowering/onnx/coverage.h"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "frontends/onnx/model.h"

namespace plumb::lower {

namespace {

using OpKey = std::pair<std::string, std::string>;  // (domain, op type)

std::string shown_domain(const std::string& domain) { return domain.empty() ? "ai.onnx" : domain; }

std::string range_text(const OpsetRange& r) {
  return "[" + std::to_string(r.first) + ", " + std::to_string(r.last) + "]";
}

// libonnx is authoritative for a domain it knows up to its newest opset there: a version at or
// below that which it does not list is not a since-version (a rule may start below the op's first
// schema, a suite test may pin an older opset).
bool kept(const CoverageVersions& v, const std::string& domain, int64_t since, unsigned sources) {
  if (sources & kFromOnnxSchemas) return true;
  auto it = v.schema_max_opset.find(domain);
  return it == v.schema_max_opset.end() || since > it->second;
}

std::string sources_text(unsigned s) {
  std::string out;
  auto add = [&](const char* name) { out += (out.empty() ? "" : ", ") + std::string(name); };
  if (s & kFromOnnxSchemas) add("onnx 1.12");
  if (s & kFromSuite) add("suite");
  if (s & kFromRule) add("rule");
  return out;
}

// Why no rule lowers (domain, op) at `since`.
std::string reason_not_lowered(const std::vector<Rule>& op_rules, bool deprecated, int64_t since) {
  if (deprecated) return "deprecated: ONNX removed the op at this version";
  if (op_rules.empty()) return "no rule for this op";
  std::string ranges;
  for (const Rule& r : op_rules) ranges += (ranges.empty() ? "" : ", ") + range_text(r.range);
  return "no rule covers opset " + std::to_string(since) + " (rules: " + ranges + ")";
}

}  // namespace

bool is_coverage_domain(const std::string& d) {
  return d.empty() || d == "ai.onnx.ml" || d == "ai.onnx.preview.training" || d == "ai.onnx.preview";
}

void add_onnx_schema_versions(CoverageVersions& v) {
  for (const auto& [domain, range] : ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map()) {
    const std::string d = onnx::canonical_domain(domain);
    if (is_coverage_domain(d)) v.schema_max_opset[d] = range.second;
  }
  for (const ::onnx::OpSchema& s : ::onnx::OpSchemaRegistry::get_all_schemas_with_history()) {
    const std::string d = onnx::canonical_domain(s.domain());
    if (!is_coverage_domain(d)) continue;
    v.versions[{d, s.Name(), s.SinceVersion()}] |= kFromOnnxSchemas;
    if (s.Deprecated()) v.deprecated.insert({d, s.Name(), s.SinceVersion()});
  }
}

Status add_suite_versions(const std::string& suite_dir, CoverageVersions& v) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> models;
  for (fs::directory_iterator it(suite_dir, ec), end; !ec && it != end; it.increment(ec))
    if (fs::exists(it->path() / "model.onnx")) models.push_back(it->path() / "model.onnx");
  if (ec) return invalid_input("cannot list the suite folder: " + ec.message()).with_place(suite_dir);
  std::sort(models.begin(), models.end());
  onnx::LoadOptions options;
  options.check_versions = false;  // only the opset imports are read
  for (const fs::path& p : models) {
    auto m = onnx::load_model(p.string(), options);
    if (!m.has_value()) return m.status();
    ++v.suite_models;
    // A multi-node model (an expanded function, a composite test) holds helper ops at the opset
    // of the op under test, not at their own since-versions: only single-node models count.
    if (m->graph.nodes.size() != 1) continue;
    ++v.suite_single_node_models;
    const onnx::OnnxNode& n = m->graph.nodes[0];
    const int64_t opset = m->opset(n.domain);
    if (is_coverage_domain(n.domain) && opset > 0) v.versions[{n.domain, n.op_type, opset}] |= kFromSuite;
  }
  v.suite_name = fs::path(suite_dir).lexically_normal().filename().string();
  if (v.suite_name.empty()) v.suite_name = fs::path(suite_dir).parent_path().filename().string();
  return Status::ok();
}

void add_rule_versions(const Registry& r, CoverageVersions& v) {
  for (const Rule& rule : r.rules())
    if (is_coverage_domain(rule.domain))
      v.versions[{rule.domain, rule.op_type, rule.range.first}] |= kFromRule;
}

std::string render_coverage_markdown(const Registry& r, const CoverageVersions& v) {
  std::map<OpKey, std::vector<Rule>> rules;
  for (const Rule& rule : r.rules()) rules[{rule.domain, rule.op_type}].push_back(rule);

  struct Row {
    std::string op;
    int64_t since;
    const Rule* rule;
    std::string reason, sources;
  };
  std::map<std::string, std::vector<Row>> by_domain;
  for (const auto& [key, sources] : v.versions) {
    const auto& [domain, op, since] = key;
    if (!kept(v, domain, since, sources)) continue;
    Row row{op, since, r.find(domain, op, since), "", sources_text(sources)};
    if (!row.rule) row.reason = reason_not_lowered(rules[{domain, op}], v.deprecated.count(key) > 0, since);
    by_domain[domain].push_back(row);
  }

  std::string s =
      "# ONNX operator coverage\n\n"
      "Generated from the lowering registry (`lowering/onnx/registry.cpp`) by\n"
      "`lower::render_coverage_markdown()`; do not edit by hand. `OnnxCoverage.UpToDate` fails when\n"
      "this file is stale (regenerate with\n"
      "`PLUMB_UPDATE_GOLDEN=1 build/bin/plumb_lowering_tests --gtest_filter=OnnxCoverage.*`);\n"
      "`plumb coverage [SUITE_DIR]` prints it.\n\n"
      "One row per operator and opset version at which its schema changed (its since-version). A row\n"
      "is *lowered* when a registry rule's opset range holds that version (the rule then serves every\n"
      "opset up to the op's next since-version); a rule may still refuse some attribute values or\n"
      "dtypes with a stated reason. The since-versions come from these sources (column *source*):\n\n"
      "- `onnx 1.12`: libonnx 1.12's schema registry (`OpSchemaRegistry::get_all_schemas_with_history()`),\n"
      "  authoritative up to its newest opsets:";
  for (const auto& [domain, max] : v.schema_max_opset)
    s += " " + shown_domain(domain) + " " + std::to_string(max) + ",";
  s.back() = ';';
  s += "\n";
  if (!v.suite_name.empty()) {
    s += "- `suite`: the single-node models of the ONNX backend node suite `" + v.suite_name + "` (" +
         std::to_string(v.suite_single_node_models) + " of its " + std::to_string(v.suite_models) +
         " models):\n  ONNX's test generator writes a node test's model at the op's since-version unless the "
         "test\n  pins an opset;\n";
  } else {
    s += "- `suite`: no ONNX backend node suite was read for this rendering;\n";
  }
  s += "- `rule`: the first opset of each registry rule.\n\n"
       "Below libonnx 1.12's newest opset of a domain only its schemas count. Above it, a since-version\n"
       "that no single-node suite model and no rule starts at is **not listed**: this page cannot see\n"
       "it, so an op changed in a newer ONNX without a test model at that version is missing here.\n\n"
       "| domain | versions | lowered | not lowered |\n|---|---:|---:|---:|\n";
  for (const auto& [domain, rows] : by_domain) {
    const auto lowered = std::count_if(rows.begin(), rows.end(), [](const Row& row) { return row.rule; });
    s += "| " + shown_domain(domain) + " | " + std::to_string(rows.size()) + " | " + std::to_string(lowered) +
         " | " + std::to_string(rows.size() - lowered) + " |\n";
  }
  for (const auto& [domain, rows] : by_domain) {
    s += "\n## " + shown_domain(domain) +
         "\n\n| op | since | status | rule or reason | source |\n|---|---:|---|---|---|\n";
    for (const Row& row : rows) {
      s += "| " + row.op + " | " + std::to_string(row.since) + " | " +
           (row.rule ? "lowered" : "**not lowered**") + " | " +
           (row.rule ? range_text(row.rule->range) : row.reason) + " | " + row.sources + " |\n";
    }
  }
  return s;
}

Expected<std::string> onnx_coverage_markdown(const std::string& suite_dir) {
  CoverageVersions v;
  add_onnx_schema_versions(v);
  if (!suite_dir.empty()) PLUMB_RETURN_IF_ERROR(add_suite_versions(suite_dir, v));
  add_rule_versions(default_registry(), v);
  return render_coverage_markdown(default_registry(), v);
}

}  // namespace plumb::lower
