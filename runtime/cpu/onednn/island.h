// One claimed island (runtime/cpu/onednn/fusion.h) under one plan: its units' primitives run one
// after the other, the first reading the span's plain input, each next one the previous one's
// result in the layout oneDNN chose (in the span's scratch, reordered only where two units chose
// different layouts), the last writing the span's plain result. A result that a later unit adds
// (its summand) is kept in a region of its own until then, and copied (or reordered) into that
// unit's result before its sum post-op.
//
// Overflow guard: oneDNN's FMA does not round (so cannot overflow) a product on its own, and it
// sums in another order than ref, so where a product or a partial sum could pass FLT_MAX the
// special values may differ from the spec's (conv/matmul: "inf + -inf is NaN" after two products
// overflow; spec/vectors/matmul/f32_overflow). Before each unit the run bounds every partial sum
// by terms * max|x| * max|w| + max|bias| + max|summand| (finite operands; inf and NaN operands give
// the same special values in any order); at half of FLT_MAX or more the whole span runs on ref
// instead (nothing but scratch is written before the last unit, so its inputs are intact). max|x|
// of an inner value: max(|lo|, |hi|) after a clip, the source's after a max pool, else a pass over
// it (the layout's padding holds zeros, or lo after a clip: finite, and it meets zero weights).
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "runtime/backend.h"
#include "runtime/cpu/onednn/primitive.h"
#include "runtime/cpu/onednn/ref_path.h"

namespace plumb::rt::cpu {

// What a unit's run needs to know of its plan besides the primitive.
struct SpanPlan {
  int src_arg = -1, w_arg = -1, res_arg = -1;  // indices into SpanArgs::inputs (-1: none; src: inner)
  int res_unit = -1;  // the summand is this earlier unit's result, kept inside the island
  int src_unit = -1;  // the source is this earlier unit's result (kept unless it is the previous one)
  int64_t src_numel = 0, w_numel = 0, res_numel = 0, dst_numel = 0;
  int64_t terms = 0;  // products summed per result element
  bool conv = false;
  bool pool = false;            // max pool: NaN and -0 (whose order oneDNN's max does not keep) run on ref
  double w_max = 0, b_max = 0;  // largest finite |weight| (packed weights) and |bias|
  onednn::Act act = onednn::Act::kNone;
  float lo = 0, hi = 0;
  bool gelu = false;        // Fused::gelu's pass after the primitive (its operands must all be finite)
  bool gelu_fused = false;  // the GELU is the primitive's post-op (no pass; the guard stays)
  bool act_fused = false;   // relu/clip is the primitive's post-op: every operand must be finite
  bool wb_finite = true;    // the packed weights and the bias hold no inf or NaN
  float gelu_c = 0, gelu_one = 0, gelu_k = 0;
  bool erf_first = true, x_first = true, m_first = true;
};

struct Unit {
  std::shared_ptr<Built> built;
  SpanPlan plan;
};

// The span for these units (in island order). The constructor throws dnnl::error where a reorder
// between two units' layouts cannot be made. Its oneDNN buffers take scratch [0, onednn_bytes());
// attach the ref path (whose values start there) with set_ref before it runs.
class IslandSpan final : public CompiledSpan {
 public:
  IslandSpan(std::vector<Unit> units, const dnnl::engine& eng, const ir::Node& anchor, int64_t preorder,
             int threads);
  int64_t onednn_bytes() const { return onednn_bytes_; }
  void set_ref(std::unique_ptr<RefPath> ref) { ref_ = std::move(ref); }
  int64_t scratch_bytes() const override { return std::max(ref_ ? ref_->end() : 0, onednn_bytes_); }
  Status run(const SpanArgs& args, Stream*) override;

 private:
  struct Stage {
    Unit u;
    dnnl::primitive link;  // the previous result's layout -> this source's (empty: the same)
    int64_t base = 0;      // the unit's own part of scratch (Built's offsets are from here)
    int64_t in_off = -1;   // an inner unit's source
    int64_t out_off = -1;  // a unit's result when another unit follows
    int64_t out_floats = 0;
    bool kept = false;         // its result is a later unit's summand: in a region of its own
    bool out_finite = false;   // this run: its result is known finite (finite operands, guard passed)
    dnnl::primitive res_link;  // an inner summand's layout -> this result's (empty: the same)
    dnnl::memory src_user, dst_user, res_user, src, dst, weights, pad, prev_out, res_inner;
    std::vector<dnnl_exec_arg_t> args;
  };
  Status check(dnnl_status_t s) const;
  Status exec(const dnnl::primitive& p, const dnnl::memory& from, const dnnl::memory& to);
  Status run_unit(Stage& s, bool first, bool last, const SpanArgs& args, const float* src, int64_t src_floats,
                  double& bound, bool& finite, bool& declined);

  std::vector<Stage> stages_;
  dnnl::stream stream_;
  const ir::Node& anchor_;
  int64_t preorder_;
  int threads_;
  int64_t onednn_bytes_ = 0;
  std::unique_ptr<RefPath> ref_;
};

}  // namespace plumb::rt::cpu
