// Type inference for the value-source and layout ops: constant, iota, shape_of, rng, reshape,
// broadcast, transpose, slice, concat, pad (spec/ops/<op>.md). A data-dependent condition is a
// C-label when the values are known before run time and the matching R-label at run time.
#include <algorithm>
#include <limits>
#include <string>

#include "ir/infer.h"

namespace plumb::ir {

namespace {

std::string op_str(const InferCtx& cx) { return std::string(op_name(cx.node.op)); }
std::string lbl(const InferCtx& cx, const char* suffix) { return op_str(cx) + "." + suffix; }

// A ranked tensor operand, or nullptr.
const Type* ranked_tensor(const InferCtx& cx, size_t i) {
  const Type* t = cx.operands[i].type;
  return (t && t->is_tensor() && t->ranked) ? t : nullptr;
}

std::string type_str(const Type* t) { return t ? type_to_string(*t) : std::string("<none>"); }

// A shape-like operand: a 1-D i64 tensor with a static length (== want when want >= 0, and at
// most kMaxRank). Returns the length.
Expected<int64_t> shape_like(const InferCtx& cx, size_t i, const char* name, const std::string& label,
                             int64_t want = -1) {
  const Type* t = ranked_tensor(cx, i);
  if (!t || t->dtype != DType::I64 || t->rank() != 1 || !t->shape[0].is_static())
    return invalid_model(label, strfmt("%s must be a 1-D i64 tensor of static length, got %s", name,
                                       type_str(cx.operands[i].type).c_str()));
  const int64_t len = t->shape[0].size;
  if (len > kMaxRank)
    return invalid_model(label, strfmt("%s has %lld entries, more than the maximum rank %lld", name,
                                       (long long)len, (long long)kMaxRank));
  if (want >= 0 && len != want)
    return invalid_model(label, strfmt("%s has %lld entries, the operand rank is %lld", name, (long long)len,
                                       (long long)want));
  return len;
}

// Known values of operand i with the expected length, or nullptr.
const std::vector<int64_t>* known(const InferCtx& cx, size_t i, int64_t len) {
  const std::vector<int64_t>* v = cx.operands[i].values;
  return (v && static_cast<int64_t>(v->size()) == len) ? v : nullptr;
}

// A data-dependent failure: the C-label before run time, the R-label at run time.
Status data_error(const InferCtx& cx, const char* c, const char* r, const std::string& msg) {
  return cx.at_runtime ? runtime_error(lbl(cx, r), msg) : invalid_model(lbl(cx, c), msg);
}

std::string ints_str(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

// Every entry >= 0 and the element count at most kMaxElements.
Status check_dim_values(const InferCtx& cx, const std::vector<int64_t>& dims, const char* name, const char* c,
                        const char* r) {
  int64_t n = 1;
  bool too_big = false;
  for (int64_t d : dims) {
    if (d < 0)
      return data_error(cx, c, r, strfmt("%s %s has a negative entry", name, ints_str(dims).c_str()));
    if (d != 0 && n > kMaxElements / d) too_big = true;
    n = too_big ? n : n * d;
  }
  if (too_big || n > kMaxElements)
    return data_error(
        cx, c, r,
        strfmt("%s %s has more than %lld elements", name, ints_str(dims).c_str(), (long long)kMaxElements));
  return Status::ok();
}

// Static dims from known values, else `len` anonymous symbolic dims.
Shape shape_from(const std::vector<int64_t>* values, int64_t len) {
  if (values) return static_shape(*values);
  return Shape(static_cast<size_t>(len), Dim::symbolic());
}

// Shape of a `shape`-operand op (iota, rng, reshape, broadcast): checks I-th operand, its values.
Expected<Shape> shape_operand(const InferCtx& cx, size_t i, const char* c_type, const char* c_val,
                              const char* r_val) {
  PLUMB_ASSIGN_OR_RETURN(int64_t len, shape_like(cx, i, "shape", lbl(cx, c_type)));
  const std::vector<int64_t>* v = known(cx, i, len);
  if (v) PLUMB_RETURN_IF_ERROR(check_dim_values(cx, *v, "shape", c_val, r_val));
  return shape_from(v, len);
}

// Checked a + b for non-negative sizes; -1 on overflow.
int64_t add_sizes(int64_t a, int64_t b) { return a > std::numeric_limits<int64_t>::max() - b ? -1 : a + b; }

}  // namespace

// ---- constant ----------------------------------------------------------------------------------

// The byte size a constant of `type` must have (strings: walk the u32 lengths); false if the bytes
// do not match the type (constant.C3).
static bool constant_bytes_match(const ConstantData& c, std::string* why) {
  const int64_t n = shape_num_elements(c.type.shape);
  const DType dt = c.type.dtype;
  if (dt == DType::String) {
    uint64_t off = 0;
    for (int64_t k = 0; k < n; ++k) {
      if (c.size - off < 4) {
        *why = strfmt("string element %lld: length field past the end (%llu bytes)", (long long)k,
                      (unsigned long long)c.size);
        return false;
      }
      const uint8_t* p = c.data + off;
      const uint64_t len = uint64_t(p[0]) | uint64_t(p[1]) << 8 | uint64_t(p[2]) << 16 | uint64_t(p[3]) << 24;
      off += 4;
      if (c.size - off < len) {
        *why = strfmt("string element %lld: %llu bytes past the end", (long long)k, (unsigned long long)len);
        return false;
      }
      off += len;
    }
    if (off != c.size) {
      *why = strfmt("%llu bytes, the strings take %llu", (unsigned long long)c.size, (unsigned long long)off);
      return false;
    }
    return true;
  }
  const uint64_t need = dtype_storage_bytes(dt, static_cast<uint64_t>(n));
  if (c.size != need) {
    *why = strfmt("%llu bytes, %s needs %llu", (unsigned long long)c.size, type_to_string(c.type).c_str(),
                  (unsigned long long)need);
    return false;
  }
  if (dt == DType::Bool)
    for (uint64_t k = 0; k < c.size; ++k)
      if (c.data[k] > 1) {
        *why = strfmt("bool element %llu is %u, not 0 or 1", (unsigned long long)k, unsigned(c.data[k]));
        return false;
      }
  return true;
}

template <>
Expected<std::vector<Type>> infer<Op::Constant>(const InferCtx& cx) {
  const uint32_t index = attrs<Op::Constant>(cx.node).value.index;
  // constant.C1
  if (index >= cx.graph.constants.size())
    return invalid_model("constant.C1", strfmt("value refers to constant %u, the graph has %zu",
                                               unsigned(index), cx.graph.constants.size()));
  const ConstantData& c = cx.graph.constants[index];
  // constant.C2
  const int64_t n = c.type.is_tensor() && c.type.ranked ? shape_num_elements(c.type.shape) : -1;
  if (n < 0 || n > kMaxElements || c.type.rank() > kMaxRank)
    return invalid_model("constant.C2", "constant type " + type_to_string(c.type) +
                                            " is not a static tensor type within the size limits");
  // constant.C3
  std::string why;
  if ((c.size > 0 && !c.data) || !constant_bytes_match(c, &why))
    return invalid_model("constant.C3",
                         "constant " + std::to_string(index) + ": " + (why.empty() ? "no data" : why));
  return std::vector<Type>{c.type};
}

// ---- iota --------------------------------------------------------------------------------------

template <>
Expected<std::vector<Type>> infer<Op::Iota>(const InferCtx& cx) {
  PLUMB_ASSIGN_OR_RETURN(Shape shape, shape_operand(cx, 0, "C1", "C4", "R1"));
  const int64_t axis = attrs<Op::Iota>(cx.node).axis;
  // iota.C2
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size()))
    return invalid_model("iota.C2",
                         strfmt("axis %lld out of range for rank %zu", (long long)axis, shape.size()));
  // iota.C3
  const DType dt = attrs<Op::Iota>(cx.node).dtype;
  if (!is_int(dt) && !is_float(dt))
    return invalid_model("iota.C3",
                         "dtype " + std::string(dtype_name(dt)) + " is not an integer or float dtype");
  return std::vector<Type>{Type::tensor(dt, std::move(shape))};
}

// ---- shape_of ----------------------------------------------------------------------------------

template <>
Expected<std::vector<Type>> infer<Op::ShapeOf>(const InferCtx& cx) {
  const Type* t = ranked_tensor(cx, 0);
  // shape_of.C1
  if (!t)
    return invalid_model("shape_of.C1",
                         "operand " + type_str(cx.operands[0].type) + " is not a ranked tensor");
  return std::vector<Type>{Type::tensor(DType::I64, {Dim(t->rank())})};
}

// ---- rng ---------------------------------------------------------------------------------------

template <>
Expected<std::vector<Type>> infer<Op::Rng>(const InferCtx& cx) {
  PLUMB_ASSIGN_OR_RETURN(Shape shape, shape_operand(cx, 0, "C1", "C2", "R1"));
  return std::vector<Type>{Type::tensor(DType::U32, std::move(shape))};
}

// ---- reshape -----------------------------------------------------------------------------------

template <>
Expected<std::vector<Type>> infer<Op::Reshape>(const InferCtx& cx) {
  const Type* operand = ranked_tensor(cx, 0);
  // reshape.C1
  if (!operand)
    return invalid_model("reshape.C1",
                         "operand " + type_str(cx.operands[0].type) + " is not a ranked tensor");
  PLUMB_ASSIGN_OR_RETURN(Shape shape, shape_operand(cx, 1, "C1", "C2", "R1"));
  const int64_t have = shape_num_elements(operand->shape);
  const int64_t want = shape_num_elements(shape);
  // reshape.C3 / reshape.R2
  if (have >= 0 && want >= 0 && have != want)
    return data_error(
        cx, "C3", "R2",
        strfmt("shape %s has %lld elements, operand %s has %lld", shape_to_string(shape).c_str(),
               (long long)want, type_to_string(*operand).c_str(), (long long)have));
  // A 1-D result of a static operand has the operand's element count.
  if (shape.size() == 1 && !shape[0].is_static() && have >= 0) shape[0] = Dim(have);
  return std::vector<Type>{Type::tensor(operand->dtype, std::move(shape))};
}

// ---- broadcast ---------------------------------------------------------------------------------

template <>
Expected<std::vector<Type>> infer<Op::Broadcast>(const InferCtx& cx) {
  const Type* operand = ranked_tensor(cx, 0);
  // broadcast.C1
  if (!operand)
    return invalid_model("broadcast.C1",
                         "operand " + type_str(cx.operands[0].type) + " is not a ranked tensor");
  PLUMB_ASSIGN_OR_RETURN(Shape shape, shape_operand(cx, 1, "C1", "C3", "R1"));
  const std::vector<int64_t>& dims = attrs<Op::Broadcast>(cx.node).dims;
  const int64_t rank = static_cast<int64_t>(shape.size());
  // broadcast.C2
  if (static_cast<int64_t>(dims.size()) != operand->rank())
    return invalid_model("broadcast.C2",
                         strfmt("dims %s has %zu entries, operand rank is %lld", ints_str(dims).c_str(),
                                dims.size(), (long long)operand->rank()));
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] < 0 || dims[i] >= rank || (i > 0 && dims[i] <= dims[i - 1]))
      return invalid_model("broadcast.C2", strfmt("dims %s is not strictly increasing in [0, %lld)",
                                                  ints_str(dims).c_str(), (long long)rank));
  for (size_t i = 0; i < dims.size(); ++i) {
    const Dim& od = operand->shape[i];
    Dim& rd = shape[dims[i]];
    // broadcast.C4 / broadcast.R2
    if (od.is_static() && od.size != 1 && rd.is_static() && rd.size != od.size)
      return data_error(cx, "C4", "R2",
                        strfmt("operand dim %zu is %lld, result dim %lld is %lld (must be 1 or equal)", i,
                               (long long)od.size, (long long)dims[i], (long long)rd.size));
    // A static operand dim other than 1 fixes the result dim.
    if (od.is_static() && od.size != 1 && !rd.is_static()) rd = od;
  }
  return std::vector<Type>{Type::tensor(operand->dtype, std::move(shape))};
}

// ---- transpose ---------------------------------------------------------------------------------

template <>
Expected<std::vector<Type>> infer<Op::Transpose>(const InferCtx& cx) {
  const Type* operand = ranked_tensor(cx, 0);
  // transpose.C1
  if (!operand)
    return invalid_model("transpose.C1",
                         "operand " + type_str(cx.operands[0].type) + " is not a ranked tensor");
  const std::vector<int64_t>& perm = attrs<Op::Transpose>(cx.node).perm;
  const int64_t rank = operand->rank();
  // transpose.C2
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  bool ok = static_cast<int64_t>(perm.size()) == rank;
  for (size_t i = 0; ok && i < perm.size(); ++i) {
    ok = perm[i] >= 0 && perm[i] < rank && !seen[perm[i]];
    if (ok) seen[perm[i]] = true;
  }
  if (!ok)
    return invalid_model("transpose.C2", strfmt("perm %s is not a permutation of [0, %lld)",
                                                ints_str(perm).c_str(), (long long)rank));
  Shape shape;
  for (int64_t p : perm) shape.push_back(operand->shape[p]);
  return std::vector<Type>{Type::tensor(operand->dtype, std::move(shape))};
}

// ---- slice -------------------------------------------------------------------------------------

template <>
Expected<std::vector<Type>> infer<Op::Slice>(const InferCtx& cx) {
  const Type* operand = ranked_tensor(cx, 0);
  // slice.C1
  if (!operand)
    return invalid_model("slice.C1", "operand " + type_str(cx.operands[0].type) + " is not a ranked tensor");
  const int64_t rank = operand->rank();
  PLUMB_RETURN_IF_ERROR(shape_like(cx, 1, "start", "slice.C1", rank).status());
  PLUMB_RETURN_IF_ERROR(shape_like(cx, 2, "size", "slice.C1", rank).status());
  PLUMB_RETURN_IF_ERROR(shape_like(cx, 3, "stride", "slice.C1", rank).status());
  const std::vector<int64_t>* start = known(cx, 1, rank);
  const std::vector<int64_t>* size = known(cx, 2, rank);
  const std::vector<int64_t>* stride = known(cx, 3, rank);
  // slice.C2 / slice.R1
  if (stride)
    for (int64_t d = 0; d < rank; ++d)
      if ((*stride)[d] == 0)
        return data_error(cx, "C2", "R1", strfmt("stride %s has a zero entry", ints_str(*stride).c_str()));
  // slice.C3 / slice.R2
  if (size) PLUMB_RETURN_IF_ERROR(check_dim_values(cx, *size, "size", "C3", "R2"));
  // slice.C4 / slice.R3: for a non-empty result, the first and last index of each dim are in range.
  if (start && size && stride && std::find(size->begin(), size->end(), 0) == size->end()) {
    for (int64_t d = 0; d < rank; ++d) {
      const Dim& dim = operand->shape[d];
      if (!dim.is_static()) continue;
      // Checked int64 arithmetic (no __int128 on 32-bit targets): a last index past int64 is out of range.
      const int64_t first = (*start)[d];
      int64_t last = 0;
      const bool past = __builtin_mul_overflow((*size)[d] - 1, (*stride)[d], &last) ||
                        __builtin_add_overflow(first, last, &last);
      if (past || first < 0 || first >= dim.size || last < 0 || last >= dim.size)
        return data_error(cx, "C4", "R3",
                          strfmt("dim %lld: start %lld, size %lld, stride %lld reach outside [0, %lld)",
                                 (long long)d, (long long)(*start)[d], (long long)(*size)[d],
                                 (long long)(*stride)[d], (long long)dim.size));
    }
  }
  return std::vector<Type>{Type::tensor(operand->dtype, shape_from(size, rank))};
}

// ---- concat ------------------------------------------------------------------------------------

template <>
Expected<std::vector<Type>> infer<Op::Concat>(const InferCtx& cx) {
  const Type* first = ranked_tensor(cx, 0);
  // concat.C1
  for (size_t i = 0; i < cx.operands.size(); ++i) {
    const Type* t = ranked_tensor(cx, i);
    if (!t || !first || t->dtype != first->dtype || t->rank() != first->rank())
      return invalid_model(
          "concat.C1",
          strfmt("operand %zu is %s, operand 0 is %s (ranked tensors of one dtype and "
                 "rank expected)",
                 i, type_str(cx.operands[i].type).c_str(), type_str(cx.operands[0].type).c_str()));
  }
  const int64_t rank = first->rank();
  const int64_t axis = attrs<Op::Concat>(cx.node).axis;
  // concat.C2
  if (axis < 0 || axis >= rank)
    return invalid_model("concat.C2",
                         strfmt("axis %lld out of range for rank %lld", (long long)axis, (long long)rank));
  Shape shape = first->shape;
  int64_t total = 0;
  bool symbolic_axis = false;
  for (size_t i = 0; i < cx.operands.size(); ++i) {
    const Shape& s = cx.operands[i].type->shape;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis) continue;
      // concat.C3 / concat.R1
      if (s[d].is_static() && shape[d].is_static() && s[d].size != shape[d].size)
        return data_error(cx, "C3", "R1",
                          strfmt("operand %zu has size %lld in dim %lld, operand 0 has %lld", i,
                                 (long long)s[d].size, (long long)d, (long long)shape[d].size));
      if (s[d].is_static() && !shape[d].is_static()) shape[d] = s[d];
    }
    if (!s[axis].is_static()) {
      symbolic_axis = true;
    } else {
      total = std::min(add_sizes(total, s[axis].size), kMaxElements + 1);  // overflow: -1
      if (total < 0) total = kMaxElements + 1;
    }
  }
  shape[axis] = symbolic_axis ? Dim::symbolic() : Dim(total);
  // concat.C4
  const int64_t n = shape_num_elements(shape);
  if (total > kMaxElements || n == -2 || n > kMaxElements)
    return invalid_model("concat.C4", "result " + shape_to_string(shape) + " has more than 2^40 elements");
  return std::vector<Type>{Type::tensor(first->dtype, std::move(shape))};
}

// ---- pad ---------------------------------------------------------------------------------------

template <>
Expected<std::vector<Type>> infer<Op::Pad>(const InferCtx& cx) {
  const Type* operand = ranked_tensor(cx, 0);
  // pad.C1
  if (!operand)
    return invalid_model("pad.C1", "operand " + type_str(cx.operands[0].type) + " is not a ranked tensor");
  const int64_t rank = operand->rank();
  PLUMB_RETURN_IF_ERROR(shape_like(cx, 1, "low", "pad.C1", rank).status());
  PLUMB_RETURN_IF_ERROR(shape_like(cx, 2, "high", "pad.C1", rank).status());
  const Type* value = ranked_tensor(cx, 3);
  if (!value || value->rank() != 0 || value->dtype != operand->dtype)
    return invalid_model("pad.C1", "value " + type_str(cx.operands[3].type) +
                                       " is not a scalar of the operand dtype " +
                                       std::string(dtype_name(operand->dtype)));
  const std::vector<int64_t>* low = known(cx, 1, rank);
  const std::vector<int64_t>* high = known(cx, 2, rank);
  // pad.C2 / pad.R1 (negative entries; the result size is checked below)
  for (const std::vector<int64_t>* v : {low, high})
    if (v)
      for (int64_t p : *v)
        if (p < 0)
          return data_error(
              cx, "C2", "R1",
              strfmt("%s %s has a negative entry", v == low ? "low" : "high", ints_str(*v).c_str()));
  const auto mode = attrs<Op::Pad>(cx.node).mode;
  Shape shape = operand->shape;
  for (int64_t d = 0; d < rank; ++d) {
    const Dim& dim = operand->shape[d];
    if (!low || !high || !dim.is_static()) {
      // Unknown padding, or a symbolic dim: symbolic, unless the dim is known to be unpadded.
      shape[d] = (low && high && (*low)[d] == 0 && (*high)[d] == 0) ? dim : Dim::symbolic();
      continue;
    }
    const int64_t lo = (*low)[d], hi = (*high)[d];
    // pad.C3 / pad.R2
    if (mode == PadMode::Reflect && (lo > 0 || hi > 0) && (lo >= dim.size || hi >= dim.size))
      return data_error(
          cx, "C3", "R2",
          strfmt("reflect padding low %lld, high %lld in dim %lld of size %lld (each must be < size)",
                 (long long)lo, (long long)hi, (long long)d, (long long)dim.size));
    // pad.C4 / pad.R3
    if ((mode == PadMode::Edge || mode == PadMode::Wrap) && (lo > 0 || hi > 0) && dim.size == 0)
      return data_error(
          cx, "C4", "R3",
          strfmt("%s padding of empty dim %lld", mode == PadMode::Edge ? "edge" : "wrap", (long long)d));
    const int64_t sum = add_sizes(dim.size, lo) >= 0 ? add_sizes(add_sizes(dim.size, lo), hi) : -1;
    if (sum < 0 || sum > kMaxElements)
      return data_error(cx, "C2", "R1", strfmt("dim %lld padded to more than 2^40", (long long)d));
    shape[d] = Dim(sum);
  }
  // pad.C2 / pad.R1: result size
  const int64_t n = shape_num_elements(shape);
  if (n == -2 || n > kMaxElements)
    return data_error(cx, "C2", "R1", "result " + shape_to_string(shape) + " has more than 2^40 elements");
  return std::vector<Type>{Type::tensor(operand->dtype, std::move(shape))};
}

}  // namespace plumb::ir
