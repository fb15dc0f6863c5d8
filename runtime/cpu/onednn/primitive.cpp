#include "runtime/cpu/onednn/primitive.h"

#include <cfloat>
#include <cmath>
#include <cstring>

#include "ir/attrs.h"
#include "runtime/cpu/onednn/scan.h"

namespace plumb::rt::cpu {

using dims_t = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

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

Expected<std::shared_ptr<Built>> build(const dnnl::engine& eng, const onednn::Fused& f,
                                       const ir::Node& anchor, const ir::Type& src_t, const ir::Type& w_t,
                                       const ir::Type& out_t, const Tensor* weights,
                                       const std::vector<float>& bias, const dnnl::memory::desc* pool_src) {
  auto b = std::make_shared<Built>();
  try {
    dnnl::post_ops po;
    if (f.residual != ir::kNoValue) po.append_sum(1.0f);
    if (f.gelu_standard()) {  // after the bias (the primitive's) and any sum, as the pattern reads
      po.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
      b->gelu_post_op = true;
    }
    // relu/clip as eltwise_clip (max with lo, then min with hi; FLT_MAX for an open hi): the spec's
    // max/min on every finite value, which is all the span lets it see (island.cpp sends a unit
    // with a non-finite operand to ref: oneDNN's clip would turn a NaN into lo). Not eltwise_relu:
    // its alpha * x gives -0 for a negative x where max(x, 0) gives +0. Not after a GELU pass.
    if (f.act != onednn::Act::kNone && !f.pool && !(f.gelu && !f.gelu_standard())) {
      po.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, f.lo, std::isfinite(f.hi) ? f.hi : FLT_MAX);
      b->act_post_op = true;
    }
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
      b->src_user = plain(sd);
      b->dst_user = plain(od);
      b->src_md = pool_src ? *pool_src : b->src_user;
      const dnnl::memory::desc dst_md = pool_src ? dnnl::memory::desc(od, dt::f32, tag::any) : b->dst_user;
      dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max,
                                       b->src_md, dst_md, strides, kernel, dil, pl, pr);
      dnnl::pooling_v2_forward::primitive_desc pd(d, attr, eng);
      if (pd.dst_desc().dims() != od)
        return internal_error("cpu: oneDNN's pool result shape differs from the plan's");
      b->prim = dnnl::pooling_v2_forward(pd);
      b->dst_md = pd.dst_desc();
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
      b->w_finite = all_finite(weights->as<float>(), weights->numel());
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

}  // namespace plumb::rt::cpu
