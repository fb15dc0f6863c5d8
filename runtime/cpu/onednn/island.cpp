#include "runtime/cpu/onednn/island.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "runtime/cpu/onednn/omp_threads.h"
#include "runtime/cpu/onednn/scan.h"
#include "runtime/node_error.h"

namespace plumb::rt::cpu {

using onednn::Act;

IslandSpan::IslandSpan(std::vector<Unit> units, const dnnl::engine& eng, const ir::Node& anchor,
                       int64_t preorder, int threads)
    : stream_(eng), anchor_(anchor), preorder_(preorder), threads_(threads) {
  // Scratch: two arenas used in turn (unit k in arena k % 2), so that a unit's buffers never
  // overlap the previous unit's result it reads, and the island needs two units' worth, not all.
  // First each unit's own layout from 0 (Built's offsets, then what the island adds), then the
  // arenas' bases.
  auto none = [&](const dnnl::memory::desc& md) { return dnnl::memory(md, eng, DNNL_MEMORY_NONE); };
  stages_.resize(units.size());
  for (size_t k = 0; k < units.size(); ++k) {
    const SpanPlan& p = units[k].plan;
    if (p.res_unit >= 0) stages_[p.res_unit].kept = true;
    if (p.src_unit >= 0 && static_cast<size_t>(p.src_unit) + 1 != k) stages_[p.src_unit].kept = true;
  }
  std::vector<int64_t> local(units.size());
  for (size_t k = 0; k < units.size(); ++k) {
    Stage& s = stages_[k];
    s.u = std::move(units[k]);
    const Built& b = *s.u.built;
    int64_t at = b.scratch;
    auto reserve = [&](int64_t bytes) {
      const int64_t off = at;
      at += aligned(bytes);
      return off;
    };
    const int from = s.u.plan.src_unit;  // < 0: it reads an input of the span
    if (from >= 0 && stages_[from].u.built->dst_md != b.src_md) {
      s.link =
          dnnl::reorder(dnnl::reorder::primitive_desc(eng, stages_[from].u.built->dst_md, eng, b.src_md));
      s.in_off = b.src_reorder ? b.src_off : reserve(static_cast<int64_t>(b.src_md.get_size()));
    }
    if (k + 1 < units.size() && !s.kept) {  // (a kept result: placed after the arenas)
      s.out_off = b.dst_reorder ? b.dst_off : reserve(static_cast<int64_t>(b.dst_md.get_size()));
      s.out_floats = static_cast<int64_t>(b.dst_md.get_size() / sizeof(float));
    }
    local[k] = at;
  }
  int64_t arena[2] = {0, 0};
  for (size_t k = 0; k < units.size(); ++k) arena[k % 2] = std::max(arena[k % 2], local[k]);
  int64_t at = arena[0] + arena[1];  // then the kept results, each its own region
  for (size_t k = 0; k < units.size(); ++k) {
    Stage& s = stages_[k];
    s.base = k % 2 == 0 ? 0 : arena[0];
    if (s.kept) {
      s.out_off = at;
      s.out_floats = static_cast<int64_t>(s.u.built->dst_md.get_size() / sizeof(float));
      at += aligned(static_cast<int64_t>(s.u.built->dst_md.get_size()));
    } else if (s.out_off >= 0) {
      s.out_off += s.base;
    }
    if (s.link) s.in_off += s.base;
    if (s.u.plan.res_unit >= 0) {
      const dnnl::memory::desc& from = stages_[s.u.plan.res_unit].u.built->dst_md;
      s.res_inner = none(from);
      if (from != s.u.built->dst_md)
        s.res_link = dnnl::reorder(dnnl::reorder::primitive_desc(eng, from, eng, s.u.built->dst_md));
    }
  }
  onednn_bytes_ = at;
  for (size_t k = 0; k < units.size(); ++k) {
    Stage& s = stages_[k];
    const Built& b = *s.u.built;
    const bool last = k + 1 == units.size();
    const bool inner_src = s.u.plan.src_unit >= 0;
    if (inner_src) {
      s.prev_out = none(stages_[s.u.plan.src_unit].u.built->dst_md);
      if (!s.link) s.in_off = stages_[s.u.plan.src_unit].out_off;
    }
    s.src_user = none(b.src_user);
    s.dst_user = none(b.dst_user);
    s.res_user = none(b.dst_user);  // the summand, as the graph holds it (the result's shape)
    s.src = (inner_src || b.src_reorder) ? none(b.src_md) : s.src_user;
    s.dst = (!last || b.dst_reorder) ? none(b.dst_md) : s.dst_user;
    if (!s.u.plan.pool) s.weights = b.runtime_weights ? none(b.weights_md) : b.weights;
    s.pad = none(b.pad_md);
    s.args.push_back({DNNL_ARG_SRC, s.src.get()});
    if (!s.u.plan.pool) s.args.push_back({DNNL_ARG_WEIGHTS, s.weights.get()});
    if (b.bias) s.args.push_back({DNNL_ARG_BIAS, b.bias.get()});
    s.args.push_back({DNNL_ARG_DST, s.dst.get()});
    s.args.push_back({DNNL_ARG_SCRATCHPAD, s.pad.get()});
  }
}

Status IslandSpan::check(dnnl_status_t s) const {
  if (s == dnnl_success) return Status::ok();
  return node_error(internal_error(strfmt("cpu: oneDNN execution failed (status %d)", static_cast<int>(s))),
                    anchor_, preorder_);
}

Status IslandSpan::exec(const dnnl::primitive& p, const dnnl::memory& from, const dnnl::memory& to) {
  dnnl_exec_arg_t a[2] = {{DNNL_ARG_FROM, from.get()}, {DNNL_ARG_TO, to.get()}};
  return check(dnnl_primitive_execute(p.get(), stream_.get(), 2, a));
}

// One unit: the guard (declined: the span goes to ref), the primitive, the activation. src: the
// unit's source as it lies (plain when it is an input of the span, else an earlier result in its layout, of
// src_floats floats); bound: max|finite source| when known without a pass (< 0: unknown), set to
// the result's for the next unit; finite: the source is known to hold no inf or NaN, set to whether
// the result is.
Status IslandSpan::run_unit(Stage& s, bool first, bool last, const SpanArgs& args, const float* src,
                            int64_t src_floats, double& bound, bool& finite, bool& declined) {
  const SpanPlan& sp = s.u.plan;
  const Built& b = *s.u.built;
  uint8_t* scratch = args.scratch;
  const float* w = sp.w_arg >= 0 ? args.inputs[sp.w_arg]->tensor().as<float>() : nullptr;
  const float* res = sp.res_arg >= 0 ? args.inputs[sp.res_arg]->tensor().as<float>() : nullptr;
  const Stage* kept = sp.res_unit >= 0 ? &stages_[sp.res_unit] : nullptr;
  const float* inner = kept ? reinterpret_cast<const float*>(scratch + kept->out_off) : nullptr;
  const double x_max = bound >= 0 ? bound : max_finite_abs(src, src_floats);
  const double reach =
      static_cast<double>(sp.terms) * x_max * (w ? max_finite_abs(w, sp.w_numel) : sp.w_max) + sp.b_max +
      (res ? max_finite_abs(res, sp.res_numel) : 0.0) +
      (inner ? max_finite_abs(inner, kept->out_floats) : 0.0);
  declined = !(reach < 0.5 * FLT_MAX) || (sp.pool && !ordinary(src, src_floats)) ||  // NaN or -0: ref's order
             (w && sp.conv && !all_finite(w, sp.w_numel)) ||                         // 0 * inf over padding
             (sp.gelu && (!all_finite(src, src_floats) || (w && !all_finite(w, sp.w_numel))));  // no NaN
  // oneDNN's clip post-op turns NaN into lo: only finite operands (whose results the guard keeps
  // finite) may reach it.
  bool operands_finite = false;
  if (sp.act_fused && !declined) {
    operands_finite = sp.wb_finite && (finite || all_finite(src, src_floats)) &&
                      (!w || all_finite(w, sp.w_numel)) && (!res || all_finite(res, sp.res_numel)) &&
                      (!kept || kept->out_finite || all_finite(inner, kept->out_floats));
    declined = !operands_finite;
  }
  if (declined) return Status::ok();
  s.out_finite = sp.act_fused ? operands_finite : sp.pool && finite;  // a max of finite values
  finite = s.out_finite;
  float* user_dst = last ? static_cast<float*>(args.outputs[0]->tensor().data) : nullptr;
  float* dst = last ? (b.dst_reorder ? reinterpret_cast<float*>(scratch + s.base + b.dst_off) : user_dst)
                    : reinterpret_cast<float*>(scratch + s.out_off);
  s.dst.set_data_handle(dst);
  if (last) s.dst_user.set_data_handle(user_dst);
  if (w) s.weights.set_data_handle(const_cast<float*>(w));
  s.pad.set_data_handle(scratch + s.base + b.pad_off);
  if (first) {
    s.src_user.set_data_handle(const_cast<float*>(src));
    if (b.src_reorder) {
      s.src.set_data_handle(scratch + s.base + b.src_off);
      PLUMB_RETURN_IF_ERROR(exec(b.src_reorder, s.src_user, s.src));
    }
  } else {
    s.src.set_data_handle(scratch + s.in_off);
    if (s.link) {
      s.prev_out.set_data_handle(const_cast<float*>(src));
      PLUMB_RETURN_IF_ERROR(exec(s.link, s.prev_out, s.src));
    }
  }
  if (inner) {  // the sum post-op adds to what dst holds: the kept result, in dst's layout
    if (s.res_link) {
      s.res_inner.set_data_handle(const_cast<float*>(inner));
      PLUMB_RETURN_IF_ERROR(exec(s.res_link, s.res_inner, s.dst));
    } else {
      std::memcpy(dst, inner, b.dst_md.get_size());
    }
  }
  if (res) {  // the sum post-op adds to what dst holds
    if (b.res_reorder) {
      s.res_user.set_data_handle(const_cast<float*>(res));
      PLUMB_RETURN_IF_ERROR(exec(b.res_reorder, s.res_user, s.dst));
    } else if (res != dst) {
      std::memcpy(dst, res, static_cast<size_t>(sp.res_numel) * sizeof(float));
    }
  }
  PLUMB_RETURN_IF_ERROR(check(
      dnnl_primitive_execute(b.prim.get(), stream_.get(), static_cast<int>(s.args.size()), s.args.data())));
  if (last && b.dst_reorder) PLUMB_RETURN_IF_ERROR(exec(b.dst_reorder, s.dst, s.dst_user));
  PLUMB_RETURN_IF_ERROR(check(dnnl_stream_wait(stream_.get())));
  float* out = last ? user_dst : dst;
  const int64_t out_floats = last ? sp.dst_numel : s.out_floats;
  if (sp.gelu && !sp.gelu_fused)
    gelu_erf(out, out_floats,
             GeluForm{sp.gelu_c, sp.gelu_one, sp.gelu_k, sp.erf_first, sp.x_first, sp.m_first});
  const bool open = sp.act != Act::kNone && !std::isfinite(sp.hi);  // relu, or clip with hi +inf
  if (sp.act != Act::kNone && !sp.act_fused && !(open && !last)) clamp(out, out_floats, sp.lo, sp.hi);
  if (open && !last && sp.act_fused)
    bound = -1;  // the next unit's guard scans it
  else if (open && !last)
    bound = clamp_max(out, out_floats, sp.lo);  // the next unit's guard reads it
  else if (sp.act == Act::kClip && std::isfinite(sp.hi))
    bound = std::max(std::fabs(double{sp.lo}), std::fabs(double{sp.hi}));
  else if (sp.pool)
    bound = x_max;  // a max of finite values is one of them (no window lies wholly in the padding)
  else
    bound = -1;
  return Status::ok();
}

Status IslandSpan::run(const SpanArgs& args, Stream*) {
  if (!ref_) return internal_error("cpu: an island span without its ref path");
  const float* src = nullptr;
  int64_t src_floats = 0;
  double bound = -1;
  bool finite = false;
  try {
    const OmpThreads threads(threads_);  // as many as the primitives were created for
    for (size_t k = 0; k < stages_.size(); ++k) {
      const bool last = k + 1 == stages_.size();
      bool declined = false;
      const SpanPlan& sp = stages_[k].u.plan;
      if (sp.src_arg >= 0) {  // an input of the span (plain)
        src = args.inputs[sp.src_arg]->tensor().as<float>();
        src_floats = sp.src_numel;
        bound = -1;
        finite = false;
      } else if (static_cast<size_t>(sp.src_unit) + 1 != k) {  // a kept result (bound: the last one's)
        src = reinterpret_cast<const float*>(args.scratch + stages_[sp.src_unit].out_off);
        src_floats = stages_[sp.src_unit].out_floats;
        bound = -1;
        finite = stages_[sp.src_unit].out_finite;
      }
      PLUMB_RETURN_IF_ERROR(
          run_unit(stages_[k], sp.src_arg >= 0, last, args, src, src_floats, bound, finite, declined));
      if (declined) return ref_->run(args);
      if (!last) {
        src = reinterpret_cast<const float*>(args.scratch + stages_[k].out_off);
        src_floats = stages_[k].out_floats;
      }
    }
  } catch (const dnnl::error& e) {
    return node_error(internal_error(std::string("cpu: oneDNN: ") + e.what()), anchor_, preorder_);
  }
  return Status::ok();
}

}  // namespace plumb::rt::cpu
