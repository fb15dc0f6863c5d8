// The evaluation behind `plumb check` (DESIGN.md §7, issue 6; check/onnx/run_check.h drives it): the
// runs it makes, the isolated (per-node) graph, the bounds graph, and the error statistics with the
// tolerance from data.
//
// Runs, each on the ref backend:
//   carried    the model as lowered, every compared ONNX tensor added as a graph result
//   isolated   the same, with every compared intermediate that has an expected value of the right
//              dtype and shape cut out of the graph: its consumers read a new graph input bound to
//              the expected value, so each ONNX node is evaluated on the expected values of its
//              inputs (local error), while the tensor itself is still computed and compared
// and each in two more modes for `--tolerance auto`: precise (rt::NumericMode::kPrecise, every
// float value f64: r ~ the exact result) and a bounds run (precise, on a graph whose matmul and
// conv operands, reduce/pool sums and every float add/sub take absolute values: TOSA's
// dot-product method, spec/numerics.md "Tolerance classes": s = the computation on |inputs|).
//
// The auto bound of element i of a float tensor (result dtype with machine epsilon eps, ulp):
//     bound_i = F * ( |a_i - r_i| + c + u * ulp(r_i) + max(n, 1) * eps * |s_i| + sum |p_i - r_i| ),   F = 4
// a = native result, r = precise result, c = max over the tensor of |a_j - r_j| (plumb's largest own
// rounding error there: another implementation's error is distributed like it, not equal to it per element),
// u = the largest ulp count of the ONNX node's core ops (Exact ops count 1: the other implementation rounds
// once too), n = the longest reduction (dot-product length, reduced extent, pool window) among them (0 when
// none). |a - r| is plumb's own rounding error on this data: an implementation that associates differently
// (torch, ORT, another converter) lands within a small multiple of it. p (isolated runs only) = the precise
// result on the fed expected values moved by one ulp each: the expected values are themselves rounded
// results, and sum |p - r| (over perturbation sets, below) is how far that rounding moves this node's output.
// Outside the bound = semantic error, inside = numerical noise. This is a screening bound measured on the
// data, not a proof.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"
#include "runtime/value.h"

namespace plumb::check {

constexpr double kBoundFactor = 4.0;
constexpr int kHistBins = 20;  // log10 |a - e| in [-18, 2), one bin per decade (equal elements: none)
constexpr double kHistLo = -18.0;

// The ONNX node a set of top-level core nodes came from, and its numeric class.
struct OnnxNodeInfo {
  std::string name, op_type;
  int64_t opset = 0;
  size_t first = 0, last = 0;           // range of its top-level core nodes in graph.body.nodes
  int ulps = 1;                         // u above
  int64_t reduction = 0;                // n above
  bool dot = false;                     // contains a matmul or conv
  bool unknown_length = false;          // a reduction over symbolic extents (n counts it as 1)
  std::string tolerance_class() const;  // "exact", "ulp(4)", "accumulation(n=16)", "dot-product(n=16)"
};

// Groups consecutive top-level core nodes by provenance (the driver emits an ONNX node's core
// nodes together) and finds each group's class.
std::vector<OnnxNodeInfo> onnx_nodes_of(const ir::Graph& g);
// Index into `nodes` of the group holding top-level core node k.
size_t group_of(const std::vector<OnnxNodeInfo>& nodes, size_t k);

// The graph with the given values added as results (after the existing ones).
ir::Graph with_results(const ir::Graph& g, const std::vector<ir::ValueId>& values);

// Cuts each value in `cut` (defined by a top-level node) from its consumers outside its own ONNX
// node: they read a new graph input (appended to the params, named after the value) instead.
ir::Graph isolated_graph(const ir::Graph& g, const std::vector<ir::ValueId>& cut,
                         const std::vector<OnnxNodeInfo>& nodes);

// The bounds graph: the same values, with |.| inserted at matmul/conv operands and reduce/pool
// sum operands, and every float add/sub made an add of absolute values.
ir::Graph bounds_graph(const ir::Graph& g, const std::vector<OnnxNodeInfo>& nodes);

struct ErrorStats {
  int64_t elements = 0;
  int64_t differ = 0;              // elements not bit-equal (NaN equals NaN)
  int64_t mismatches = 0;          // elements outside the tolerance in force
  int64_t beyond_noise = 0;        // elements outside the auto bound
  int64_t nan_inf_mismatches = 0;  // NaN or inf on one side and not the other (or other sign)
  double max_abs = 0, max_rel = 0, max_ulp = 0;
  double bound_ratio = 0;  // max |a - e| / bound_i: the factor the auto bound would need
  double min_rtol = 0;     // smallest rtol that passes with atol 0 (inf when an expected 0 differs)
  bool have_bounds = false;
  bool match = true;
  std::string why;  // first failing element or the kind/dtype/shape reason
  int64_t hist[kHistBins] = {};
  // "exact", "noise" (within the auto bound) or "semantic"
  std::string category() const;
};

struct FixedTolerance {
  bool use = false;  // false: the auto bound decides
  double rtol = 1e-3, atol = 1e-7;
};

// The precise-mode results the auto bound needs (each null when unavailable).
struct BoundInputs {
  const rt::RtValue* precise = nullptr;      // r
  const rt::RtValue* bounds = nullptr;       // s
  const rt::RtValue* sensitivity = nullptr;  // sum over perturbed runs of |p - r| (f64; isolated only)
};

// Compares actual `a` with expected `e`; `b` and `info` give the auto bound. Non-float tensors and
// containers compare exactly.
ErrorStats compare_value(const rt::RtValue& a, const rt::RtValue& e, const BoundInputs& b,
                         const OnnxNodeInfo* info, const FixedTolerance& tol);

// A copy of `v` with every finite float element moved by one ulp of its dtype, away from or toward
// zero by a deterministic pseudo-random choice (f16, bf16, f32, f64; other values are returned
// unchanged). Perturbed isolated runs measure how much rounding-level differences in a node's
// expected inputs move its output (conditioning). The fed inputs are split into sets such that no
// ONNX node reads two of one set (a node's inputs are moved one at a time, so their effects cannot
// cancel); bound_i gets + sum over the sets of |p_i - r_i|.
rt::RtValue perturbed_by_one_ulp(const rt::RtValue& v, uint64_t seed);

// Whether v is a tensor with storage: a default RtValue (an unset result, an empty running sum) is
// a rank-0 f32 tensor with none, which only the storage tells apart from a real rank-0 value.
bool has_storage(const rt::RtValue& v);
// has_storage, f64, of `shape`.
bool holds_f64_of_shape(const rt::RtValue& v, const std::vector<int64_t>& shape);

// ulp of x in a float dtype, and its machine epsilon.
double ulp_in(ir::DType dt, double x);
double eps_of(ir::DType dt);

}  // namespace plumb::check
