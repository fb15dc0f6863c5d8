// Lowering rules for Unique, TensorScatter.
//
// Unique: stable sort (rows: a stable sort per column, last column first, which gives the
// lexicographic order), group starts by comparing neighbours, nonzero for the data-dependent
// count, scatter for the inverse map and the counts. Equality inside a group is value equality
// (-0 == +0) with every NaN equal to every NaN (the core sort puts NaNs last and keeps them
// together; numpy >= 1.24 np.unique also collapses NaNs). The representative of a group (Y) is its
// first occurrence in X.
//
// TensorScatter: the core scatter (kind elements along `axis`) with indices
// write_indices[b] + position (mod max_sequence_length for circular).
#include <algorithm>
#include <vector>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::DType;
using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using CK = ir::CompareKind;

namespace {

ValueId gather0(LowerCtx& cx, ValueId x, ValueId idx) {
  return cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Axis, 0, 0}, {x, idx});
}

ValueId iota(LowerCtx& cx, ValueId shape, int64_t axis) {
  return cx.b.emit1(ir::IotaAttrs{DType::I64, axis}, {shape});
}

// result[indices[i]] = updates[i] along axis 0 of `operand` (rank 1), reduction as given.
ValueId scatter1(LowerCtx& cx, ValueId operand, ValueId indices, ValueId updates,
                 ir::ScatterReduction reduction) {
  return cx.b.emit1(ir::ScatterAttrs{ir::GatherKind::Elements, 0, reduction}, {operand, indices, updates});
}

// a and b "the same" for Unique: equal, or both NaN (floats).
ValueId same(LowerCtx& cx, ValueId a, ValueId b) {
  ValueId eq = cx.b.compare(CK::Eq, a, b);
  if (!ir::is_float(cx.type(a).dtype)) return eq;
  ValueId both_nan = cx.b.binary(BK::And, cx.b.compare(CK::Ne, a, a), cx.b.compare(CK::Ne, b, b));
  return cx.b.binary(BK::Or, eq, both_nan);
}

// Unique-11.
Status lower_unique(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(int64_t sorted, n.attr_int("sorted", 1));
  const ir::Type xt = cx.type(x);
  if (!is_static(xt)) return cx.unsupported("Unique on symbolic dims");
  const std::vector<int64_t> dims = static_dims(xt);
  const int64_t r = xt.rank();
  const bool has_axis = n.has_attr("axis");
  int64_t axis = 0;
  if (has_axis) {
    PLUMB_ASSIGN_OR_RETURN(axis, n.attr_int("axis", 0));
    if (r == 0) return cx.invalid("Unique axis given for a rank-0 input");
    PLUMB_ASSIGN_OR_RETURN(axis, normalize_axis(cx, axis, r));
    PLUMB_RETURN_IF_ERROR(cx.error());
  }
  // rows: [count, width] with the unique unit a row.
  int64_t count = 1, width = 1;
  std::vector<int64_t> perm, moved;  // axis moved to the front (axis case)
  ValueId rows;
  if (has_axis) {
    perm.push_back(axis);
    for (int64_t d = 0; d < r; ++d)
      if (d != axis) perm.push_back(d);
    for (int64_t d : perm) moved.push_back(dims[d]);
    count = dims[axis];
    for (int64_t d = 0; d < r; ++d)
      if (d != axis) width *= dims[d];
    ValueId t = axis == 0 ? x : cx.b.transpose(x, perm);
    rows = cx.b.reshape(t, cx.b.shape_const({count, width}));
  } else {
    for (int64_t d : dims) count *= d;
    rows = cx.b.reshape(x, cx.b.shape_const({count, 1}));
  }
  const ValueId n_shape = cx.b.shape_const({count});
  // Lexicographic stable order of the rows.
  ValueId order = iota(cx, n_shape, 0);
  if (count > 0) {
    for (int64_t j = width - 1; j >= 0; --j) {
      ValueId col = cx.b.reshape(static_slice(cx, rows, {0, j}, {count, 1}), n_shape);
      ValueId key = width == 1 ? col : gather0(cx, col, order);
      auto s = cx.b.emit(ir::SortAttrs{0, false}, {key});
      if (s.size() < 2) return cx.error();
      order = width == 1 ? s[1] : gather0(cx, order, s[1]);
    }
  }
  ValueId v = gather0(cx, rows, order);  // [count, width], sorted
  // first[i]: row i of v starts a group.
  ValueId first;
  if (count == 0) {
    first = cx.b.const_ints(DType::Bool, {0}, {});
  } else {
    ValueId head = cx.b.const_ints(DType::Bool, {1}, {1});
    if (count == 1) {
      first = head;
    } else {
      ValueId cur = static_slice(cx, v, {1, 0}, {count - 1, width});
      ValueId prev = static_slice(cx, v, {0, 0}, {count - 1, width});
      ValueId differ = cx.b.cast(cx.b.unary(ir::UnaryKind::Not, same(cx, cur, prev)), DType::I64);
      ValueId nd = cx.b.reduce(ir::ReduceKind::Sum, differ, {1});
      first = cx.b.concat({head, cx.b.compare(CK::Gt, nd, splat(cx, 0, nd))}, 0);
    }
  }
  ValueId nz = cx.b.emit1(ir::NonZeroAttrs{}, {first});  // [1, K]
  ValueId k_shape = static_slice(cx, cx.b.shape_of(nz), {1}, {1});
  ValueId starts = cx.b.reshape(nz, k_shape);    // [K] positions in sorted order
  ValueId y_rows = gather0(cx, v, starts);       // [K, width]
  ValueId indices = gather0(cx, order, starts);  // first occurrences (stable sort)
  ValueId group = cx.b.binary(
      BK::Sub,
      cx.b.emit1(ir::ScanAttrs{ir::ReduceKind::Sum, 0, false, false}, {cx.b.cast(first, DType::I64)}),
      cx.b.broadcast(cx.b.scalar_int(DType::I64, 1), n_shape, {}));
  ValueId zeros_n = cx.b.broadcast(cx.b.scalar_int(DType::I64, 0), n_shape, {});
  ValueId inverse = scatter1(cx, zeros_n, order, group, ir::ScatterReduction::None);
  ValueId zeros_k = cx.b.broadcast(cx.b.scalar_int(DType::I64, 0), k_shape, {});
  ValueId counts = scatter1(cx, zeros_k, group, cx.b.broadcast(cx.b.scalar_int(DType::I64, 1), n_shape, {}),
                            ir::ScatterReduction::Add);
  if (sorted == 0) {
    // Groups in order of first occurrence; rank[q[j]] = j renumbers the inverse map.
    auto s = cx.b.emit(ir::SortAttrs{0, false}, {indices});
    if (s.size() < 2) return cx.error();
    ValueId q = s[1];
    y_rows = gather0(cx, y_rows, q);
    indices = s[0];
    counts = gather0(cx, counts, q);
    ValueId rank = scatter1(cx, zeros_k, q, iota(cx, k_shape, 0), ir::ScatterReduction::None);
    inverse = gather0(cx, rank, inverse);
  }
  ValueId y;
  if (has_axis) {
    // [K, width] -> moved shape with K first -> original axis order.
    std::vector<ValueId> parts{k_shape};
    if (r > 1) {
      std::vector<int64_t> rest(moved.begin() + 1, moved.end());
      parts.push_back(cx.b.shape_const(rest));
    }
    y = cx.b.reshape(y_rows, parts.size() == 1 ? parts[0] : cx.b.concat(parts, 0));
    if (axis != 0) {
      std::vector<int64_t> inv(r);
      for (int64_t i = 0; i < r; ++i) inv[perm[i]] = i;
      y = cx.b.transpose(y, inv);
    }
  } else {
    y = cx.b.reshape(y_rows, k_shape);
  }
  cx.set_output(n, 0, y);
  cx.set_output(n, 1, indices);
  cx.set_output(n, 2, inverse);
  cx.set_output(n, 3, counts);
  return cx.error();
}

// TensorScatter-24: present = past with update written along `axis` from write_indices[b]
// (linear: out of [0, max_sequence_length) is scatter.R1, an error; circular: modulo). A circular
// update longer than the cache writes some positions several times; the ONNX pseudo-code's last
// write wins, so only its last max_sequence_length positions are written (from the shifted index).
Status lower_tensor_scatter(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId past, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId update, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(int64_t axis, n.attr_int("axis", -2));
  PLUMB_ASSIGN_OR_RETURN(std::string mode, n.attr_string("mode", "linear"));
  if (mode != "linear" && mode != "circular")
    return cx.invalid("TensorScatter mode '" + mode + "' is not linear or circular");
  const ir::Type pt = cx.type(past), ut = cx.type(update);
  const int64_t r = pt.rank();
  if (!pt.ranked || !ut.ranked || ut.rank() != r || r < 2)
    return cx.invalid("TensorScatter needs two tensors of one rank >= 2");
  if (ut.dtype != pt.dtype) return cx.invalid("TensorScatter past_cache and update differ in dtype");
  PLUMB_ASSIGN_OR_RETURN(axis, normalize_axis(cx, axis, r));
  PLUMB_RETURN_IF_ERROR(cx.error());
  if (axis == 0) return cx.invalid("TensorScatter axis is the batch dimension");
  const ir::Dim md = pt.shape[axis], sd = ut.shape[axis];
  if (md.is_static() && sd.is_static() && sd.size > md.size && mode == "linear")
    return cx.invalid("TensorScatter update is longer than the cache");
  ValueId wi;
  if (cx.has_input(n, 2)) {
    PLUMB_ASSIGN_OR_RETURN(wi, cx.input(n, 2));
    if (cx.type(wi).dtype != DType::I64) wi = cx.b.cast(wi, DType::I64);
  } else {
    wi =
        cx.b.broadcast(cx.b.scalar_int(DType::I64, 0), static_slice(cx, shape_value(cx, past), {0}, {1}), {});
  }
  if (mode == "circular" && md.is_static() && sd.is_static() && sd.size > md.size) {
    const int64_t skip = sd.size - md.size;
    std::vector<int64_t> start(r, 0), size;
    for (const ir::Dim& d : ut.shape) {
      if (!d.is_static()) return cx.unsupported("TensorScatter circular overflow with symbolic dims");
      size.push_back(d.size);
    }
    start[axis] = skip;
    size[axis] = md.size;
    update = static_slice(cx, update, start, size);
    wi = cx.b.binary(BK::Add, wi, splat(cx, static_cast<double>(skip), wi));
  }
  ValueId ushape = shape_value(cx, update);
  ValueId idx = cx.b.binary(BK::Add, iota(cx, ushape, axis), cx.b.broadcast(wi, ushape, {0}));
  if (mode == "circular") {
    ValueId m = md.is_static()
                    ? cx.b.scalar_int(DType::I64, md.size)
                    : cx.b.reshape(static_slice(cx, cx.b.shape_of(past), {axis}, {1}), cx.b.shape_const({}));
    ValueId mb = cx.b.broadcast(m, ushape, {});
    // floor modulo (np.mod): ((i rem m) + m) rem m
    idx = cx.b.binary(BK::Rem, cx.b.binary(BK::Add, cx.b.binary(BK::Rem, idx, mb), mb), mb);
  }
  cx.set_output(n, 0,
                cx.b.emit1(ir::ScatterAttrs{ir::GatherKind::Elements, axis, ir::ScatterReduction::None},
                           {past, idx, update}));
  return cx.error();
}

}  // namespace

void register_index_extra(Registry& r) {
  r.add_since({{"Unique", 11, lower_unique}, {"TensorScatter", 24, lower_tensor_scatter}});
}

}  // namespace plumb::lower
