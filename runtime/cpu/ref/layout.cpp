// Reference kernels of the value-source and layout ops: constant, iota, shape_of, reshape,
// broadcast, transpose, slice, concat, pad (spec/ops/<op>.md; rng is in rng.cpp). Every kernel
// works for every dtype: elements are copied as their storage type (std::string by assignment).
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>

#include "ir/attr_ref.h"
#include "ir/infer.h"
#include "runtime/cpu/ref/constant_data.h"
#include "runtime/cpu/ref/dispatch.h"
#include "runtime/cpu/ref/index.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/cpu/ref/layout_checks.h"
#include "runtime/cpu/ref/scratch.h"
#include "runtime/cpu/ref/simd.h"

namespace plumb::rt::ref {

namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "constant unpacking assumes a little-endian host");

// A shape, start, size... operand: at most kMaxRank entries (its type's one dim, which inference
// bounds by kMaxRank).
Dims ints_of(const RtValue* v) {
  const Tensor& t = v->tensor();
  return Dims(t.as<int64_t>(), t.as<int64_t>() + t.numel());
}

// Every entry >= 0 and at most kMaxElements elements.
bool valid_dims(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d != 0 && n > ir::kMaxElements / d)) return false;
    n *= d;
  }
  return true;
}

std::string ints_str(const Dims& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

// The result tensor: the executor's preallocated one, or a new one when the slot is empty.
Expected<Tensor*> result_slot(KernelCtx& cx, ir::DType dt, const Dims& shape) {
  RtValue* out = cx.outputs[0];
  if (!out->is_tensor() || out->tensor().data == nullptr)
    *out = Tensor::allocate(dt, std::vector<int64_t>(shape.begin(), shape.end()));
  Tensor& t = out->tensor();
  if (t.dtype != dt || !same_dims(t.shape, shape))
    return internal_error(std::string(ir::op_name(cx.node.op)) + ": result slot is " +
                          ir::type_to_string(type_of(*out)) + ", the kernel computes " +
                          ir::type_to_string(ir::Type::tensor(
                              dt, ir::static_shape(std::vector<int64_t>(shape.begin(), shape.end())))));
  return &t;
}

// A strided copy's index space with its dims merged where they continue each other: dims d and
// d + 1 become one when, in both tensors, stepping d is stepping d + 1 shape[d + 1] times (for a
// row-major result and a contiguous or repeated operand, every dim does); dims of size 1 go.
// The same elements in the same places, in fewer and longer runs.
struct CopyDims {
  Dims shape, src, dst;
};

CopyDims merge_dims(const Dims& shape, const Dims& src_step, const Dims& dst_step) {
  CopyDims m;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!m.shape.empty() && m.src.back() == src_step[d] * shape[d] &&
        m.dst.back() == dst_step[d] * shape[d]) {
      m.shape.back() *= shape[d];
      m.src.back() = src_step[d];
      m.dst.back() = dst_step[d];
    } else {
      m.shape.push_back(shape[d]);
      m.src.push_back(src_step[d]);
      m.dst.push_back(dst_step[d]);
    }
  }
  return m;
}

// d[0, n) = v: a vectorized loop for arithmetic types (a broadcast scalar or row).
template <typename T>
void fill_run(T* d, int64_t n, const T& v) {
  if constexpr (std::is_arithmetic_v<T>) {
    simd::with_widest([&] {
      T* out = d;
      const T x = v;
      PLUMB_REF_SIMD_LOOP
      for (int64_t i = 0; i < n; ++i) out[i] = x;
    });
  } else {
    std::fill(d, d + n, v);
  }
}

// dst[dst_base + <i, dst_step>] = src[src_base + <i, src_step>] for every index i of `shape`: the
// outer dims (merged, merge_dims) by index, the last one as a run (a copy, a fill for a repeated
// element, or strided).
template <typename T>
void strided_copy(const T* src, int64_t src_base, const Dims& src_step, T* dst, int64_t dst_base,
                  const Dims& dst_step, const Dims& shape) {
  if (num_elements(shape) == 0) return;
  const CopyDims m = merge_dims(shape, src_step, dst_step);
  if (m.shape.empty()) {  // one element
    dst[dst_base] = src[src_base];
    return;
  }
  const size_t last = m.shape.size() - 1;
  const int64_t n = m.shape[last], ss = m.src[last], ds = m.dst[last];
  const Dims outer(m.shape.begin(), m.shape.begin() + last);
  for (IndexIter it(outer); !it.done(); it.next()) {
    const T* s = src + src_base + offset_of(it.index(), m.src);
    T* d = dst + dst_base + offset_of(it.index(), m.dst);
    if (ds == 1 && ss == 1)
      std::copy(s, s + n, d);
    else if (ds == 1 && ss == 0)
      fill_run(d, n, *s);
    else
      for (int64_t x = 0; x < n; ++x) d[x * ds] = s[x * ss];
  }
}

void copy_view(const Tensor& src, int64_t src_base, const Dims& src_step, Tensor& dst, int64_t dst_base,
               const Dims& dst_step, const Dims& shape) {
  visit_width(src.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    strided_copy(static_cast<const T*>(src.data), src_base, src_step, static_cast<T*>(dst.data), dst_base,
                 dst_step, shape);
  });
}

// iota's i[axis] converted to the dtype (spec/ops/iota.md: as cast from i64 with saturate =
// false, round = nearest_even: integers wrap, floats round to nearest even).
template <typename T>
T iota_value(ir::DType dt, int64_t v) {
  if constexpr (std::is_integral_v<T>) {
    const int bits = ir::dtype_bits(dt);
    if (bits < 8) {
      int64_t m = v & ((int64_t{1} << bits) - 1);
      if (ir::is_signed_int(dt) && m >= (int64_t{1} << (bits - 1))) m -= int64_t{1} << bits;
      return static_cast<T>(m);
    }
    return static_cast<T>(static_cast<uint64_t>(v));  // modulo 2^bits
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else if constexpr (std::is_same_v<T, f16>) {
    return to_f16(static_cast<double>(v));
  } else if constexpr (std::is_same_v<T, bf16>) {
    return to_bf16(static_cast<double>(v));
  } else if constexpr (std::is_same_v<T, f8e4m3fn>) {
    return to_f8e4m3fn(static_cast<double>(v), false);
  } else if constexpr (std::is_same_v<T, f8e4m3fnuz>) {
    return to_f8e4m3fnuz(static_cast<double>(v), false);
  } else if constexpr (std::is_same_v<T, f8e5m2>) {
    return to_f8e5m2(static_cast<double>(v), false);
  } else if constexpr (std::is_same_v<T, f8e5m2fnuz>) {
    return to_f8e5m2fnuz(static_cast<double>(v), false);
  } else if constexpr (std::is_same_v<T, f8e8m0>) {
    return to_f8e8m0(static_cast<double>(v), false, Rounding::kNearestEven);
  } else {
    static_assert(std::is_same_v<T, f4e2m1>, "iota_value: unhandled storage type");
    return to_f4e2m1(static_cast<double>(v), true);  // f4e2m1 always saturates (spec/ops/cast.md)
  }
}

// Entries of pad's map (one per result index of every dim).
int64_t pad_map_entries(const Dims& shape) {
  int64_t n = 0;
  for (int64_t d : shape) n += d;
  return n;
}

}  // namespace

// ---- constant ----------------------------------------------------------------------------------

Status unpack_constant(const ir::ConstantData& c, Tensor& result) {
  const ir::Type& type = c.type;
  const int64_t n = type.is_tensor() && type.ranked ? ir::shape_num_elements(type.shape) : -1;
  // constant.C2
  if (n < 0 || n > ir::kMaxElements)
    return invalid_model("constant.C2",
                         "constant type " + ir::type_to_string(type) + " is not a static tensor type");
  std::vector<int64_t> shape;
  for (const ir::Dim& d : type.shape) shape.push_back(d.size);
  const ir::DType dt = type.dtype;
  auto too_small = [&](uint64_t need) {
    return invalid_model("constant.C3", strfmt("constant of type %s has %llu bytes, needs %llu",
                                               ir::type_to_string(type).c_str(), (unsigned long long)c.size,
                                               (unsigned long long)need));
  };
  if (c.size > 0 && !c.data) return invalid_model("constant.C3", "constant has a size but no data");
  if (dt != ir::DType::String && c.size != ir::dtype_storage_bytes(dt, static_cast<uint64_t>(n)))
    return too_small(ir::dtype_storage_bytes(dt, static_cast<uint64_t>(n)));
  if (result.data == nullptr) result = Tensor::allocate(dt, shape);
  if (result.dtype != dt || result.shape != shape)
    return internal_error("constant: result slot has another type");
  if (dt == ir::DType::String) {
    uint64_t off = 0;
    for (int64_t k = 0; k < n; ++k) {
      if (c.size - off < 4) return too_small(off + 4);
      const uint8_t* p = c.data + off;
      const uint64_t len = uint64_t(p[0]) | uint64_t(p[1]) << 8 | uint64_t(p[2]) << 16 | uint64_t(p[3]) << 24;
      off += 4;
      if (c.size - off < len) return too_small(off + len);
      result.strings()[k].assign(reinterpret_cast<const char*>(c.data + off), len);
      off += len;
    }
    if (off != c.size)
      return invalid_model("constant.C3", strfmt("string constant has %llu bytes, its elements take %llu",
                                                 (unsigned long long)c.size, (unsigned long long)off));
    return Status::ok();
  }
  uint8_t* dst = static_cast<uint8_t*>(result.data);
  if (ir::is_packed(dt)) {
    // Element k holds bits [k*bits, (k+1)*bits) of the byte stream, low bits first.
    const int bits = ir::dtype_bits(dt);
    const unsigned mask = (1u << bits) - 1;
    for (int64_t k = 0; k < n; ++k) {
      const uint64_t bit = static_cast<uint64_t>(k) * bits;
      unsigned v = (c.data[bit / 8] >> (bit % 8)) & mask;
      if (ir::is_signed_int(dt) && (v >> (bits - 1))) v |= ~mask;  // sign-extend to the byte
      dst[k] = static_cast<uint8_t>(v);
    }
    return Status::ok();
  }
  if (dt == ir::DType::Bool)
    for (uint64_t k = 0; k < c.size; ++k)
      if (c.data[k] > 1)
        return invalid_model("constant.C3", strfmt("bool element %llu is %u, not 0 or 1",
                                                   (unsigned long long)k, unsigned(c.data[k])));
  if (c.size) std::memcpy(dst, c.data, c.size);
  return Status::ok();
}

namespace {
// The graph of a kernel context, when KernelCtx carries one (`const ir::Graph* graph`); the
// constant kernel needs the graph's constants table.
template <typename C>
auto graph_of(const C& c, int) -> decltype(static_cast<const ir::Graph*>(c.graph)) {
  return c.graph;
}
template <typename C>
const ir::Graph* graph_of(const C&, long) {
  return nullptr;
}
}  // namespace

template <>
Status kernel<ir::Op::Constant>(KernelCtx& cx) {
  const ir::Graph* g = graph_of(cx, 0);
  if (!g)
    return internal_error(
        "constant: the kernel context has no graph; constants are materialized with "
        "ref::unpack_constant");
  const uint32_t index = ir::attrs<ir::Op::Constant>(cx.node).value.index;
  // constant.C1
  if (index >= g->constants.size())
    return invalid_model("constant.C1", strfmt("value refers to constant %u, the graph has %zu",
                                               unsigned(index), g->constants.size()));
  RtValue* out = cx.outputs[0];
  if (!out->is_tensor()) *out = Tensor{};
  return unpack_constant(g->constants[index], out->tensor());
}

// ---- iota --------------------------------------------------------------------------------------

template <>
Status kernel<ir::Op::Iota>(KernelCtx& cx) {
  const Dims shape = ints_of(cx.inputs[0]);
  // iota.R1
  if (!valid_dims(shape))
    return runtime_error("iota.R1", "shape " + ints_str(shape) + " is not a valid shape");
  const ir::DType dt = ir::attrs<ir::Op::Iota>(cx.node).dtype;
  const int64_t axis = ir::attrs<ir::Op::Iota>(cx.node).axis;
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size()))
    return internal_error("iota: axis out of range");
  PLUMB_ASSIGN_OR_RETURN(Tensor * result, result_slot(cx, dt, shape));
  return visit_dtype(dt, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string>) {
      return internal_error("iota: dtype is not an integer or float dtype");
    } else {
      T* dst = result->as<T>();
      // result[i...] = convert(i[axis])
      for (IndexIter it(shape); !it.done(); it.next()) dst[it.flat()] = iota_value<T>(tag.dtype, it[axis]);
      return Status::ok();
    }
  });
}

// ---- shape_of ----------------------------------------------------------------------------------

template <>
Status kernel<ir::Op::ShapeOf>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  PLUMB_ASSIGN_OR_RETURN(Tensor * result, result_slot(cx, ir::DType::I64, {operand.rank()}));
  for (int64_t d = 0; d < operand.rank(); ++d) result->as<int64_t>()[d] = operand.shape[d];
  return Status::ok();
}

// ---- reshape -----------------------------------------------------------------------------------

template <>
Status kernel<ir::Op::Reshape>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  const Dims shape = ints_of(cx.inputs[1]);
  // reshape.R1
  if (!valid_dims(shape))
    return runtime_error("reshape.R1", "shape " + ints_str(shape) + " is not a valid shape");
  // reshape.R2
  if (num_elements(shape) != operand.numel())
    return runtime_error("reshape.R2",
                         strfmt("shape %s has %lld elements, the operand has %lld", ints_str(shape).c_str(),
                                (long long)num_elements(shape), (long long)operand.numel()));
  PLUMB_ASSIGN_OR_RETURN(Tensor * result, result_slot(cx, operand.dtype, shape));
  // result = operand's elements in row-major order
  copy_view(operand, 0, {1}, *result, 0, {1}, {operand.numel()});
  return Status::ok();
}

// ---- broadcast ---------------------------------------------------------------------------------

Expected<Dims> broadcast_steps(const Tensor& operand, const Dims& shape, const std::vector<int64_t>& dims) {
  // broadcast.R1
  if (!valid_dims(shape))
    return runtime_error("broadcast.R1", "shape " + ints_str(shape) + " is not a valid shape");
  if (static_cast<int64_t>(dims.size()) != operand.rank())
    return internal_error("broadcast: dims do not fit");
  const Dims strides = row_major_strides(operand.shape);
  Dims step(shape.size(), 0);  // operand dims of size 1 repeat: step 0
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t od = operand.shape[i];
    if (dims[i] < 0 || dims[i] >= static_cast<int64_t>(shape.size()))
      return internal_error("broadcast: dims do not fit");
    // broadcast.R2
    if (od != 1 && od != shape[dims[i]])
      return runtime_error("broadcast.R2",
                           strfmt("operand dim %zu is %lld, result dim %lld is %lld", i, (long long)od,
                                  (long long)dims[i], (long long)shape[dims[i]]));
    if (od != 1) step[dims[i]] = strides[i];
  }
  return step;
}

template <>
Status kernel<ir::Op::Broadcast>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  const Dims shape = ints_of(cx.inputs[1]);
  const std::vector<int64_t>& dims = ir::attr(cx.node, &ir::BroadcastAttrs::dims);
  PLUMB_ASSIGN_OR_RETURN(const Dims step, broadcast_steps(operand, shape, dims));
  PLUMB_ASSIGN_OR_RETURN(Tensor * result, result_slot(cx, operand.dtype, shape));
  // result[i...] = operand[j...] with j[k] = operand.shape[k] == 1 ? 0 : i[dims[k]]
  copy_view(operand, 0, step, *result, 0, row_major_strides(shape), shape);
  return Status::ok();
}

// ---- transpose ---------------------------------------------------------------------------------

template <>
Status kernel<ir::Op::Transpose>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  const std::vector<int64_t>& perm = ir::attr(cx.node, &ir::TransposeAttrs::perm);
  if (static_cast<int64_t>(perm.size()) != operand.rank())
    return internal_error("transpose: perm does not fit");
  const Dims strides = row_major_strides(operand.shape);
  Dims shape, step;
  for (int64_t p : perm) {
    if (p < 0 || p >= operand.rank()) return internal_error("transpose: perm does not fit");
    shape.push_back(operand.shape[p]);
    step.push_back(strides[p]);
  }
  PLUMB_ASSIGN_OR_RETURN(Tensor * result, result_slot(cx, operand.dtype, shape));
  // result[i...] = operand[j...] with j[perm[k]] = i[k]
  copy_view(operand, 0, step, *result, 0, row_major_strides(shape), shape);
  return Status::ok();
}

// ---- slice -------------------------------------------------------------------------------------

template <>
Status kernel<ir::Op::Slice>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  const Dims start = ints_of(cx.inputs[1]);
  const Dims size = ints_of(cx.inputs[2]);
  const Dims stride = ints_of(cx.inputs[3]);
  const int64_t rank = operand.rank();
  if (static_cast<int64_t>(start.size()) != rank || static_cast<int64_t>(size.size()) != rank ||
      static_cast<int64_t>(stride.size()) != rank)
    return internal_error("slice: start/size/stride do not fit the operand rank");
  for (int64_t d = 0; d < rank; ++d)  // slice.R1
    if (stride[d] == 0) return runtime_error("slice.R1", "stride " + ints_str(stride) + " has a zero entry");
  // slice.R2
  if (!valid_dims(size)) return runtime_error("slice.R2", "size " + ints_str(size) + " is not a valid shape");
  PLUMB_ASSIGN_OR_RETURN(Tensor * result, result_slot(cx, operand.dtype, size));
  if (num_elements(size) == 0) return Status::ok();  // nothing is read
  const Dims strides = row_major_strides(operand.shape);
  int64_t base = 0;
  Dims step(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    // Checked int64 arithmetic (no __int128 on 32-bit targets): a last index past int64 is out of range.
    const int64_t first = start[d];
    int64_t last = 0;
    const bool past =
        __builtin_mul_overflow(size[d] - 1, stride[d], &last) || __builtin_add_overflow(first, last, &last);
    // slice.R3
    if (past || first < 0 || first >= operand.shape[d] || last < 0 || last >= operand.shape[d])
      return runtime_error(
          "slice.R3",
          strfmt("dim %lld: start %lld, size %lld, stride %lld reach outside [0, %lld)", (long long)d,
                 (long long)start[d], (long long)size[d], (long long)stride[d], (long long)operand.shape[d]));
    base += start[d] * strides[d];
    step[d] = size[d] == 1 ? 0 : stride[d] * strides[d];  // size >= 2: |stride| < dim, no overflow
  }
  // result[i...] = operand[start + i * stride]
  copy_view(operand, base, step, *result, 0, row_major_strides(size), size);
  return Status::ok();
}

// ---- concat ------------------------------------------------------------------------------------

Expected<Dims> concat_shape(const KernelCtx& cx, int64_t axis) {
  const Tensor& first = cx.inputs[0]->tensor();
  if (axis < 0 || axis >= first.rank()) return internal_error("concat: axis out of range");
  Dims shape = first.shape;
  shape[axis] = 0;
  for (size_t i = 0; i < cx.inputs.size(); ++i) {
    const Tensor& t = cx.inputs[i]->tensor();
    if (t.dtype != first.dtype || t.rank() != first.rank())
      return internal_error("concat: operand types differ");
    for (int64_t d = 0; d < first.rank(); ++d)  // concat.R1
      if (d != axis && t.shape[d] != first.shape[d])
        return runtime_error("concat.R1",
                             strfmt("operand %zu has size %lld in dim %lld, operand 0 has %lld", i,
                                    (long long)t.shape[d], (long long)d, (long long)first.shape[d]));
    shape[axis] += t.shape[axis];
  }
  return shape;
}

template <>
Status kernel<ir::Op::Concat>(KernelCtx& cx) {
  const Tensor& first = cx.inputs[0]->tensor();
  const int64_t axis = ir::attr(cx.node, &ir::ConcatAttrs::axis);
  PLUMB_ASSIGN_OR_RETURN(const Dims shape, concat_shape(cx, axis));
  PLUMB_ASSIGN_OR_RETURN(Tensor * result, result_slot(cx, first.dtype, shape));
  const Dims dst_strides = row_major_strides(shape);
  int64_t at = 0;  // position of the current operand along axis
  for (const RtValue* v : cx.inputs) {
    const Tensor& t = v->tensor();
    copy_view(t, 0, row_major_strides(t.shape), *result, at * dst_strides[axis], dst_strides, t.shape);
    at += t.shape[axis];
  }
  return Status::ok();
}

// ---- pad ---------------------------------------------------------------------------------------

template <>
Status kernel<ir::Op::Pad>(KernelCtx& cx) {
  const Tensor& operand = cx.inputs[0]->tensor();
  const Dims low = ints_of(cx.inputs[1]);
  const Dims high = ints_of(cx.inputs[2]);
  const Tensor& value = cx.inputs[3]->tensor();
  const auto mode = ir::attr(cx.node, &ir::PadAttrs::mode);
  const int64_t rank = operand.rank();
  if (static_cast<int64_t>(low.size()) != rank || static_cast<int64_t>(high.size()) != rank ||
      value.dtype != operand.dtype || value.numel() != 1)
    return internal_error("pad: operands do not fit");
  Dims shape(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t dim = operand.shape[d], lo = low[d], hi = high[d];
    // pad.R1
    if (lo < 0 || hi < 0 || lo > ir::kMaxElements || hi > ir::kMaxElements)
      return runtime_error("pad.R1", "low " + ints_str(low) + " / high " + ints_str(high) + " out of range");
    // pad.R2
    if (mode == ir::PadMode::Reflect && (lo > 0 || hi > 0) && (lo >= dim || hi >= dim))
      return runtime_error("pad.R2", strfmt("reflect padding low %lld, high %lld in dim %lld of size %lld",
                                            (long long)lo, (long long)hi, (long long)d, (long long)dim));
    // pad.R3
    if ((mode == ir::PadMode::Edge || mode == ir::PadMode::Wrap) && (lo > 0 || hi > 0) && dim == 0)
      return runtime_error("pad.R3", strfmt("padding empty dim %lld in mode %s", (long long)d,
                                            mode == ir::PadMode::Edge ? "edge" : "wrap"));
    shape[d] = dim + lo + hi;
    if (shape[d] > ir::kMaxElements)  // pad.R1
      return runtime_error("pad.R1", strfmt("dim %lld padded to more than 2^40", (long long)d));
  }
  // pad.R1
  if (!valid_dims(shape))
    return runtime_error("pad.R1", "result " + ints_str(shape) + " has more than 2^40 elements");
  PLUMB_ASSIGN_OR_RETURN(Tensor * result, result_slot(cx, operand.dtype, shape));
  if (num_elements(shape) == 0) return Status::ok();  // (a dim may then be huge: build no maps)
  // map[at[d] + j]: the operand index that result index j of dim d reads, or -1 for `value`.
  Scratch scratch(cx);
  int64_t* map = scratch.take<int64_t>(pad_map_entries(shape));
  Dims at(static_cast<size_t>(rank));
  for (int64_t d = 0, next = 0; d < rank; ++d) {
    at[d] = next;
    next += shape[d];
  }
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t dim = operand.shape[d], lo = low[d];
    for (int64_t j = 0; j < shape[d]; ++j) {
      const int64_t i = j - lo;
      int64_t src = i;
      if (i < 0 || i >= dim) {
        if (mode == ir::PadMode::Constant) src = -1;
        if (mode == ir::PadMode::Reflect) src = i < 0 ? -i : 2 * (dim - 1) - i;
        if (mode == ir::PadMode::Edge) src = i < 0 ? 0 : dim - 1;
        if (mode == ir::PadMode::Wrap) src = ((i % dim) + dim) % dim;
      }
      map[at[d] + j] = src;
    }
  }
  const Dims strides = row_major_strides(operand.shape);
  visit_width(operand.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = operand.as<T>();
    T* dst = result->as<T>();
    for (IndexIter it(shape); !it.done(); it.next()) {
      int64_t off = 0;
      bool inside = true;
      for (int64_t d = 0; d < rank && inside; ++d) {
        const int64_t s = map[at[d] + it[d]];
        inside = s >= 0;
        off += s * strides[d];
      }
      dst[it.flat()] = inside ? src[off] : value.as<T>()[0];
    }
  });
  return Status::ok();
}

// The map's entries: one per result index of every dim.
int64_t pad_scratch_bytes(const ScratchQuery& q) {
  const ir::Type& result = *q.outputs[0];
  ScratchSize s;
  const Dims shape = static_dims(result);
  if (num_elements(shape) > 0) s.take<int64_t>(pad_map_entries(shape));
  return s.bytes();
}

}  // namespace plumb::rt::ref
