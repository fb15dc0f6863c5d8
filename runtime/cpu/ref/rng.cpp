// spec/ops/rng.md: result[k] = word (k mod 4) of Philox4x32-10(counter = (k/4, stream), key = seed).
#include <string>

#include "ir/infer.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cpu/ref/parallel.h"
#include "runtime/cpu/ref/philox.h"
#include "runtime/cpu/ref/simd.h"

namespace plumb::rt::ref {

template <>
Status kernel<ir::Op::Rng>(KernelCtx& cx) {
  const Tensor& shape_t = cx.inputs[0]->tensor();
  std::vector<int64_t> shape(shape_t.as<int64_t>(), shape_t.as<int64_t>() + shape_t.numel());
  int64_t n = 1;
  for (int64_t d : shape) {
    // rng.R1
    if (d < 0 || (d != 0 && n > ir::kMaxElements / d))
      return runtime_error("rng.R1", "shape has a negative entry or more than 2^40 elements");
    n *= d;
  }
  RtValue* out = cx.outputs[0];
  if (!out->is_tensor() || out->tensor().data == nullptr) *out = Tensor::allocate(ir::DType::U32, shape);
  Tensor& result = out->tensor();
  if (result.dtype != ir::DType::U32 || result.shape != shape)
    return internal_error("rng: result slot does not have the inferred type");
  const uint64_t seed = static_cast<uint64_t>(ir::attrs<ir::Op::Rng>(cx.node).seed);
  const uint64_t stream = static_cast<uint64_t>(ir::attrs<ir::Op::Rng>(cx.node).stream);
  uint32_t* dst = result.as<uint32_t>();
  // The whole blocks, independent, in SIMD lanes and on threads; then the last, partial one.
  const int64_t whole = n / 4;
  parallel_for(cx.threads, whole, int64_t{1} << 14, [&](int64_t begin, int64_t end) {
    simd::with_widest([&] {
      const uint64_t key = seed, ctr = stream;  // locals, so that GCC keeps them out of the lanes' loads
      uint32_t* out = dst;
      PLUMB_REF_SIMD_LOOP
      for (int64_t b = begin; b < end; ++b) rng_block_into(static_cast<uint64_t>(b), key, ctr, out + 4 * b);
    });
  });
  if (n % 4 != 0) {
    const PhiloxCounter block = rng_block(static_cast<uint64_t>(whole), seed, stream);
    for (int64_t w = 0; w < n % 4; ++w) dst[4 * whole + w] = block[w];
  }
  return Status::ok();
}

}  // namespace plumb::rt::ref
