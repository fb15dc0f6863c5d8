// ref kernel of sort (spec/ops/sort.md): a stable sort of every line along axis, returning the
// sorted values and their original positions.
//
// One sort for every non-string dtype: each key is first mapped to an unsigned 64-bit integer
// whose order is the spec's order (sort_key), so std::stable_sort is instantiated twice (these
// integers and strings) instead of once per dtype (a sixth of all ref kernels' code before, issue
// 18); a comparison is then one integer compare instead of two widenings and two NaN checks.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/cpu/ref/dispatch.h"
#include "runtime/cpu/ref/kernel.h"

namespace plumb::rt::ref {

namespace {

// The spec's total order as an unsigned integer order: -inf < ... < -0 == +0 < ... < +inf < NaN
// (every NaN equal: a tie), integers by value, false < true. Floats widen exactly to double;
// -0 becomes +0 (equal keys, so ties keep their original order); a non-negative double's bits
// with the top bit set order as their value, a negative one's inverted bits order the other way
// below them; every NaN is the largest key, above +inf's.
template <typename T>
uint64_t sort_key(const T& x) {
  constexpr uint64_t kTop = uint64_t{1} << 63;
  if constexpr (is_float_storage_v<T>) {
    double d;
    if constexpr (is_narrow_float_v<T>)
      d = to_f64(x);
    else
      d = x;
    if (std::isnan(d)) return ~uint64_t{0};
    if (d == 0) d = 0.0;
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    return (bits & kTop) != 0 ? ~bits : bits | kTop;
  } else if constexpr (std::is_same_v<T, bool>) {
    return x ? 1 : 0;
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<uint64_t>(static_cast<int64_t>(x)) ^ kTop;
  } else {
    return static_cast<uint64_t>(x);
  }
}

// The stable ordering permutation of keys[0, n) (descending: ties still in their original order).
void order(const uint64_t* keys, bool descending, std::vector<int64_t>& perm) {
  std::iota(perm.begin(), perm.end(), int64_t{0});
  std::stable_sort(perm.begin(), perm.end(), [keys, descending](int64_t a, int64_t b) {
    return descending ? keys[b] < keys[a] : keys[a] < keys[b];
  });
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
  std::vector<int64_t> perm(static_cast<size_t>(extent));
  int64_t* pos = indices.as<int64_t>();
  if (operand.dtype == ir::DType::String) {  // bytewise, as unsigned bytes (std::char_traits<char>)
    const std::string* src = operand.as<std::string>();
    std::string* dst = values.as<std::string>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const std::string* line = src + o * extent * inner + i;
        std::iota(perm.begin(), perm.end(), int64_t{0});
        std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
          return descending ? line[b * inner] < line[a * inner] : line[a * inner] < line[b * inner];
        });
        const int64_t base = o * extent * inner + i;
        for (int64_t t = 0; t < extent; ++t) {
          dst[base + t * inner] = line[perm[t] * inner];
          pos[base + t * inner] = perm[t];
        }
      }
    return Status::ok();
  }
  std::vector<uint64_t> keys(static_cast<size_t>(extent));
  // Only the key mapping and the copy of the values are per dtype; the copy moves elements by
  // their size, so one loop serves every dtype of that width.
  const int64_t elem = runtime_elem_bytes(operand.dtype);
  const auto* src = static_cast<const uint8_t*>(operand.data);
  auto* dst = static_cast<uint8_t*>(values.data);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * extent * inner + i;
      visit_dtype(operand.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (!std::is_same_v<T, std::string>) {
          const T* x = operand.as<T>();
          for (int64_t t = 0; t < extent; ++t) keys[static_cast<size_t>(t)] = sort_key(x[base + t * inner]);
        }
      });
      order(keys.data(), descending, perm);
      for (int64_t t = 0; t < extent; ++t) {
        std::memcpy(dst + (base + t * inner) * elem, src + (base + perm[t] * inner) * elem,
                    static_cast<size_t>(elem));
        pos[base + t * inner] = perm[t];
      }
    }
  return Status::ok();
}

}  // namespace plumb::rt::ref
