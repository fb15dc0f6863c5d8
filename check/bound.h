// The `--tolerance auto` noise bound of `plumb check` (issue 12; docs/check-tolerance.md).
//
// The question per compared float tensor: could an implementation that evaluates every op of the
// graph in the tensor's dtype, in some reasonable order, have produced the expected value e? Its
// error against the exact result (r, the precise f64 run) has two parts:
//   local    the rounding of each op on its own inputs. Modelled per core op, on the op's actual
//            operands in that run (never propagated from the graph inputs), as a random error:
//              correctly rounded ops (add, sub, mul, div, sqrt, cast to a narrower float):
//                uniform in +-u|y|                                      (u = eps/2, unit roundoff)
//              functions of class UlpK (exp, erf, pow, ...): uniform in +-(2K + 1) u |y|
//                (K ulp from the rounded result, spec/numerics.md, plus that rounding)
//              sums of n terms t_k (matmul, conv, reduce/pool/scan sum): the error of a sequential
//                sum with independent roundings, averaged over the order of the terms:
//                  var = u^2/3 * ( (n+1)/6 * (2 y^2 + q) + q ),   q = sum t_k^2
//                (E over orders of sum_k S_k^2 = (n+1)(2y^2 + q)/6 for the partial sums S_k, plus
//                one rounding per product); q is the same op on squared operands
//              products of n factors (reduce/scan prod): uniform in +-sqrt(n) u |y|
//              float constants (weights, folded values): uniform in +-2u|c| (faithfully rounded)
//                but none for integers and half-integers (shape arithmetic, pixel-centre offsets)
//              exact ops (copies, gathers, max, compare, floor, ...): none
//              results exactly representable in the dtype (Veltkamp's split), and sums of integer
//              terms with sum t^2 < 2^p: none (index arithmetic in floats stays exact)
//            with u of the ONNX node's output dtype even where the lowering computes in f64 (the
//            ONNX formula "in the tensor's dtype"; e.g. GridSample's coordinates).
//   carried  how those local errors propagate through the rest of the graph: not bounded but
//            measured, by stochastic arithmetic (Monte Carlo arithmetic; CESTAC, Verificarlo):
//            K precise runs of the graph in which every float core result gets a random
//            perturbation of its local size (rng, a different seed per run). The spread of those
//            runs around r is the noise of such an implementation, carried as it really
//            propagates, so it stays proportional to the real noise at any depth.
//   inputs   in the isolated runs, a fed expected value need not be what the implementation that
//            produced the next expected value consumed: it may be rounded (a value held wider and
//            rounded for the export: within one ulp, faithful rounding) or come from another
//            implementation or run (intermediates dumped by onnxruntime, outputs by torch): then it
//            differs by that tensor's own noise, estimated by its end-to-end stochastic runs. K more
//            runs move only the fed values by both (perturbed_input), which gives the
//            expected-input term.
//
// Decision (per tensor of N elements; sigma_i^2 = sum over the run sets of sum_k (y_k,i - r_i)^2 / K,
// S^2 = mean_i sigma_i^2):
//   element   |e_i - r_i| <= z_el(K) * sqrt(sigma_i^2 + S^2 + kappa^2 r_i^2)
//             kappa^2 = sum_i sigma_i^2 / sum_i r_i^2 (the tensor's pooled relative noise): a floor,
//             estimated from N*K samples, for elements whose own K samples happen to be small.
//             z_el(K) = Student's t quantile with K degrees of freedom, two-sided 1e-4 (e - r is
//             compared with a scale estimated from K samples: Sohier et al., "Confidence intervals
//             for stochastic arithmetic", TOMS 2021, centered normal hypothesis).
//   aggregate rms_i(e_i - r_i) <= z_agg * S, z_agg = Student's t quantile, two-sided 1e-4, with the
//             N*K degrees of freedom of the pooled S^2 (3.89 for large tensors, z_el for a
//             scalar); the numerator is taken as one draw, so that it holds even when the
//             tensor's errors are fully correlated. TOSA's compliance tests judge dot products
//             the same way: per element and by the statistics of the whole tensor.
// The verdict is "inconclusive" (never "match") when the samples cannot decide: none could be
// made, plumb's own native f32 run falls outside the bound of a tensor whose expected value also
// does (the samples do not represent this tensor's noise), or the bound admits zero for every
// element (no significant digit in the dtype: a huge condition number).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"
#include "runtime/backend.h"
#include "runtime/value.h"

namespace plumb::check {

struct OnnxNodeInfo;          // check/eval.h
double eps_of(ir::DType dt);  // check/eval.h

constexpr int kDefaultSamples = 6;  // stochastic runs per run set (--samples)

// What the stochastic graph perturbs.
struct NoiseOptions {
  uint64_t seed = 1;                  // one per run
  bool ops = true;                    // every float core result (local rounding)
  std::vector<ir::ValueId> sigma_of;  // top-level values whose perturbation sigma is also a result
  // The perturbation of an f32 or f64 constant computed when the graph is made (one pass) rather
  // than by nodes in every run: the same bits (false: the nodes, for the test that compares them).
  bool constants_on_host = true;
  // The backend's declared error (rt::Backend::declared_error, spec/numerics.md): these top-level
  // values' local perturbation is widened by `width` u|y| (a relative rounding grows by it; any
  // other gets a second relative perturbation of that width after it).
  std::vector<rt::DeclaredError> declared;
};

struct StochasticGraph {
  ir::Graph graph;
  std::vector<int> sigma_result;  // per NoiseOptions::sigma_of: its result index, -1 if not perturbed
};

// The graph with a random perturbation of its local size after every float core result (and fed
// parameter), as above. Values keep their ids, so results and params line up with `g` (the sigma
// results come after g's). Run it in precise mode.
Expected<StochasticGraph> stochastic_graph(const ir::Graph& g, const std::vector<OnnxNodeInfo>& nodes,
                                           const NoiseOptions& o);

// sumsq += (sample - center)^2 elementwise, for float tensors of one shape (sumsq starts empty);
// non-finite deviations add nothing.
void add_squared_deviation(const rt::RtValue& sample, const rt::RtValue& center, rt::RtValue& sumsq);

// One run set's samples for one tensor: sum over its K runs of (y_k - r)^2, per element.
struct NoiseSamples {
  const rt::RtValue* sumsq = nullptr;
  int runs = 0;
};

// The noise estimate of one tensor: sigma_i^2 = sum over the run sets of sumsq_i / K.
struct NoiseBound {
  int samples = 0;  // K of the sets used (the smallest)
  double z_element = 0, z_aggregate = 0;
  double sigma_rms = 0;            // S
  std::vector<double> set_rms;     // rms over elements of each set's sigma (its term's size)
  std::vector<double> scale;       // per element: sqrt(sigma_i^2 + S^2 + kappa^2 r_i^2)
  bool all_zero_admitted = false;  // |r_i| <= z_el * scale_i for every element, some r_i != 0
  bool available() const { return samples > 0; }
};
NoiseBound noise_bound(const std::vector<double>& r, const std::vector<NoiseSamples>& sets);

// max over the element and aggregate tests of |x - r| / allowed (0 when x == r; inf for NaN/inf
// mismatches are handled by the caller).
struct BoundRatio {
  double element = 0, aggregate = 0;
  double worst() const { return element > aggregate ? element : aggregate; }
};
BoundRatio bound_ratio(const NoiseBound& b, const std::vector<double>& r, const std::vector<double>& x);

// Per element sumsq / K (empty without samples or when the size is not n).
std::vector<double> noise_variance(const NoiseSamples& s, int64_t n);

// A fed expected value moved by its own noise: x + sqrt(var_i + (2u x_i)^2 / 3) z_i, z uniform with
// unit variance (seeded), rounded to x's dtype. var: the end-to-end noise variance of the tensor
// (another implementation's value may differ from the one that implementation consumed by that
// much), empty for none; (2u x)^2 / 3: its faithful rounding. Non-float values are returned as is.
rt::RtValue perturbed_input(const rt::RtValue& x, const std::vector<double>& var, uint64_t seed);

// Student's t quantile with `dof` degrees of freedom at two-sided 1e-4 (normal for dof > 30).
double t_quantile_1e4(int dof);

}  // namespace plumb::check
