// One matched softmax or layer normalization span (runtime/cpu/onednn/norm_match.h) under one plan:
// oneDNN's softmax_forward or layer_normalization_forward on the plain f32 source, written straight
// into the span's result. A run whose source holds an inf or a NaN, or values so large that a sum
// of the row (layer norm: of its squares) or x - max (softmax) could overflow f32 where ref's f64
// does not, runs the span's nodes on ref instead (the special values are then ref's exactly).
#pragma once

#include <memory>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "runtime/backend.h"
#include "runtime/cpu/onednn/norm_match.h"
#include "runtime/cpu/onednn/ref_path.h"

namespace plumb::rt::cpu {

class NormProgram final : public CompiledSpan {
 public:
  // type: the source's (static, f32); src_arg: its index among the span's inputs. Throws
  // dnnl::error where oneDNN has no primitive for it.
  NormProgram(const onednn::NormSpan& s, const ir::Type& type, int src_arg, const dnnl::engine& eng,
              int threads, std::unique_ptr<RefPath> ref, const ir::Node& first, int64_t preorder);
  int64_t scratch_bytes() const override { return ref_->end(); }
  Status run(const SpanArgs& args, Stream*) override;

 private:
  bool softmax_;
  int src_arg_;
  int64_t numel_ = 1, row_ = 1;
  int threads_;
  std::vector<float> gamma_, beta_;  // owned: the scale and shift memories point into them
  dnnl::stream stream_;
  dnnl::primitive prim_;
  dnnl::memory src_, dst_, scale_, shift_;
  std::vector<dnnl_exec_arg_t> args_;
  std::unique_ptr<RefPath> ref_;
  const ir::Node& first_;
  int64_t preorder_;
};

}  // namespace plumb::rt::cpu
