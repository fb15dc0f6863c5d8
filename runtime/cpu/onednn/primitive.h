// One matched unit (runtime/cpu/onednn/fusion.h's Fused) as a oneDNN primitive for one set of
// shapes: the primitive with its post-ops, its prepacked constant weights, and the reorders between
// the graph's plain row-major layout and the layouts oneDNN chose (format_tag::any).
#pragma once

#include <memory>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "ir/graph.h"
#include "ir/status.h"
#include "runtime/cpu/onednn/fusion.h"
#include "runtime/value.h"

namespace plumb::rt::cpu {

constexpr int64_t kAlign = 64;
inline int64_t aligned(int64_t b) { return (b + kAlign - 1) / kAlign * kAlign; }

bool static_f32(const ir::Type& t);
dnnl::memory::dims dims_of(const ir::Type& t);
dnnl::memory::desc plain(const dnnl::memory::dims& d);  // dense row-major f32

// What one unit needs for one set of shapes. Shared by the plans with those shapes (primitives
// are thread-safe). Offsets are into the unit's own part of the span's scratch, [0, scratch).
struct Built {
  dnnl::primitive prim;
  dnnl::memory::desc src_user, src_md, dst_user, dst_md, weights_md, pad_md;
  dnnl::memory weights;  // packed constant weights (empty for a matmul rhs given at run time)
  dnnl::memory bias;
  dnnl::primitive src_reorder, dst_reorder, res_reorder;  // empty when the layouts agree
  int64_t src_off = 0, dst_off = 0, pad_off = 0, scratch = 0;
  bool runtime_weights = false;
  bool gelu_post_op = false;
  bool act_post_op = false;  // relu/clip is oneDNN's eltwise_clip post-op (finite operands only)
  bool w_finite = true;      // the packed weights hold no inf or NaN  // the unit's GELU is oneDNN's
                             // eltwise_gelu_erf post-op (Fused::gelu_standard)
  double w_max = 0;          // largest finite |weight| of the packed weights (the overflow guard)
};

// pool_src: for a max pool that reads the previous unit's result inside an island, that result's
// layout (the pool then works in it and chooses its own result layout); null: plain.
Expected<std::shared_ptr<Built>> build(const dnnl::engine& eng, const onednn::Fused& f,
                                       const ir::Node& anchor, const ir::Type& src_t, const ir::Type& w_t,
                                       const ir::Type& out_t, const Tensor* weights,
                                       const std::vector<float>& bias,
                                       const dnnl::memory::desc* pool_src = nullptr);

}  // namespace plumb::rt::cpu
