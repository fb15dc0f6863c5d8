// `plumb diff A B [--data DIR]` and `plumb check MODEL --against REFERENCE` (issue 24): the parts
// that need the ONNX frontend. Both models are loaded as check loads a model (check/model_inputs.h:
// .onnx lowered, specialized on the inputs when given, or .plumb), their core graphs matched and
// compared (check/diff.h); attribute changes are described in ONNX terms from the two .onnx files.
//
// On data, B is checked with A's values as the expected ones: A runs on the inputs (ref, native),
// and every tensor B computes gets the value of its partner in A (check/diff_match.h) where its
// node computes the same as the partner's, else (a changed weight or attribute, a node only in B)
// the value of A's tensor of the same ONNX name, if any: after a BatchNormalization folded into a
// Conv, the Conv's output is compared with the BatchNormalization's. run_check (check/onnx/run_check.h)
// then applies the check engine's bound and isolation, so "where their results part" is the
// check's first divergence, named at B's node.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "check/diff.h"
#include "check/diff_view.h"
#include "check/model_inputs.h"
#include "check/onnx/expected.h"
#include "check/onnx/run_check.h"
#include "check/report.h"

namespace plumb::check {

// Evaluates a value computed from constants only (a weight through a DequantizeLinear or a
// Transpose) on ref, with ir::Folder (ir/fold.h) on rt::RefEvaluator and limits for whole
// weights: up to 2^25 elements per value, 1 GiB per evaluation. One per pair of graphs compared.
ConstantFolder weight_folder();

// ONNX attribute differences between the nodes of two .onnx models, by node name ("" when a model
// is not .onnx, a node is not found, or the attributes are the same).
Expected<AttrDescriber> onnx_attr_describer(const std::string& a, const std::string& b);

// The expected values `run_check` gets from REFERENCE for `model` (lowered from `model_path` on the
// same inputs): the partner of every ONNX-named tensor computed by `model`, from a run of REFERENCE
// (charged to `memory` when given: plumb check's budget).
Expected<std::vector<ExpectedValue>> reference_values(const std::string& reference, const InputFiles& inputs,
                                                      const ir::Graph& model, int threads,
                                                      const std::shared_ptr<rt::MemoryBudget>& memory = {});

struct DiffRequest {
  std::string a, b;   // .onnx or .plumb
  InputFiles inputs;  // empty: compare the graphs only
  int threads = 1;
  int samples = kDefaultSamples;
  std::function<void(const ProgressStep&)> on_step;  // may be empty
};

struct DiffReport {
  std::string a, b;
  GraphDiff diff;
  std::vector<DiffRow> rows;  // the two models' ONNX nodes side by side (check/diff_view.h)
  bool ran = false;           // compared on the data (only when there are findings)
  CheckReport data;           // B checked against A's values
  // "equivalent" (no finding), "equivalent on the data", "different", "inconclusive"
  std::string verdict;
  int exit_code() const;  // 0 equivalent (either), 1 different, 3 inconclusive
};

Expected<DiffReport> run_diff(const DiffRequest& request);

void print_diff(const DiffReport& r, std::FILE* out);
std::string diff_json(const DiffReport& r);
// One self-contained page, no network, no script (check/onnx/diff_html.cpp): the verdict, the
// findings, the two models' ONNX nodes side by side (a CSS-only changes-only toggle) and, on data,
// check's plot and tensor table of B against A's values.
std::string diff_html(const DiffReport& r);

}  // namespace plumb::check
