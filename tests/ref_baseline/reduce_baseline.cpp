// ref's reduce kernel as it was before issue 17 (main at f3e2b4c: runtime/cpu/ref/reduce.cpp
// without arg_reduce and scan), kept verbatim as the baseline of its runs
// (tests/ref_baseline/baseline_kernels.h). Never shipped.
// ref kernels of the reductions: reduce, arg_reduce, scan (spec/ops/reduce.md, arg_reduce.md,
// scan.md). Accumulation follows the spec: f16/bf16/f8/f4 and f32 accumulate in f32, f64 in f64,
// integers in their own type, wrapping; the order is sequential, row-major, fixed.
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/cpu/ref/dispatch.h"
#include "runtime/cpu/ref/index.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cpu/ref/reduce_scalar.h"
#include "runtime/cpu/ref/round_wrap.h"
#include "tests/ref_baseline/baseline_kernels.h"

namespace plumb::rt::ref_baseline {
using namespace plumb::rt::ref;
using namespace plumb::rt::ref::reduce_scalar;

// spec/ops/reduce.md: result[kept] = acc over reduced indices in row-major order.
Status reduce(ref::KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  Tensor& result = cx.outputs[0]->tensor();
  const auto kind = ir::attrs<ir::Op::Reduce>(cx.node).kind;
  const std::vector<int64_t>& axes = ir::attrs<ir::Op::Reduce>(cx.node).axes;
  const Reduction red = reduction_of(operand.shape, axes);
  return visit_dtype(operand.dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string>) {
      return internal_error("reduce: string operand passed the verifier");
    } else {
      using A = acc_t<T>;
      const A start = start_of<A>(kind, operand.dtype, red.reduced_n);
      std::vector<A> acc(static_cast<size_t>(result.numel()), start);
      const T* src = operand.as<T>();
      for (IndexIter it(operand.shape); !it.done(); it.next()) {
        const int64_t r = offset_of(it.index(), red.to_result);  // (vector<bool> has no A&)
        acc[r] = combine<A>(kind, acc[r], load<A>(src[it.flat()]));
      }
      T* dst = result.as<T>();
      for (size_t i = 0; i < acc.size(); ++i) dst[i] = store<T>(acc[i], operand.dtype);
      return Status::ok();
    }
  });
}

}  // namespace plumb::rt::ref_baseline
