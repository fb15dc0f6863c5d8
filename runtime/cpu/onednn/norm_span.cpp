#include "runtime/cpu/onednn/norm_span.h"

#include <cfloat>

#include "runtime/cpu/onednn/omp_threads.h"
#include "runtime/cpu/onednn/scan.h"
#include "runtime/node_error.h"

namespace plumb::rt::cpu {

using dnnl::memory;

NormProgram::NormProgram(const onednn::NormSpan& s, const ir::Type& type, int src_arg,
                         const dnnl::engine& eng, int threads, std::unique_ptr<RefPath> ref,
                         const ir::Node& first, int64_t preorder)
    : softmax_(s.kind == onednn::NormSpan::Kind::kSoftmax),
      src_arg_(src_arg),
      threads_(threads),
      gamma_(s.gamma),
      beta_(s.beta),
      stream_(eng),
      ref_(std::move(ref)),
      first_(first),
      preorder_(preorder) {
  // Plain row-major data seen as [outer, C, inner] (softmax over axis 1) or [rows, C] (layer norm
  // over the last axis): the same bytes, and a shape every oneDNN implementation takes.
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < type.shape.size(); ++d) {
    const int64_t n = type.shape[d].size;
    numel_ *= n;
    if (static_cast<int>(d) < s.axis) outer *= n;
    if (static_cast<int>(d) > s.axis) inner *= n;
  }
  row_ = type.shape[s.axis].size;
  const OmpThreads omp(threads_);  // a primitive keeps the thread count it is created with
  if (softmax_) {
    const memory::desc md({outer, row_, inner}, memory::data_type::f32, memory::format_tag::abc);
    const dnnl::softmax_forward::primitive_desc pd({dnnl::prop_kind::forward_inference, md, 1}, eng);
    prim_ = dnnl::softmax_forward(pd);
    src_ = memory(md, eng, DNNL_MEMORY_NONE);
    dst_ = memory(md, eng, DNNL_MEMORY_NONE);
  } else {
    const memory::desc md({outer, row_}, memory::data_type::f32, memory::format_tag::ab);
    const memory::desc wd({row_}, memory::data_type::f32, memory::format_tag::a);
    auto flags = dnnl::normalization_flags::use_scale;
    if (!beta_.empty()) flags |= dnnl::normalization_flags::use_shift;
    const dnnl::layer_normalization_forward::primitive_desc pd(
        {dnnl::prop_kind::forward_inference, md, s.eps, flags}, eng);
    prim_ = dnnl::layer_normalization_forward(pd);
    src_ = memory(md, eng, DNNL_MEMORY_NONE);
    dst_ = memory(md, eng, DNNL_MEMORY_NONE);
    scale_ = memory(wd, eng, gamma_.data());
    if (!beta_.empty()) shift_ = memory(wd, eng, beta_.data());
  }
  args_ = {{DNNL_ARG_SRC, src_.get()}, {DNNL_ARG_DST, dst_.get()}};
  if (scale_) args_.push_back({DNNL_ARG_SCALE, scale_.get()});
  if (shift_) args_.push_back({DNNL_ARG_SHIFT, shift_.get()});
}

Status NormProgram::run(const SpanArgs& args, Stream*) {
  const float* x = args.inputs[src_arg_]->tensor().as<float>();
  // The guard: finite operands whose row sums stay far from FLT_MAX (ref sums in f64).
  if (!all_finite(x, numel_)) return ref_->run(args);
  const double m = max_finite_abs(x, numel_);
  const bool near_max =
      softmax_ ? !(m < 0.25 * FLT_MAX)                                         // x - max
               : !(4.0 * static_cast<double>(row_) * m * m < 0.25 * FLT_MAX);  // sum (x - mean)^2
  if (near_max) return ref_->run(args);
  try {
    const OmpThreads omp(threads_);
    src_.set_data_handle(const_cast<float*>(x));
    dst_.set_data_handle(args.outputs[0]->tensor().data);
    dnnl_status_t st =
        dnnl_primitive_execute(prim_.get(), stream_.get(), static_cast<int>(args_.size()), args_.data());
    if (st == dnnl_success) st = dnnl_stream_wait(stream_.get());
    if (st != dnnl_success)
      return node_error(
          internal_error(strfmt("cpu: oneDNN execution failed (status %d)", static_cast<int>(st))), first_,
          preorder_);
  } catch (const dnnl::error& e) {
    return node_error(internal_error(std::string("cpu: oneDNN: ") + e.what()), first_, preorder_);
  }
  return Status::ok();
}

}  // namespace plumb::rt::cpu
