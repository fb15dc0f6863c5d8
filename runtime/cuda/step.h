// The compile-time plan of one node of a cuda span: where its operands and results live during a
// run and what its kernel needs from the resolved shapes (reduce plan, strided views, matmul and
// conv sizes, windows). CudaPrepared (cuda_backend.cpp) makes the steps, CudaSpan (span.h) runs them.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"
#include "runtime/backend.h"
#include "runtime/cuda/index_math.h"
#include "runtime/cuda/kernels.h"
#include "runtime/plan.h"

namespace plumb::rt::cuda {

// Where a value of the span lives during a run.
struct Slot {
  enum Kind { kInput, kOutput, kScratch } kind = kScratch;
  int64_t index = 0;  // kInput / kOutput: position in SpanArgs; kScratch: byte offset
};

// One node of a compiled span, its shapes resolved.
struct Step {
  uint32_t node = 0;
  std::vector<Slot> in, out;
  std::vector<std::vector<int64_t>> in_dims;
  std::vector<ir::DType> in_dt;
  std::vector<int64_t> out_dims;
  ir::DType out_dt = ir::DType::F32;
  ReducePlan reduce;
  View src_view;                             // transpose, broadcast
  int64_t batch = 0, M = 0, N = 0, K = 0;    // matmul
  ConvShape conv;                            // conv
  int64_t col_offset = 0;                    // conv f32: its im2col matrix in scratch
  Window window;                             // pool
  int64_t src_offset = 0;                    // slice: its first element in the operand
  PadSpec pad;                               // pad
  int64_t outer = 0, extent = 0, inner = 0;  // gather axis: operand [outer, extent, inner]
  int64_t flag_offset = 0;                   // gather: its gather.R1 flag in scratch
  std::vector<const void*> in_ptrs;          // the operands' buffers of the current run (sized at compile)
};

// The per-op planning of a step from its resolved shapes (st's operand and result dims and
// dtypes are set): no when the op's run-time constraints fail (ref then reports them) or its
// parameters are known only at run time.
Support plan_step(const ir::Node& n, Step& st, const Plan& plan);

std::vector<int64_t> dims_of(const ir::Type& t);
bool static_tensor(const ir::Type& t);  // a ranked tensor of static shape
int64_t elements(const std::vector<int64_t>& d);
View row_major_view(const std::vector<int64_t>& d);

}  // namespace plumb::rt::cuda
