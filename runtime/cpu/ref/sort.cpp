// ref kernel of sort (spec/ops/sort.md): a stable sort of every line along axis, returning the
// sorted values and their original positions.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/cpu/ref/dispatch.h"
#include "runtime/cpu/ref/kernel.h"

namespace plumb::rt::ref {

namespace {

// The spec's total order: -inf < ... < -0 == +0 < ... < +inf < NaN; strings bytewise (as
// unsigned bytes, which std::char_traits<char> guarantees); false < true.
template <typename T>
bool key_less(const T& a, const T& b) {
  if constexpr (is_float_storage_v<T>) {
    double x, y;
    if constexpr (is_narrow_float_v<T>) {
      x = to_f64(a);
      y = to_f64(b);
    } else {
      x = a;
      y = b;
    }
    if (std::isnan(x)) return false;
    if (std::isnan(y)) return true;
    return x < y;
  } else {
    return a < b;
  }
}

}  // namespace

// spec/ops/sort.md: for each line along axis, indices = the stable ordering permutation (keys
// ascending, or descending; ties keep their original order either way), values = operand[indices].
template <>
Status kernel<ir::Op::Sort>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  Tensor& values = cx.outputs[0]->tensor();
  Tensor& indices = cx.outputs[1]->tensor();
  const int64_t axis = ir::attrs<ir::Op::Sort>(cx.node).axis;
  const bool descending = ir::attrs<ir::Op::Sort>(cx.node).descending;
  int64_t outer = 1, extent = operand.shape[axis], inner = 1;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (d < axis) outer *= operand.shape[d];
    if (d > axis) inner *= operand.shape[d];
  }
  return visit_dtype(operand.dtype, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    const T* src = operand.as<T>();
    T* dst = values.as<T>();
    int64_t* pos = indices.as<int64_t>();
    std::vector<int64_t> perm(static_cast<size_t>(extent));
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * extent * inner + i;
        auto key = [&](int64_t t) -> const T& { return src[base + t * inner]; };
        std::iota(perm.begin(), perm.end(), int64_t{0});
        std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
          return descending ? key_less(key(b), key(a)) : key_less(key(a), key(b));
        });
        for (int64_t t = 0; t < extent; ++t) {
          dst[base + t * inner] = key(perm[t]);
          pos[base + t * inner] = perm[t];
        }
      }
    return Status::ok();
  });
}

}  // namespace plumb::rt::ref
