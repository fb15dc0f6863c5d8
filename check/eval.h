// The evaluation behind `plumb check` (DESIGN.md §7, issues 6 and 12; check/onnx/run_check.h drives
// it): the runs it makes, the isolated (per-node) graph, and the error statistics with the
// tolerance from data.
//
// Runs, each on the ref backend:
//   carried    the model as lowered, every compared ONNX tensor added as a graph result
//   isolated   the same, with every compared intermediate that has an expected value of the right
//              dtype and shape cut out of the graph: its consumers read a new graph input bound to
//              the expected value, so each ONNX node is evaluated on the expected values of its
//              inputs (local error), while the tensor itself is still computed and compared
// and for `--tolerance auto` each also precise (rt::NumericMode::kPrecise, every float value f64:
// r ~ the exact result) and stochastic (check_bound.h: precise runs with every float core result
// perturbed by its local rounding error, K per run set), from which the noise bound of each
// tensor is estimated: the auto bound is check_bound.h's, outside it = semantic error, inside =
// numerical noise, undecidable = inconclusive.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "check/bound.h"
#include "ir/graph.h"
#include "ir/status.h"
#include "runtime/value.h"

namespace plumb::check {

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

struct ErrorStats {
  int64_t elements = 0;
  int64_t differ = 0;              // elements not bit-equal (NaN equals NaN)
  int64_t mismatches = 0;          // elements outside the tolerance in force
  int64_t beyond_noise = 0;        // elements outside the auto bound
  int64_t nan_inf_mismatches = 0;  // NaN or inf on one side and not the other (or other sign)
  double max_abs = 0, max_rel = 0, max_ulp = 0;
  double bound_ratio = 0;    // the factor the auto bound would need (max of the two tests below)
  double min_rtol = 0;       // smallest rtol that passes with atol 0 (inf when an expected 0 differs)
  bool have_bounds = false;  // the auto bound was estimated (noise samples exist)
  bool match = true;
  bool inconclusive = false;   // the auto bound cannot decide (never together with a "match" verdict)
  bool shape_differs = false;  // the tensors' shapes differ: no element was compared (why says both)
  std::string why;             // first failing element, the kind/dtype/shape reason, or why inconclusive
  int64_t hist[kHistBins] = {};
  // The auto bound (check_bound.h): samples K, the element and aggregate ratios |e - r| / allowed,
  // plumb's own native run's ratio (calibration), rms noise sigma, and the terms' rms sizes.
  int samples = 0;
  double element_ratio = 0, aggregate_ratio = 0, native_ratio = 0;
  double sigma_rms = 0;
  double term_local = -1, term_carried = -1, term_inputs = -1;  // -1: not measured
  std::string dominant() const;                                 // "local", "carried", "inputs", or "-"
  // "exact", "noise" (within the auto bound), "semantic" or "inconclusive"
  std::string category() const;
};

struct FixedTolerance {
  bool use = false;  // false: the auto bound decides
  double rtol = 1e-3, atol = 1e-7;
};

// The precise-mode results the auto bound needs (null / empty when unavailable).
struct BoundInputs {
  const rt::RtValue* precise = nullptr;    // r
  NoiseSamples ops;                        // every float op perturbed (end to end, or the isolated node)
  NoiseSamples inputs;                     // isolated: the fed expected values perturbed
  const rt::RtValue* own_sigma = nullptr;  // the sigma of the rounding of the op producing the tensor
  bool isolated = false;                   // ops is the local term (else the carried total)
  std::string unavailable;                 // why there are no samples
};

// Compares actual `a` with expected `e`; `b` and `info` give the auto bound. Non-float tensors and
// containers compare exactly.
ErrorStats compare_value(const rt::RtValue& a, const rt::RtValue& e, const BoundInputs& b,
                         const OnnxNodeInfo* info, const FixedTolerance& tol);

// Whether v is a tensor with storage: a default RtValue (an unset result, an empty running sum) is
// a rank-0 f32 tensor with none, which only the storage tells apart from a real rank-0 value.
bool has_storage(const rt::RtValue& v);
// has_storage, f64, of `shape`.
bool holds_f64_of_shape(const rt::RtValue& v, const std::vector<int64_t>& shape);

// Every element of a numeric tensor as a double (a string tensor gives zeros).
std::vector<double> tensor_doubles(const rt::Tensor& t);

// ulp of x in a float dtype, and its machine epsilon.
double ulp_in(ir::DType dt, double x);
double eps_of(ir::DType dt);

}  // namespace plumb::check
