// spec/onnx_coverage.md: every ONNX operator of the standard domains at every opset version where
// its schema changed (its "since versions"), with the registry rule that lowers it or the reason
// none does (DESIGN §5's coverage goal, made mechanical as STYLE 2.1 asks). Kept fresh by the
// test OnnxCoverage.UpToDate; printed by `plumb coverage`.
//
// No single machine-readable list of since-versions exists here for the newest ONNX, so the list
// is the union of three sources, each named in the page's header:
//  - libonnx 1.12's schema registry (authoritative up to its own newest opsets: ai.onnx 17,
//    ai.onnx.ml 3, ai.onnx.preview.training 1);
//  - the single-node models of an ONNX backend node suite: ONNX's test generator writes a node
//    test's model at the op's since-version unless the test names its own opset;
//  - the first opset of every registry rule (a rule starts where its author saw the schema change).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "ir/status.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

// Where a since-version was seen (bits).
enum VersionSource : unsigned {
  kFromOnnxSchemas = 1,
  kFromSuite = 2,
  kFromRule = 4,
};

struct CoverageVersions {
  // (canonical domain, op type, since-version) -> VersionSource bits.
  std::map<std::tuple<std::string, std::string, int64_t>, unsigned> versions;
  // What libonnx 1.12 knows: per domain its newest opset, and the versions whose schema it marks
  // deprecated (Scatter-11, Upsample-10: ONNX removed the op there).
  std::map<std::string, int64_t> schema_max_opset;
  std::set<std::tuple<std::string, std::string, int64_t>> deprecated;
  // The suite, when one was read: its folder's name and how many models it gave.
  std::string suite_name;
  int64_t suite_models = 0;
  int64_t suite_single_node_models = 0;
};

// The standard domains the page covers: "", "ai.onnx.ml", "ai.onnx.preview.training",
// "ai.onnx.preview".
bool is_coverage_domain(const std::string& canonical_domain);

void add_onnx_schema_versions(CoverageVersions& v);
// Reads <suite_dir>/*/model.onnx; a model that does not load is an error naming it.
Status add_suite_versions(const std::string& suite_dir, CoverageVersions& v);
void add_rule_versions(const Registry& r, CoverageVersions& v);

std::string render_coverage_markdown(const Registry& r, const CoverageVersions& v);

// All three sources (the suite only when `suite_dir` is not empty), rendered.
Expected<std::string> onnx_coverage_markdown(const std::string& suite_dir);

}  // namespace plumb::lower
