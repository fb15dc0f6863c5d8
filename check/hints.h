// Hints that the expected values, not the model, may be what differs (issue 20). A converter
// engineer who dumps a framework's intermediates meets traps that make plumb blame a node that is
// right: the exporter fused layers (torch folds a BatchNormalization into the Conv before it, so
// torch's Conv output is not the ONNX Conv's), an in-place activation overwrote the saved
// activation (torch's ReLU(inplace=True)), a tensor was saved in another layout. Each hint says
// what in the evidence points there, as a possibility to rule out, never as the verdict.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "check/report.h"
#include "ir/graph.h"
#include "runtime/value.h"

namespace plumb::check {

// What the hints look at per row of the report (same order): the expected value compared, and how
// many elements of the computed (end-to-end) value are negative.
struct RowEvidence {
  const rt::RtValue* expected = nullptr;
  int64_t computed_negative = 0;
};

// Negative elements of a float tensor (0 for anything else).
int64_t count_negative(const rt::RtValue& v);

// The hint lines for r's first divergence (none when there is none or nothing points at the
// expected values); `g` is the graph the rows' values belong to.
std::vector<std::string> expected_value_hints(const ir::Graph& g, const CheckReport& r,
                                              const std::vector<RowEvidence>& rows);

}  // namespace plumb::check
