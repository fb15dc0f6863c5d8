#include "runtime/cpu/onednn/cpu_backend.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>

#include <oneapi/dnnl/dnnl.hpp>

#include "ir/attrs.h"
#include "runtime/cpu/onednn/fusion.h"
#include "runtime/cpu/onednn/omp_threads.h"
#include "runtime/cpu/onednn/scan.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/node_error.h"
#include "runtime/partition.h"
#include "runtime/plan.h"

namespace plumb::rt::cpu {
namespace {

using onednn::Act;
using onednn::Fused;
using dims_t = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

constexpr int64_t kAlign = 64;
int64_t aligned(int64_t b) { return (b + kAlign - 1) / kAlign * kAlign; }

bool static_f32(const ir::Type& t) {
  if (!t.is_tensor() || !t.ranked || t.dtype != ir::DType::F32) return false;
  for (const ir::Dim& d : t.shape)
    if (!d.is_static()) return false;
  return true;
}

dims_t dims_of(const ir::Type& t) {
  dims_t d;
  for (const ir::Dim& x : t.shape) d.push_back(x.size);
  return d;
}

// A dense row-major f32 descriptor.
dnnl::memory::desc plain(const dims_t& d) {
  dims_t strides(d.size(), 1);
  for (size_t k = d.size(); k-- > 1;) strides[k - 1] = strides[k] * d[k];
  return dnnl::memory::desc(d, dt::f32, strides);
}

// What one matched span needs for one set of shapes: the primitive, its packed weights, and the
// reorders at its borders. Shared by the plans with those shapes (primitives are thread-safe).
struct Built {
  dnnl::primitive prim;
  dnnl::memory::desc src_user, src_md, dst_user, dst_md, weights_md, pad_md;
  dnnl::memory weights;  // packed constant weights (empty for a matmul rhs given at run time)
  dnnl::memory bias;
  dnnl::primitive src_reorder, dst_reorder, res_reorder;  // empty when the layouts agree
  int64_t src_off = 0, dst_off = 0, pad_off = 0, scratch = 0;
  bool runtime_weights = false;
  double w_max = 0;  // largest finite |weight| of the packed weights (the overflow guard)
};

Expected<std::shared_ptr<Built>> build(const dnnl::engine& eng, const Fused& f, const ir::Node& anchor,
                                       const ir::Type& src_t, const ir::Type& w_t, const ir::Type& out_t,
                                       const Tensor* weights, const std::vector<float>& bias) {
  auto b = std::make_shared<Built>();
  try {
    dnnl::post_ops po;
    if (f.residual != ir::kNoValue) po.append_sum(1.0f);
    // relu/clip are not oneDNN post-ops: its eltwise_relu/clip (and binary_max) give 0 for NaN,
    // where spec max/min propagate it (tests/cpu: NanPropagatesThroughFusedActivations).
    dnnl::primitive_attr attr;
    attr.set_post_ops(po);
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const dims_t sd = dims_of(src_t), wd = dims_of(w_t), od = dims_of(out_t);
    const bool has_bias = !bias.empty();
    dnnl::memory::desc bias_md;
    dnnl::memory::desc& pad_md = b->pad_md;
    dnnl::memory::desc w_user;
    if (f.pool) {  // plain in and out: oneDNN's max pool has no `any` source
      const auto& a = ir::attrs<ir::Op::Pool>(anchor);
      dims_t strides, kernel, dil, pl, pr;
      for (size_t d = 2; d < sd.size(); ++d) {
        strides.push_back(a.strides[d]);
        kernel.push_back(a.window[d]);
        dil.push_back(a.dilations[d] - 1);
        pl.push_back(a.pads_low[d]);
        pr.push_back(a.pads_high[d]);
      }
      b->src_md = b->src_user = plain(sd);
      b->dst_md = b->dst_user = plain(od);
      dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max,
                                       b->src_md, b->dst_md, strides, kernel, dil, pl, pr);
      dnnl::pooling_v2_forward::primitive_desc pd(d, attr, eng);
      if (pd.dst_desc().dims() != od)
        return internal_error("cpu: oneDNN's pool result shape differs from the plan's");
      b->prim = dnnl::pooling_v2_forward(pd);
      pad_md = pd.scratchpad_desc();
    } else if (f.conv) {
      const auto& a = ir::attrs<ir::Op::Conv>(anchor);
      dims_t strides = a.strides, dil, pl = a.pads_low, pr = a.pads_high;
      for (int64_t d : a.dilations) dil.push_back(d - 1);
      dims_t wdims = wd;
      w_user = plain(wd);
      if (a.groups > 1) {  // [groups, O/groups, C/groups, k...]: the same bytes
        wdims = {a.groups, wd[0] / a.groups};
        wdims.insert(wdims.end(), wd.begin() + 1, wd.end());
        w_user = plain(wdims);
      }
      if (has_bias) bias_md = plain({od[1]});
      b->runtime_weights = weights == nullptr;  // given at run time: plain, as the graph holds it
      const dnnl::memory::desc any_src(sd, dt::f32, tag::any), any_dst(od, dt::f32, tag::any),
          any_w = b->runtime_weights ? w_user : dnnl::memory::desc(wdims, dt::f32, tag::any);
      dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference,
                                        dnnl::algorithm::convolution_direct, any_src, any_w, bias_md, any_dst,
                                        strides, dil, pl, pr);
      dnnl::convolution_forward::primitive_desc pd(d, attr, eng);
      if (pd.dst_desc().dims() != od)
        return internal_error("cpu: oneDNN's conv result shape differs from the plan's");
      b->prim = dnnl::convolution_forward(pd);
      b->src_md = pd.src_desc();
      b->dst_md = pd.dst_desc();
      b->weights_md = pd.weights_desc();
      pad_md = pd.scratchpad_desc();
      b->src_user = plain(sd);
      b->dst_user = plain(od);
    } else {
      const size_t r = sd.size();
      dims_t md = sd;  // the product's dims: batch.., M, N
      md[r - 1] = wd[r - 1];
      b->runtime_weights = weights == nullptr;
      w_user = plain(wd);
      if (f.weights_transposed)  // the constant is [N, K]: [K, N] with swapped strides
        w_user = dnnl::memory::desc(wd, dt::f32, dims_t{1, wd[0]});
      if (has_bias) {
        dims_t bd(r, 1);
        bd[r - 1] = wd[r - 1];
        bias_md = plain(bd);
      }
      const dnnl::memory::desc w_md = b->runtime_weights ? w_user : dnnl::memory::desc(wd, dt::f32, tag::any);
      dnnl::matmul::desc d(plain(sd), w_md, bias_md, plain(md));
      dnnl::matmul::primitive_desc pd(d, attr, eng);
      b->prim = dnnl::matmul(pd);
      b->src_md = b->src_user = plain(sd);
      b->dst_md = b->dst_user = plain(md);
      b->weights_md = pd.weights_desc();
      pad_md = pd.scratchpad_desc();
    }
    dnnl::stream s(eng);
    if (weights) {  // prepack: one reorder from the plain constant into the layout chosen
      b->w_max = max_finite_abs(weights->as<float>(), weights->numel());
      for (int64_t i = 0; i < weights->numel(); ++i)
        if (!std::isfinite(weights->as<float>()[i]))  // 0 * inf would be NaN
          return unsupported(
              "a weight is inf or NaN: the spec's padding contributes no term, oneDNN's may multiply "
              "it by zero");
      b->weights = dnnl::memory(b->weights_md, eng);
      dnnl::memory user(w_user, eng, const_cast<void*>(weights->data));
      dnnl::reorder(user, b->weights).execute(s, user, b->weights);
    }
    if (has_bias) {
      b->bias = dnnl::memory(bias_md, eng);
      std::memcpy(b->bias.get_data_handle(), bias.data(), bias.size() * sizeof(float));
    }
    s.wait();
    int64_t at = 0;
    auto reserve = [&](int64_t bytes) {
      const int64_t off = at;
      at += aligned(bytes);
      return off;
    };
    if (b->src_md != b->src_user) {
      b->src_reorder = dnnl::reorder(dnnl::reorder::primitive_desc(eng, b->src_user, eng, b->src_md));
      b->src_off = reserve(static_cast<int64_t>(b->src_md.get_size()));
    }
    if (b->dst_md != b->dst_user) {
      b->dst_reorder = dnnl::reorder(dnnl::reorder::primitive_desc(eng, b->dst_md, eng, b->dst_user));
      if (f.residual != ir::kNoValue)
        b->res_reorder = dnnl::reorder(dnnl::reorder::primitive_desc(eng, b->dst_user, eng, b->dst_md));
      b->dst_off = reserve(static_cast<int64_t>(b->dst_md.get_size()));
    }
    b->pad_off = reserve(static_cast<int64_t>(pad_md.get_size()));
    b->scratch = at;
  } catch (const dnnl::error& e) {
    return unsupported(std::string("oneDNN: ") + e.what());
  }
  return b;
}

// The span's nodes on the ref kernels, their values in scratch (the span's own) or in the given
// buffers: for a run the overflow guard does not let oneDNN take. Allocates (call records, shape
// vectors): it runs only for operands near f32's range.
class RefPath {
 public:
  RefPath(const ir::Graph& g, const Plan& plan, const SpanSignature& sig, int64_t base, NumericMode mode)
      : g_(g), plan_(plan), sig_(sig), mode_(mode), preorder_(body_preorder(g)), end_(base) {
    for (uint32_t i = sig.span.begin; i < sig.span.end; ++i) {
      if (plan.node_skip[i]) continue;
      for (ir::ValueId v : g.body.nodes[i].outputs) {
        if (std::find(sig.outputs.begin(), sig.outputs.end(), v) != sig.outputs.end()) continue;
        auto bytes = tensor_bytes(plan.values[v].type, int64_t{1} << 40);
        if (!bytes || !plan.values[v].type.is_tensor()) {
          ok_ = false;
          continue;
        }
        slots_.emplace_back(v, end_);
        end_ += aligned(*bytes);
      }
    }
  }
  bool ok() const { return ok_; }
  int64_t end() const { return end_; }

  Status run(const SpanArgs& args) const {
    std::vector<RtValue> v(g_.values.size());
    for (size_t k = 0; k < sig_.inputs.size(); ++k) v[sig_.inputs[k]] = *args.inputs[k];
    for (size_t k = 0; k < sig_.outputs.size(); ++k) v[sig_.outputs[k]] = *args.outputs[k];
    for (const auto& [id, off] : slots_) {
      Tensor t;
      t.dtype = plan_.values[id].type.dtype;
      t.shape = dims_of(plan_.values[id].type);
      t.data = args.scratch + off;
      v[id] = std::move(t);
    }
    for (uint32_t i = sig_.span.begin; i < sig_.span.end; ++i) {
      if (plan_.node_skip[i]) continue;
      const ir::Node& n = g_.body.nodes[i];
      NodeCall call{n, {}, {}, mode_, &g_};
      for (ir::ValueId x : n.inputs) call.inputs.push_back(&v[x]);
      for (ir::ValueId x : n.outputs) call.outputs.push_back(&v[x]);
      Status st = ref::run_kernel(call);
      if (!st.is_ok()) return node_error(std::move(st), n, preorder_[i]);
    }
    // The result was written into the output's own buffer (v holds a view of it).
    return Status::ok();
  }

 private:
  const ir::Graph& g_;
  const Plan& plan_;
  SpanSignature sig_;
  NumericMode mode_;
  std::vector<int64_t> preorder_;
  std::vector<std::pair<ir::ValueId, int64_t>> slots_;
  int64_t end_ = 0;
  bool ok_ = true;
};

// What a span's run needs to know of its plan besides the primitive.
struct SpanPlan {
  int src_arg = -1, w_arg = -1, res_arg = -1;  // indices into SpanArgs::inputs (-1: none)
  int64_t src_numel = 0, w_numel = 0, res_numel = 0, dst_numel = 0;
  int64_t terms = 0;  // products summed per result element
  bool conv = false;
  bool pool = false;            // max pool: NaN and -0 (whose order oneDNN's max does not keep) run on ref
  double w_max = 0, b_max = 0;  // largest finite |weight| (packed weights) and |bias|
  Act act = Act::kNone;
  float lo = 0, hi = 0;
};

// One span under one plan: the handles its run points at the plan's buffers.
//
// Overflow guard: oneDNN's FMA does not round (so cannot overflow) a product on its own, and it
// sums in another order than ref, so where a product or a partial sum could pass FLT_MAX the
// special values may differ from the spec's (conv/matmul: "inf + -inf is NaN" after two products
// overflow; spec/vectors/matmul/f32_overflow). Each run bounds every partial sum by
// terms * max|x| * max|w| + max|bias| + max|summand| (finite operands; inf and NaN operands give
// the same special values in any order); at half of FLT_MAX or more the span runs on ref instead.
class CpuSpan final : public CompiledSpan {
 public:
  CpuSpan(std::shared_ptr<Built> b, const dnnl::engine& eng, const ir::Node& anchor, int64_t preorder,
          const SpanPlan& sp, std::unique_ptr<RefPath> ref, int threads)
      : b_(std::move(b)),
        stream_(eng),
        anchor_(anchor),
        preorder_(preorder),
        sp_(sp),
        ref_(std::move(ref)),
        threads_(threads) {
    auto none = [&](const dnnl::memory::desc& md) { return dnnl::memory(md, eng, DNNL_MEMORY_NONE); };
    src_user_ = none(b_->src_user);
    dst_user_ = none(b_->dst_user);
    res_user_ = none(b_->dst_user);  // the summand, as the graph holds it (the result's shape)
    src_ = b_->src_reorder ? none(b_->src_md) : src_user_;
    dst_ = b_->dst_reorder ? none(b_->dst_md) : dst_user_;
    if (!sp_.pool) weights_ = b_->runtime_weights ? none(b_->weights_md) : b_->weights;
    pad_ = none(b_->pad_md);
    args_.push_back({DNNL_ARG_SRC, src_.get()});
    if (!sp_.pool) args_.push_back({DNNL_ARG_WEIGHTS, weights_.get()});
    if (b_->bias) args_.push_back({DNNL_ARG_BIAS, b_->bias.get()});
    args_.push_back({DNNL_ARG_DST, dst_.get()});
    args_.push_back({DNNL_ARG_SCRATCHPAD, pad_.get()});
  }
  int64_t scratch_bytes() const override { return ref_->end(); }

  Status run(const SpanArgs& args, Stream*) override {
    uint8_t* scratch = args.scratch;
    const float* src = args.inputs[sp_.src_arg]->tensor().as<float>();
    const float* w = sp_.w_arg >= 0 ? args.inputs[sp_.w_arg]->tensor().as<float>() : nullptr;
    const float* res = sp_.res_arg >= 0 ? args.inputs[sp_.res_arg]->tensor().as<float>() : nullptr;
    void* dst = args.outputs[0]->tensor().data;
    const double reach = static_cast<double>(sp_.terms) * max_finite_abs(src, sp_.src_numel) *
                             (w ? max_finite_abs(w, sp_.w_numel) : sp_.w_max) +
                         sp_.b_max + (res ? max_finite_abs(res, sp_.res_numel) : 0.0);
    if (!(reach < 0.5 * FLT_MAX)) return ref_->run(args);
    if (sp_.pool && !ordinary(src, sp_.src_numel)) return ref_->run(args);     // NaN or -0: ref's order
    if (w && sp_.conv && !all_finite(w, sp_.w_numel)) return ref_->run(args);  // 0 * inf over padding
    try {
      const OmpThreads threads(threads_);  // as many as the primitive was created for
      src_user_.set_data_handle(const_cast<float*>(src));
      dst_user_.set_data_handle(dst);
      if (b_->src_reorder) src_.set_data_handle(scratch + b_->src_off);
      if (b_->dst_reorder) dst_.set_data_handle(scratch + b_->dst_off);
      if (w) weights_.set_data_handle(const_cast<float*>(w));
      pad_.set_data_handle(scratch + b_->pad_off);
      if (b_->src_reorder) PLUMB_RETURN_IF_ERROR(exec(b_->src_reorder, src_user_, src_));
      if (res) {  // the sum post-op adds to what dst holds
        if (b_->res_reorder) {
          res_user_.set_data_handle(const_cast<float*>(res));
          PLUMB_RETURN_IF_ERROR(exec(b_->res_reorder, res_user_, dst_));
        } else if (res != dst) {
          std::memcpy(dst, res, static_cast<size_t>(sp_.res_numel) * sizeof(float));
        }
      }
      PLUMB_RETURN_IF_ERROR(check(dnnl_primitive_execute(b_->prim.get(), stream_.get(),
                                                         static_cast<int>(args_.size()), args_.data())));
      if (b_->dst_reorder) PLUMB_RETURN_IF_ERROR(exec(b_->dst_reorder, dst_, dst_user_));
      PLUMB_RETURN_IF_ERROR(check(dnnl_stream_wait(stream_.get())));
      if (sp_.act != Act::kNone) clamp(static_cast<float*>(dst), sp_.dst_numel, sp_.lo, sp_.hi);
    } catch (const dnnl::error& e) {
      return node_error(internal_error(std::string("cpu: oneDNN: ") + e.what()), anchor_, preorder_);
    }
    return Status::ok();
  }

 private:
  Status check(dnnl_status_t s) const {
    if (s == dnnl_success) return Status::ok();
    return node_error(internal_error(strfmt("cpu: oneDNN execution failed (status %d)", static_cast<int>(s))),
                      anchor_, preorder_);
  }
  Status exec(const dnnl::primitive& p, const dnnl::memory& from, const dnnl::memory& to) {
    dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, from.get()}, {DNNL_ARG_TO, to.get()}};
    return check(dnnl_primitive_execute(p.get(), stream_.get(), 2, a));
  }

  std::shared_ptr<Built> b_;
  dnnl::stream stream_;
  const ir::Node& anchor_;
  int64_t preorder_;
  SpanPlan sp_;
  std::unique_ptr<RefPath> ref_;
  int threads_;
  dnnl::memory src_user_, dst_user_, res_user_, src_, dst_, weights_, pad_;
  std::vector<dnnl_exec_arg_t> args_;
};

bool known(const Plan& plan, ir::ValueId v) {
  return plan.values[v].storage == Storage::kConstant || plan.values[v].storage == Storage::kFolded;
}

class CpuPrepared final : public PreparedGraph {
 public:
  CpuPrepared(const ir::Graph& g, std::vector<Fused> fused, const PrepareOptions& o)
      : g_(g),
        fused_(std::move(fused)),
        preorder_(body_preorder(g)),
        mode_(o.mode),
        threads_(std::max(1, o.threads)),
        eng_(dnnl::engine::kind::cpu, 0) {
    for (const Fused& f : fused_) {
      std::vector<float> b;
      if (f.bias != ir::kNoValue && o.constants && f.bias < o.constants->size() &&
          (*o.constants)[f.bias].is_tensor()) {
        const Tensor& t = (*o.constants)[f.bias].tensor();
        if (f.bias_axis < 0) {
          b.assign(t.as<float>(), t.as<float>() + t.numel());
        } else {  // the channel values of a folded broadcast (fusion.cpp checked the others equal)
          int64_t inner = 1;
          for (int64_t d = f.bias_axis + 1; d < t.rank(); ++d) inner *= t.shape[d];
          for (int64_t c = 0; c < t.shape[f.bias_axis]; ++c) b.push_back(t.as<float>()[c * inner]);
        }
      }
      bias_.push_back(std::move(b));
      const Tensor* w = nullptr;
      if (o.constants && f.weights < o.constants->size() && (*o.constants)[f.weights].is_tensor() &&
          (*o.constants)[f.weights].tensor().data)
        w = &(*o.constants)[f.weights].tensor();
      weights_.push_back(w ? std::optional<Tensor>(*w) : std::nullopt);
      cache_.emplace_back();
      // Static graph types: create the primitive and prepack the weights now, once per graph.
      const ir::Node& a = g_.body.nodes[f.anchor];
      if (weights_.back() && static_f32(g_.type_of(f.src)) && static_f32(g_.type_of(a.inputs[1])) &&
          static_f32(g_.type_of(a.outputs[0])))
        (void)get(cache_.size() - 1, g_.type_of(f.src), g_.type_of(a.inputs[1]), g_.type_of(a.outputs[0]),
                  &*weights_.back());
    }
  }

  Expected<CompiledOrDeclined> compile(size_t claim, const SpanSignature& sig, const Plan& plan) override {
    if (claim >= fused_.size()) return internal_error("cpu: compile of an unknown claim");
    const Fused& f = fused_[claim];
    auto no = [](std::string why) { return CompiledOrDeclined{nullptr, Support::no(std::move(why))}; };
    const ir::Node& a = g_.body.nodes[f.anchor];
    if (plan.node_skip[f.anchor]) return no("the planner folded the " + f.description() + " anchor");
    const ir::Type& src_t = plan.values[f.src].type;
    // the rhs as the anchor reads it (a max pool has none: its source stands in, unused)
    const ir::Type& w_t = plan.values[a.inputs[f.pool ? 0 : 1]].type;
    const ir::Type& out_t = plan.values[a.outputs[0]].type;
    for (const ir::Type* t : {&src_t, &w_t, &out_t, &plan.values[f.result].type})
      if (!static_f32(*t)) return no("a shape known only at run time: " + ir::type_to_string(*t));
    for (const ir::Type* t : {&src_t, &w_t, &out_t})
      for (const ir::Dim& d : t->shape)
        if (d.size == 0) return no("an empty tensor");
    if (sig.outputs != std::vector<ir::ValueId>{f.result})
      return no("the span's values are read after it (its only result must be the last post-op's)");
    int src_arg = -1, w_arg = -1, res_arg = -1;
    for (size_t k = 0; k < sig.inputs.size(); ++k) {
      const ir::ValueId v = sig.inputs[k];
      if (v == f.src) src_arg = static_cast<int>(k);
      if (v == f.weights) w_arg = static_cast<int>(k);
      if (v == f.residual) res_arg = static_cast<int>(k);
      if (v != f.src && (f.pool || v != f.weights) && v != f.residual && !known(plan, v))
        return no("the span reads %" + std::to_string(v) + ", which the pattern does not expect");
    }
    if (src_arg < 0 || (f.residual != ir::kNoValue && res_arg < 0))
      return no("the pattern's operands are not the span's inputs");
    if (f.residual != ir::kNoValue && plan.values[f.residual].type != plan.values[f.result].type)
      return no("the summand's type differs from the result's");
    if (f.bias != ir::kNoValue && bias_[claim].empty()) return no("the bias constant is not available");
    const Tensor* w = nullptr;
    if (weights_[claim]) {
      w = &*weights_[claim];
    } else if (!f.pool && known(plan, f.weights) && plan.known[f.weights].is_tensor()) {
      w = &plan.known[f.weights].tensor();
    }
    if (w || f.pool)
      w_arg = -1;  // packed, or none
    else if (w_arg < 0)
      return no("the matmul rhs is not an input of the span");
    auto b = get(claim, src_t, w_t, out_t, w);
    if (!b) return no(b.status().message());
    SpanPlan sp;
    sp.src_arg = src_arg;
    sp.w_arg = w_arg;
    sp.res_arg = f.residual != ir::kNoValue ? res_arg : -1;
    auto count = [](const ir::Type& t) {
      int64_t n = 1;
      for (const ir::Dim& d : t.shape) n *= d.size;
      return n;
    };
    sp.src_numel = count(src_t);
    sp.w_numel = count(w_t);
    sp.res_numel = f.residual != ir::kNoValue ? count(plan.values[f.residual].type) : 0;
    sp.dst_numel = count(plan.values[f.result].type);
    sp.terms = f.pool ? 0 : f.conv ? count(w_t) / w_t.shape[0].size : src_t.shape.back().size;
    sp.w_max = (*b)->w_max;
    sp.conv = f.conv;
    sp.pool = f.pool;
    for (float x : bias_[claim]) sp.b_max = std::max(sp.b_max, std::isfinite(x) ? std::fabs(double{x}) : 0.0);
    sp.act = f.act;
    sp.lo = f.lo;
    sp.hi = f.hi;
    auto ref = std::make_unique<RefPath>(g_, plan, sig, (*b)->scratch, mode_);
    if (!ref->ok()) return no("a value inside the span has no static size");
    return CompiledOrDeclined{
        std::make_unique<CpuSpan>(*b, eng_, a, preorder_[f.anchor], sp, std::move(ref), threads_),
        Support::ok()};
  }

 private:
  // The primitive for these shapes: cached per claim (a plan with other shapes builds another).
  Expected<std::shared_ptr<Built>> get(size_t claim, const ir::Type& s, const ir::Type& w, const ir::Type& o,
                                       const Tensor* weights) {
    // Packed weights are per value: a constant's (one per graph), or a folded value's (its data,
    // which a plan computed), or none (given at run time).
    std::string key = ir::type_to_string(s) + ir::type_to_string(w);
    if (weights) key += weights_[claim] ? " constant" : strfmt(" folded %p", weights->data);
    std::lock_guard<std::mutex> lock(mu_);
    auto& c = cache_[claim];
    if (auto it = c.find(key); it != c.end()) return it->second;
    const OmpThreads threads(threads_);  // a primitive keeps the thread count it is created with
    PLUMB_ASSIGN_OR_RETURN(auto b, build(eng_, fused_[claim], g_.body.nodes[fused_[claim].anchor], s, w, o,
                                         weights, bias_[claim]));
    c.emplace(key, b);
    return b;
  }

  const ir::Graph& g_;
  std::vector<Fused> fused_;
  std::vector<int64_t> preorder_;
  NumericMode mode_;
  int threads_;  // oneDNN's threads for this session, at creation and at run time (omp_threads.h)
  dnnl::engine eng_;
  std::vector<std::vector<float>> bias_;
  std::vector<std::optional<Tensor>> weights_;  // the constant weights (views that keep their storage)
  std::mutex mu_;
  std::vector<std::map<std::string, std::shared_ptr<Built>>> cache_;
};

class CpuBackend final : public Backend {
 public:
  std::string_view name() const override { return "cpu"; }
  std::vector<Claim> partition(const ir::Graph& g, NumericMode mode) const override {
    return onednn::match_graph(g, mode).claims;
  }
  Expected<std::unique_ptr<PreparedGraph>> prepare(const ir::Graph& g, const std::vector<NodeSpan>& claimed,
                                                   const PrepareOptions& options) override {
    const onednn::Match m = onednn::match_graph(g, options.mode);
    std::vector<Fused> fused;
    for (const NodeSpan& s : claimed) {
      auto it = std::find_if(m.fused.begin(), m.fused.end(), [&](const Fused& f) { return f.span == s; });
      if (it == m.fused.end())
        return internal_error(strfmt("cpu: claim [%u, %u) is not a matched span", s.begin, s.end));
      fused.push_back(*it);
    }
    try {
      return std::unique_ptr<PreparedGraph>(std::make_unique<CpuPrepared>(g, std::move(fused), options));
    } catch (const dnnl::error& e) {
      return unsupported(std::string("cpu: oneDNN: ") + e.what());
    }
  }
};

}  // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace plumb::rt::cpu
