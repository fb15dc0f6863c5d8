// ONNX MatMul (numpy matmul: 1-D operands promoted, batch dims broadcast) and Gemm onto the
// core `matmul` (identical batch dims, rank >= 2, explicit result dtype).
#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;

namespace {

ValueId reshape_static(LowerCtx& cx, ValueId v, const std::vector<int64_t>& dims) {
  return cx.b.reshape(v, cx.b.shape_const(dims));
}

// y without the dims MatMul's 1-D operands were promoted with ([1, K] rows, [K, 1] columns).
ValueId drop_promoted(LowerCtx& cx, ValueId y, bool a_vec, bool b_vec) {
  if (!a_vec && !b_vec) return y;
  ir::Type yt = cx.type(y);
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < yt.rank(); ++i) {
    if (a_vec && i == yt.rank() - 2) continue;
    if (b_vec && i == yt.rank() - 1) continue;
    keep.push_back(i);
  }
  if (ir::shape_is_static(yt.shape)) {
    std::vector<int64_t> dims;
    for (int64_t i : keep) dims.push_back(yt.shape[i].size);
    y = reshape_static(cx, y, dims);
  } else {
    ValueId s = cx.b.shape_of(y);
    std::vector<ValueId> parts;
    for (int64_t i : keep) parts.push_back(static_slice(cx, s, {i}, {1}));
    y = cx.b.reshape(y, parts.empty() ? cx.b.shape_const({}) : cx.b.concat(parts, 0));
  }
  return y;
}

// a [..., M, K] x b [..., K, N] with numpy batch broadcasting, result dtype `to`.
Expected<ValueId> batched_matmul(LowerCtx& cx, ValueId a, ValueId b, ir::DType to) {
  ir::Type at = cx.type(a), bt = cx.type(b);
  const bool a_vec = at.rank() == 1, b_vec = bt.rank() == 1;
  if (at.rank() == 0 || bt.rank() == 0) return invalid_model("", "MatMul operands must have rank >= 1");
  // A 1-D operand becomes a [1, K] row or a [K, 1] column; a static K gives a constant target so
  // that the matrix keeps a static type (a concat of shapes would make it symbolic).
  auto to_matrix = [&](ValueId v, bool row) {
    const ir::Type t = cx.type(v);
    if (t.ranked && ir::shape_is_static(t.shape)) {
      const int64_t k = t.shape[0].size;
      return cx.b.reshape(v, cx.b.shape_const(row ? std::vector<int64_t>{1, k} : std::vector<int64_t>{k, 1}));
    }
    return cx.b.reshape(v, row ? cx.b.concat({cx.b.shape_const({1}), shape_value(cx, v)}, 0)
                               : cx.b.concat({shape_value(cx, v), cx.b.shape_const({1})}, 0));
  };
  if (a_vec) {
    a = to_matrix(a, true);
    at = cx.type(a);
  }
  if (b_vec) {
    b = to_matrix(b, false);
    bt = cx.type(b);
  }
  PLUMB_RETURN_IF_ERROR(cx.error());  // the ranks below are those of the matrices just built
  const int64_t ra = at.rank(), rb = bt.rank();
  const int64_t r = std::max(ra, rb);
  if (ra > 2 && rb == 2) {
    // [..., M, K] x [K, N] (a linear layer on a batch): fold the batch dims into M instead of
    // broadcasting the weight over them (a [128, 768, 2304] copy of one weight in a BERT export made
    // a 908 MB arena). Every result element is the same K-term dot product in the same order.
    ValueId a2, back;
    if (ir::shape_is_static(at.shape) && bt.shape[1].is_static()) {
      int64_t rows = 1;
      std::vector<int64_t> out;
      for (int64_t i = 0; i < ra - 1; ++i) {
        rows *= at.shape[i].size;
        out.push_back(at.shape[i].size);
      }
      out.push_back(bt.shape[1].size);
      a2 = reshape_static(cx, a, {rows, at.shape[ra - 1].size});
      back = cx.b.shape_const(out);
    } else {
      ValueId s = shape_value(cx, a);
      ValueId lead = static_slice(cx, s, {0}, {ra - 1});
      ValueId k = static_slice(cx, s, {ra - 1}, {1});
      ValueId n = static_slice(cx, shape_value(cx, b), {1}, {1});
      ValueId rows = cx.b.reshape(cx.b.reduce(ir::ReduceKind::Prod, lead, {0}), cx.b.shape_const({1}));
      a2 = cx.b.reshape(a, cx.b.concat({rows, k}, 0));
      back = cx.b.concat({lead, n}, 0);
    }
    return drop_promoted(cx, cx.b.reshape(cx.b.matmul(a2, b, to), back), a_vec, b_vec);
  }
  ir::Shape ab(at.shape.begin(), at.shape.end() - 2), bb(bt.shape.begin(), bt.shape.end() - 2);
  const bool same_batch = ab == bb && (ir::shape_is_static(ab) || [&] {
                            for (const ir::Dim& d : ab)
                              if (!d.is_static() && d.sym.empty()) return false;
                            return true;
                          }());
  if (!same_batch && !(ir::shape_is_static(ab) && ir::shape_is_static(bb))) {
    // Batch dims known only at run time: broadcast both operands to the common batch shape
    // computed in the graph (acc_d == 1 ? other_d : acc_d, also right for 0-size dims).
    auto batch_of = [&](ValueId v, int64_t rv) {
      ValueId s = cx.b.shape_of(v);
      ValueId bs = cx.b.emit1(ir::SliceAttrs{},
                              {s, cx.b.shape_const({0}), cx.b.shape_const({rv - 2}), cx.b.shape_const({1})});
      if (rv < r)
        bs = cx.b.concat({cx.b.const_ints(ir::DType::I64, {r - rv}, std::vector<int64_t>(r - rv, 1)), bs}, 0);
      return bs;
    };
    ValueId ba = batch_of(a, ra), bb_v = batch_of(b, rb);
    ValueId ones = cx.b.const_ints(ir::DType::I64, {r - 2}, std::vector<int64_t>(r - 2, 1));
    ValueId batch = cx.b.select(cx.b.compare(ir::CompareKind::Eq, ba, ones), bb_v, ba);
    auto widen_dyn = [&](ValueId v, int64_t rv) {
      ValueId mat = cx.b.emit1(ir::SliceAttrs{}, {cx.b.shape_of(v), cx.b.shape_const({rv - 2}),
                                                  cx.b.shape_const({2}), cx.b.shape_const({1})});
      return broadcast_to(cx, v, cx.b.concat({batch, mat}, 0), r);
    };
    a = widen_dyn(a, ra);
    b = widen_dyn(b, rb);
  } else if (!same_batch) {
    std::vector<int64_t> batch(static_cast<size_t>(r - 2), 1);
    auto fold = [&](const ir::Shape& s) -> Status {
      const size_t off = batch.size() - s.size();
      for (size_t i = 0; i < s.size(); ++i) {
        int64_t& d = batch[off + i];
        if (s[i].size == 1) continue;
        if (d != 1 && d != s[i].size) return invalid_model("", "MatMul batch dims cannot be broadcast");
        d = s[i].size;
      }
      return Status::ok();
    };
    PLUMB_RETURN_IF_ERROR(fold(ab));
    PLUMB_RETURN_IF_ERROR(fold(bb));
    auto widen = [&](ValueId v, const ir::Type& t) {
      std::vector<int64_t> dims = batch;
      dims.push_back(t.shape[t.rank() - 2].size);
      dims.push_back(t.shape[t.rank() - 1].size);
      for (int64_t d : dims)
        if (d < 0) return ir::kNoValue;  // M/K/N symbolic with batch broadcasting: below
      return broadcast_to(cx, v, cx.b.shape_const(dims), r);
    };
    a = widen(a, at);
    b = widen(b, bt);
    if (a == ir::kNoValue || b == ir::kNoValue)
      return unsupported("MatMul batch broadcasting with symbolic matrix dims");
  }
  return drop_promoted(cx, cx.b.matmul(a, b, to), a_vec, b_vec);
}

Status lower_matmul(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId a, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId b, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(ValueId y, batched_matmul(cx, a, b, cx.type(a).dtype));
  cx.set_output(n, 0, y);
  return cx.error();
}

// Gemm: Y = alpha * A' B' + beta * C, A' = transA ? A^T : A (2-D), C broadcast to [M, N].
Status lower_gemm(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId a, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId b, cx.input(n, 1));
  PLUMB_RETURN_IF_ERROR(cx.error());
  auto fa = n.attr_float("alpha", 1.0f);
  auto fb = n.attr_float("beta", 1.0f);
  if (!fa.has_value()) return fa.status();
  if (!fb.has_value()) return fb.status();
  PLUMB_ASSIGN_OR_RETURN(int64_t ta, n.attr_int("transA", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t tb, n.attr_int("transB", 0));
  if (rank_of(cx, a) != 2 || rank_of(cx, b) != 2) return cx.invalid("Gemm operands must be 2-D");
  if (ta) a = cx.b.transpose(a, {1, 0});
  if (tb) b = cx.b.transpose(b, {1, 0});
  const ir::DType dt = cx.type(a).dtype;
  ValueId y = cx.b.matmul(a, b, dt);
  if (*fa != 1.0f) y = cx.b.binary(ir::BinaryKind::Mul, splat(cx, *fa, y), y);
  if (cx.has_input(n, 2)) {
    PLUMB_ASSIGN_OR_RETURN(ValueId c, cx.input(n, 2));
    if (*fb != 1.0f) c = cx.b.binary(ir::BinaryKind::Mul, splat(cx, *fb, c), c);
    c = broadcast_to(cx, c, shape_value(cx, y), 2);
    y = cx.b.binary(ir::BinaryKind::Add, y, c);
  }
  cx.set_output(n, 0, y);
  return cx.error();
}

}  // namespace

void register_matmul(Registry& r) { r.add_since({{"MatMul", 1, lower_matmul}, {"Gemm", 1, lower_gemm}}); }

}  // namespace plumb::lower
