// Dtype dispatch, written once (STYLE.md 2.4): the C++ storage type of each dtype at run time
// (runtime/value.h), and visit_dtype to call a generic lambda with a tag for the dtype.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>

#include "ir/dtype.h"
#include "ir/status.h"
#include "runtime/cpu/ref/float_formats.h"
#include "runtime/value.h"

namespace plumb::rt {

template <ir::DType dt>
struct StorageOf;
template <>
struct StorageOf<ir::DType::Bool> {
  using type = bool;
};
template <>
struct StorageOf<ir::DType::I2> {
  using type = int8_t;
};  // sign-extended
template <>
struct StorageOf<ir::DType::U2> {
  using type = uint8_t;
};
template <>
struct StorageOf<ir::DType::I4> {
  using type = int8_t;
};  // sign-extended
template <>
struct StorageOf<ir::DType::U4> {
  using type = uint8_t;
};
template <>
struct StorageOf<ir::DType::I8> {
  using type = int8_t;
};
template <>
struct StorageOf<ir::DType::I16> {
  using type = int16_t;
};
template <>
struct StorageOf<ir::DType::I32> {
  using type = int32_t;
};
template <>
struct StorageOf<ir::DType::I64> {
  using type = int64_t;
};
template <>
struct StorageOf<ir::DType::U8> {
  using type = uint8_t;
};
template <>
struct StorageOf<ir::DType::U16> {
  using type = uint16_t;
};
template <>
struct StorageOf<ir::DType::U32> {
  using type = uint32_t;
};
template <>
struct StorageOf<ir::DType::U64> {
  using type = uint64_t;
};
template <>
struct StorageOf<ir::DType::F4E2M1> {
  using type = f4e2m1;
};
template <>
struct StorageOf<ir::DType::F8E4M3FN> {
  using type = f8e4m3fn;
};
template <>
struct StorageOf<ir::DType::F8E4M3FNUZ> {
  using type = f8e4m3fnuz;
};
template <>
struct StorageOf<ir::DType::F8E5M2> {
  using type = f8e5m2;
};
template <>
struct StorageOf<ir::DType::F8E5M2FNUZ> {
  using type = f8e5m2fnuz;
};
template <>
struct StorageOf<ir::DType::F8E8M0> {
  using type = f8e8m0;
};
template <>
struct StorageOf<ir::DType::F16> {
  using type = f16;
};
template <>
struct StorageOf<ir::DType::BF16> {
  using type = bf16;
};
template <>
struct StorageOf<ir::DType::F32> {
  using type = float;
};
template <>
struct StorageOf<ir::DType::F64> {
  using type = double;
};
template <>
struct StorageOf<ir::DType::String> {
  using type = std::string;
};

// The tag a visitor receives: tag.dtype and `typename decltype(tag)::type`.
template <ir::DType dt>
struct DTypeTag {
  static constexpr ir::DType dtype = dt;
  using type = typename StorageOf<dt>::type;
};

// visit_dtype(dt, [&](auto tag) { using T = typename decltype(tag)::type; ... });
// Every dtype instantiates the lambda: use `if constexpr` to reject combinations the spec's dtype
// table excludes (the verifier has already refused them, so those branches return Internal).
//
// A tiny build with PLUMB_REF_OPS compiles the ref kernels (PLUMB_REF_KERNEL_TU) for the dtypes its
// op list names only: another dtype instantiates nothing, and its case returns "not built" (an
// Unsupported Status, or nothing); ref::run_kernel refuses such a node before its kernel runs.
#if PLUMB_REF_KERNEL_TU
constexpr std::string_view kRefDTypes[] = {
#include "runtime/ref_dtypes.inc"
};
constexpr bool dtype_built(std::string_view mnemonic) {
  for (std::string_view dt : kRefDTypes)
    if (dt == "*" || dt == mnemonic) return true;
  return false;
}
// The op list's (op, dtype) pairs: a kernel with code per accumulator type (conv, matmul) keeps
// only the ones its op's dtypes can select; run_kernel refuses the other dtypes for that op.
constexpr std::string_view kRefOpDTypes[] = {
#include "runtime/ref_op_dtypes.inc"
};
constexpr bool op_dtype_built(std::string_view op, std::string_view mnemonic) {
  for (std::string_view e : kRefOpDTypes)
    if (e == "*" || (e.size() == op.size() + 1 + mnemonic.size() && e.substr(0, op.size()) == op &&
                     e[op.size()] == ':' && e.substr(op.size() + 1) == mnemonic))
      return true;
  return false;
}
#else
constexpr bool dtype_built(std::string_view) { return true; }
constexpr bool op_dtype_built(std::string_view, std::string_view) { return true; }
#endif

// Whether an op's built dtypes include one that selects each accumulator type of a contraction
// kernel by its result dtype: f64; another float; a 64-bit integer; another integer.
constexpr bool op_acc_f64(std::string_view op) { return op_dtype_built(op, "f64"); }
constexpr bool op_acc_f32(std::string_view op) {
  for (std::string_view dt :
       {"f32", "f16", "bf16", "f8e4m3fn", "f8e4m3fnuz", "f8e5m2", "f8e5m2fnuz", "f8e8m0", "f4e2m1"})
    if (op_dtype_built(op, dt)) return true;
  return false;
}
constexpr bool op_acc_u64(std::string_view op) {
  return op_dtype_built(op, "i64") || op_dtype_built(op, "u64");
}
constexpr bool op_acc_u32(std::string_view op) {
  for (std::string_view dt : {"i2", "u2", "i4", "u4", "i8", "u8", "i16", "u16", "i32", "u32", "bool"})
    if (op_dtype_built(op, dt)) return true;
  return false;
}

// Calls f(A{}) with the accumulator type A of a contraction (matmul, conv) whose operand `in` and
// result have these dtypes: double when either is f64, float for another float result, uint64_t
// for a 64-bit integer result, uint32_t for another integer (integers wrap, so unsigned). `Op`
// names the op (`static constexpr std::string_view name`): a PLUMB_REF_OPS build compiles only the
// accumulators its dtypes select, and calls nothing for the others.
template <typename Op, typename F>
void with_contraction_acc(ir::DType in, ir::DType result, F&& f) {
  if (ir::is_float(result)) {
    if (in == ir::DType::F64 || result == ir::DType::F64) {
      if constexpr (op_acc_f64(Op::name)) f(double{});
    } else {
      if constexpr (op_acc_f32(Op::name)) f(float{});
    }
  } else if (ir::dtype_bits(result) == 64) {
    if constexpr (op_acc_u64(Op::name)) f(uint64_t{});
  } else {
    if constexpr (op_acc_u32(Op::name)) f(uint32_t{});
  }
}

template <typename R>
R dtype_not_built(ir::DType dt) {
  if constexpr (std::is_same_v<R, Status>)
    return unsupported(std::string("this build of the ref runtime has no kernels for dtype ") +
                       std::string(ir::dtype_name(dt)) + " (PLUMB_REF_OPS leaves it out)");
  else if constexpr (!std::is_void_v<R>)
    return R{};
}

template <typename F>
decltype(auto) visit_dtype(ir::DType dt, F&& f) {
  using R = decltype(f(DTypeTag<ir::DType::F32>{}));
  switch (dt) {
// clang-format off
#define PLUMB_DTYPE(Enum, mnemonic, bits, onnx_code, category) \
  case ir::DType::Enum:                                      \
    if constexpr (dtype_built(mnemonic))                     \
      return f(DTypeTag<ir::DType::Enum>{});                 \
    else                                                     \
      return dtype_not_built<R>(dt);
#include "spec/dtypes.def"
    // clang-format on
  }
  return dtype_not_built<R>(dt);  // unreachable for a valid dtype
}

// visit_width(dt, [&](auto tag) { using T = typename decltype(tag)::type; ... }): T is an unsigned
// integer of the size of dt's run-time elements (std::string for strings), for kernels that only
// move elements (copies, gathers, selects): one instantiation per element size instead of one per
// dtype, and the same bits (an integer copy of a float's bits is that float, NaN payloads too).
template <typename T>
struct WidthTag {
  using type = T;
};
// Whether this build's kernels have a dtype whose run-time elements take `bytes` bytes (0:
// strings; sub-byte dtypes take one).
constexpr bool width_built(int bytes) {
  bool any = false;
// clang-format off
#define PLUMB_DTYPE(Enum, mnemonic, bits, onnx_code, category) \
  any = any || (dtype_built(mnemonic) &&                     \
                (std::string_view(mnemonic) == "string" ? 0 : (bits) <= 8 ? 1 : (bits) / 8) == bytes);
#include "spec/dtypes.def"
  // clang-format on
  return any;
}

template <typename F>
decltype(auto) visit_width(ir::DType dt, F&& f) {
  using R = decltype(f(WidthTag<uint32_t>{}));
  // A width no built dtype has is not compiled (run_kernel refuses such a tensor first).
  if (dt == ir::DType::String) {
    if constexpr (width_built(0)) return f(WidthTag<std::string>{});
    return dtype_not_built<R>(dt);
  }
  switch (runtime_elem_bytes(dt)) {
    case 1:
      if constexpr (width_built(1)) return f(WidthTag<uint8_t>{});
      break;
    case 2:
      if constexpr (width_built(2)) return f(WidthTag<uint16_t>{});
      break;
    case 4:
      if constexpr (width_built(4)) return f(WidthTag<uint32_t>{});
      break;
    default:
      if constexpr (width_built(8)) return f(WidthTag<uint64_t>{});
      break;
  }
  return dtype_not_built<R>(dt);
}

// Narrow float storage types: the ones computed through double/float (spec/numerics.md).
template <typename T>
inline constexpr bool is_narrow_float_v =
    std::is_same_v<T, f16> || std::is_same_v<T, bf16> || std::is_same_v<T, f8e4m3fn> ||
    std::is_same_v<T, f8e4m3fnuz> || std::is_same_v<T, f8e5m2> || std::is_same_v<T, f8e5m2fnuz> ||
    std::is_same_v<T, f8e8m0> || std::is_same_v<T, f4e2m1>;
template <typename T>
inline constexpr bool is_float_storage_v = std::is_floating_point_v<T> || is_narrow_float_v<T>;

}  // namespace plumb::rt
