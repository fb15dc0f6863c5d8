// Inference for the contraction and window ops: matmul, conv, pool
// (spec/ops/matmul.md, spec/ops/conv.md, spec/ops/pool.md).
#include <string>
#include <vector>

#include "ir/infer.h"

namespace plumb::ir {

namespace {

// Positions inside a padded/dilated extent must stay far from int64 overflow in the kernels.
constexpr int64_t kMaxExtent = int64_t{1} << 62;

std::string ints_to_string(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

std::string dt(DType d) { return std::string(dtype_name(d)); }

bool is_f8(DType d) {
  return d == DType::F8E4M3FN || d == DType::F8E4M3FNUZ || d == DType::F8E5M2 || d == DType::F8E5M2FNUZ;
}
bool is_wide_float(DType d) {
  return d == DType::F16 || d == DType::BF16 || d == DType::F32 || d == DType::F64;
}
bool is_int_nonbool(DType d) { return is_int(d); }

// The dtype table shared by matmul and conv (spec/ops/matmul.md "Dtypes").
bool contraction_dtypes_ok(DType lhs, DType rhs, DType to) {
  if (is_wide_float(lhs))
    return rhs == lhs && (to == lhs || ((lhs == DType::F16 || lhs == DType::BF16) && to == DType::F32));
  if (is_f8(lhs)) return is_f8(rhs) && (to == DType::F32 || to == DType::F16 || to == DType::BF16);
  if (is_int_nonbool(lhs))
    return is_int_nonbool(rhs) &&
           (to == DType::I32 || to == DType::I64 || to == DType::U32 || to == DType::U64);
  return false;
}

// Two dims that must be equal: static vs static must match; otherwise the more precise one wins.
bool merge_dim(const Dim& a, const Dim& b, Dim* out) {
  if (a.is_static() && b.is_static()) {
    *out = a;
    return a.size == b.size;
  }
  *out = a.is_static() ? a : b.is_static() ? b : (!a.sym.empty() ? a : b);
  return true;
}

Status check_result_size(const std::string& label, const Shape& s) {
  int64_t n = 1;
  for (const Dim& d : s) {
    if (!d.is_static()) continue;
    // An int64 overflow is past kMaxElements too (no __int128 on 32-bit targets such as Cortex-M).
    if (__builtin_mul_overflow(n, d.size, &n) || n > kMaxElements)
      return invalid_model(label,
                           strfmt("result %s has more than 2^40 elements", shape_to_string(s).c_str()));
  }
  return Status::ok();
}

// Window arithmetic shared by conv and pool for one dim (static sizes only):
// padded = dilated_in + pads, dilated window dk = (k-1)*dil+1, result = floor((padded - dk)/stride) + 1.
// Returns -1 when that is negative, -2 when an extent exceeds kMaxExtent.
int64_t window_out(int64_t in, int64_t in_dil, int64_t pad_lo, int64_t pad_hi, int64_t k, int64_t dil,
                   int64_t stride) {
  // Checked int64 arithmetic (no __int128 on 32-bit targets): pads are >= 0 and dilations >= 1
  // (C3, C4), so an overflow means an extent past kMaxExtent; so does a difference padded - dk
  // past int64 (k == 0 with a dilation near 2^63).
  int64_t dilated_in = 0, padded = 0, dk = 0, x = 0;
  if (in != 0 && (__builtin_mul_overflow(in - 1, in_dil, &dilated_in) ||
                  __builtin_add_overflow(dilated_in, 1, &dilated_in)))
    return -2;
  if (__builtin_add_overflow(dilated_in, pad_lo, &padded) ||
      __builtin_add_overflow(padded, pad_hi, &padded) || __builtin_mul_overflow(k - 1, dil, &dk) ||
      __builtin_add_overflow(dk, 1, &dk))
    return -2;
  if (padded > kMaxExtent || dk > kMaxExtent || __builtin_sub_overflow(padded, dk, &x) || x == INT64_MAX)
    return -2;
  const int64_t q = x / stride - (x % stride < 0 ? 1 : 0);  // floor division (stride >= 1)
  return q + 1 < 0 ? -1 : q + 1;
}

// One window attribute by name (the name is for the message).
struct NamedInts {
  const char* name;
  const std::vector<int64_t>& v;
};

Status check_attr_len(const std::string& label, const NamedInts& a, size_t want) {
  const char* name = a.name;
  const std::vector<int64_t>& v = a.v;
  if (v.size() != want)
    return invalid_model(label, strfmt("%s %s has %zu entries, expected %zu", name, ints_to_string(v).c_str(),
                                       v.size(), want));
  return Status::ok();
}

Status check_attr_min(const std::string& label, const NamedInts& a, int64_t lo) {
  const char* name = a.name;
  const std::vector<int64_t>& v = a.v;
  for (int64_t x : v)
    if (x < lo)
      return invalid_model(label, strfmt("%s %s has an entry below %lld", name, ints_to_string(v).c_str(),
                                         static_cast<long long>(lo)));
  return Status::ok();
}

const Type* ranked_tensor(const InferCtx& cx, size_t i) {
  const Type* t = cx.operands[i].type;
  return (t && t->is_tensor() && t->ranked) ? t : nullptr;
}

}  // namespace

// spec/ops/matmul.md
template <>
Expected<std::vector<Type>> infer<Op::MatMul>(const InferCtx& cx) {
  const Type* lhs = ranked_tensor(cx, 0);
  const Type* rhs = ranked_tensor(cx, 1);
  // matmul.C1
  if (!lhs || !rhs || lhs->rank() < 2 || rhs->rank() < 2)
    return invalid_model("matmul.C1", "lhs and rhs must be ranked tensors of rank >= 2, got " +
                                          (cx.operands[0].type ? type_to_string(*cx.operands[0].type) : "?") +
                                          " and " +
                                          (cx.operands[1].type ? type_to_string(*cx.operands[1].type) : "?"));
  const int64_t r = lhs->rank();
  // matmul.C2
  if (rhs->rank() != r)
    return invalid_model("matmul.C2", strfmt("lhs rank %lld and rhs rank %lld differ",
                                             static_cast<long long>(r), static_cast<long long>(rhs->rank())));
  Shape shape(r);
  for (int64_t d = 0; d < r - 2; ++d)
    if (!merge_dim(lhs->shape[d], rhs->shape[d], &shape[d]))
      return invalid_model("matmul.C2", "batch dims of lhs " + shape_to_string(lhs->shape) + " and rhs " +
                                            shape_to_string(rhs->shape) + " differ");
  // matmul.C3
  Dim k;
  if (!merge_dim(lhs->shape[r - 1], rhs->shape[r - 2], &k))
    return invalid_model("matmul.C3", "contraction dims differ: lhs " + shape_to_string(lhs->shape) +
                                          " rhs " + shape_to_string(rhs->shape));
  // matmul.C4
  const DType to = attrs<Op::MatMul>(cx.node).to;
  if (!contraction_dtypes_ok(lhs->dtype, rhs->dtype, to))
    return invalid_model("matmul.C4", "dtypes " + dt(lhs->dtype) + " x " + dt(rhs->dtype) + " -> " + dt(to) +
                                          " are not a legal combination");
  shape[r - 2] = lhs->shape[r - 2];
  shape[r - 1] = rhs->shape[r - 1];
  // matmul.C5
  PLUMB_RETURN_IF_ERROR(check_result_size("matmul.C5", shape));
  return std::vector<Type>{Type::tensor(to, std::move(shape))};
}

// spec/ops/conv.md
template <>
Expected<std::vector<Type>> infer<Op::Conv>(const InferCtx& cx) {
  const Node& n = cx.node;
  const Type* input = ranked_tensor(cx, 0);
  const Type* weight = ranked_tensor(cx, 1);
  // conv.C1
  if (!input || !weight || input->rank() < 3 || weight->rank() != input->rank())
    return invalid_model("conv.C1", "input and weight must be ranked tensors of equal rank >= 3, got " +
                                        (cx.operands[0].type ? type_to_string(*cx.operands[0].type) : "?") +
                                        " and " +
                                        (cx.operands[1].type ? type_to_string(*cx.operands[1].type) : "?"));
  const size_t ns = static_cast<size_t>(input->rank() - 2);
  const ConvAttrs a = attrs<Op::Conv>(n);
  const NamedInts strides{"strides", a.strides}, dilations{"dilations", a.dilations},
      lhs_dilations{"lhs_dilations", a.lhs_dilations}, pads_low{"pads_low", a.pads_low},
      pads_high{"pads_high", a.pads_high};
  // conv.C2
  for (const NamedInts& w : {strides, dilations, lhs_dilations, pads_low, pads_high})
    PLUMB_RETURN_IF_ERROR(check_attr_len("conv.C2", w, ns));
  // conv.C3
  for (const NamedInts& w : {strides, dilations, lhs_dilations})
    PLUMB_RETURN_IF_ERROR(check_attr_min("conv.C3", w, 1));
  // conv.C4
  for (const NamedInts& w : {pads_low, pads_high}) PLUMB_RETURN_IF_ERROR(check_attr_min("conv.C4", w, 0));
  // conv.C5
  const int64_t groups = a.groups;
  const Dim& c = input->shape[1];
  const Dim& o = weight->shape[0];
  const Dim& cg = weight->shape[1];
  if (groups < 1)
    return invalid_model("conv.C5", strfmt("groups %lld is below 1", static_cast<long long>(groups)));
  int64_t cg_total = 0;  // weight dim 1 * groups; an int64 overflow is a mismatch too
  if ((c.is_static() && c.size % groups != 0) || (o.is_static() && o.size % groups != 0) ||
      (c.is_static() && cg.is_static() &&
       (__builtin_mul_overflow(cg.size, groups, &cg_total) || cg_total != c.size)))
    return invalid_model("conv.C5",
                         strfmt("input %s, weight %s and groups %lld do not fit: C %% groups == 0, "
                                "O %% groups == 0 and weight dim 1 == C / groups are required",
                                shape_to_string(input->shape).c_str(), shape_to_string(weight->shape).c_str(),
                                static_cast<long long>(groups)));
  // conv.C6
  for (size_t d = 0; d < ns; ++d)
    if (weight->shape[2 + d].is_static() && weight->shape[2 + d].size < 1)
      return invalid_model(
          "conv.C6", "kernel spatial dims of weight " + shape_to_string(weight->shape) + " must be >= 1");
  // conv.C7
  Shape shape{input->shape[0], o};
  const auto& dil = a.dilations;
  const auto& ldil = a.lhs_dilations;
  const auto& plo = a.pads_low;
  const auto& phi = a.pads_high;
  for (size_t d = 0; d < ns; ++d) {
    const Dim& in = input->shape[2 + d];
    const Dim& k = weight->shape[2 + d];
    if (!in.is_static() || !k.is_static()) {
      shape.push_back(Dim::symbolic());
      continue;
    }
    const int64_t e = window_out(in.size, ldil[d], plo[d], phi[d], k.size, dil[d], a.strides[d]);
    if (e < 0)
      return invalid_model(
          "conv.C7",
          strfmt("spatial dim %zu: the dilated kernel (size %lld, dilation %lld) %s "
                 "the padded input (size %lld, lhs dilation %lld, pads %lld+%lld)",
                 d, static_cast<long long>(k.size), static_cast<long long>(dil[d]),
                 e == -1 ? "leaves a negative result size with" : "or its extent exceeds 2^62 with",
                 static_cast<long long>(in.size), static_cast<long long>(ldil[d]),
                 static_cast<long long>(plo[d]), static_cast<long long>(phi[d])));
    shape.push_back(Dim(e));
  }
  // conv.C8
  const DType to = a.to;
  if (!contraction_dtypes_ok(input->dtype, weight->dtype, to))
    return invalid_model("conv.C8", "dtypes " + dt(input->dtype) + " x " + dt(weight->dtype) + " -> " +
                                        dt(to) + " are not a legal combination");
  // conv.C9
  PLUMB_RETURN_IF_ERROR(check_result_size("conv.C9", shape));
  return std::vector<Type>{Type::tensor(to, std::move(shape))};
}

// spec/ops/pool.md
template <>
Expected<std::vector<Type>> infer<Op::Pool>(const InferCtx& cx) {
  const Node& n = cx.node;
  const Type* operand = ranked_tensor(cx, 0);
  // pool.C1
  if (!operand)
    return invalid_model("pool.C1", "operand must be a ranked tensor, got " +
                                        (cx.operands[0].type ? type_to_string(*cx.operands[0].type) : "?"));
  const size_t r = static_cast<size_t>(operand->rank());
  const PoolAttrs a = attrs<Op::Pool>(n);
  const NamedInts window_{"window", a.window}, strides_{"strides", a.strides},
      dilations{"dilations", a.dilations}, pads_low{"pads_low", a.pads_low},
      pads_high{"pads_high", a.pads_high};
  // pool.C2
  for (const NamedInts& w : {window_, strides_, dilations, pads_low, pads_high})
    PLUMB_RETURN_IF_ERROR(check_attr_len("pool.C2", w, r));
  // pool.C3
  for (const NamedInts& w : {window_, strides_, dilations})
    PLUMB_RETURN_IF_ERROR(check_attr_min("pool.C3", w, 1));
  // pool.C4
  for (const NamedInts& w : {pads_low, pads_high}) PLUMB_RETURN_IF_ERROR(check_attr_min("pool.C4", w, 0));
  // pool.C5
  const auto& window = a.window;
  const auto& strides = a.strides;
  const auto& dil = a.dilations;
  const auto& plo = a.pads_low;
  const auto& phi = a.pads_high;
  Shape shape;
  for (size_t d = 0; d < r; ++d) {
    const Dim& in = operand->shape[d];
    if (!in.is_static()) {
      shape.push_back(Dim::symbolic());
      continue;
    }
    const int64_t e = window_out(in.size, 1, plo[d], phi[d], window[d], dil[d], strides[d]);
    if (e < 0)
      return invalid_model(
          "pool.C5",
          strfmt("dim %zu: the dilated window (size %lld, dilation %lld) %s the padded "
                 "operand (size %lld, pads %lld+%lld)",
                 d, static_cast<long long>(window[d]), static_cast<long long>(dil[d]),
                 e == -1 ? "leaves a negative result size with" : "or its extent exceeds 2^62 with",
                 static_cast<long long>(in.size), static_cast<long long>(plo[d]),
                 static_cast<long long>(phi[d])));
    shape.push_back(Dim(e));
  }
  // pool.C6
  const DType d = operand->dtype;
  if (!is_int_nonbool(d) && !is_wide_float(d))
    return invalid_model("pool.C6", "operand dtype " + dt(d) + " is not an integer, f16, bf16, f32 or f64");
  // pool.C7
  if (n.outputs.size() == 2 && a.kind != PoolKind::Max)
    return invalid_model("pool.C7", "the indices result exists only for kind = max");
  // pool.C8
  PLUMB_RETURN_IF_ERROR(check_result_size("pool.C8", shape));
  std::vector<Type> out{Type::tensor(d, shape)};
  if (n.outputs.size() == 2) out.push_back(Type::tensor(DType::I64, shape));
  return out;
}

}  // namespace plumb::ir
