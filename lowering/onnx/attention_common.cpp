#include "lowering/onnx/attention_common.h"

namespace plumb::lower::attn {

using ir::DType;
using ir::ValueId;
using BK = ir::BinaryKind;
using CK = ir::CompareKind;

DimV Dims::of(ValueId x, int64_t axis) {
  const ir::Dim d = cx.dim(x, axis);
  if (d.is_static()) return c(d.size);
  ValueId sh = cx.b.shape_of(x);
  return {-1, cx.b.emit1(ir::SliceAttrs{},
                         {sh, cx.b.shape_const({axis}), cx.b.shape_const({1}), cx.b.shape_const({1})})};
}

DimV Dims::add(DimV a, DimV b) {
  return a.n >= 0 && b.n >= 0 ? c(a.n + b.n) : DimV{-1, cx.b.binary(BK::Add, a.v, b.v)};
}

DimV Dims::sub(DimV a, DimV b) {
  return a.n >= 0 && b.n >= 0 ? c(a.n - b.n) : DimV{-1, cx.b.binary(BK::Sub, a.v, b.v)};
}

ValueId Dims::shape(const std::vector<DimV>& ds) {
  std::vector<int64_t> st;
  std::vector<ValueId> parts;
  for (const DimV& d : ds) {
    st.push_back(d.n);
    parts.push_back(d.v);
  }
  for (int64_t x : st)
    if (x < 0) return cx.b.concat(parts, 0);
  return cx.b.shape_const(st);
}

ValueId Dims::scalar(DimV d) {
  return d.n >= 0 ? cx.b.scalar_int(DType::I64, d.n) : cx.b.reshape(d.v, cx.b.shape_const({}));
}

Expected<int64_t> static_dim(LowerCtx& cx, ValueId v, int64_t axis, const std::string& op, const char* what) {
  const ir::Dim d = cx.dim(v, axis);
  if (!d.is_static()) return unsupported(op + " with a symbolic " + what);
  return d.size;
}

Expected<double> float_attr(const onnx::OnnxNode& n, const char* name, double dflt) {
  auto v = n.attr_float(name, static_cast<float>(dflt));
  if (!v.has_value()) return v.status();
  return n.has_attr(name) ? static_cast<double>(*v) : dflt;
}

ValueId fill(LowerCtx& cx, double v, ValueId shape) {
  return cx.b.broadcast(cx.b.scalar_float(DType::F64, v), shape, {});
}

ValueId repeat_heads(LowerCtx& cx, Dims& dm, ValueId x, DimV B, int64_t hkv, int64_t rep, DimV T, int64_t d) {
  if (rep == 1) return x;
  ValueId b = cx.b.broadcast(x, dm.shape({B, dm.c(hkv), dm.c(rep), T, dm.c(d)}), {0, 1, 3, 4});
  return cx.b.reshape(b, dm.shape({B, dm.c(hkv * rep), T, dm.c(d)}));
}

ValueId softmax_rows(LowerCtx& cx, ValueId s, ValueId shape) {
  const std::vector<int64_t> keep = {0, 1, 2};
  auto back = [&](ValueId r) { return cx.b.broadcast(r, shape, keep); };
  ValueId zeros = fill(cx, 0.0, shape), ones = fill(cx, 1.0, shape);
  ValueId mx = back(cx.b.reduce(ir::ReduceKind::Max, s, {3}));
  // A finite maximum contributes exp(0) = 1 to its row's sum, so only a dead row (maximum -inf:
  // all -inf, or no element at all) can sum to 0; a NaN maximum is not dead and stays NaN.
  ValueId dead = cx.b.compare(CK::Eq, mx, fill(cx, kNegInf, shape));
  mx = cx.b.select(dead, zeros, mx);
  ValueId e = cx.b.unary(ir::UnaryKind::Exp, cx.b.binary(BK::Sub, s, mx));
  ValueId sum = back(cx.b.reduce(ir::ReduceKind::Sum, e, {3}));
  return cx.b.select(dead, zeros, cx.b.binary(BK::Div, e, cx.b.select(dead, ones, sum)));
}

}  // namespace plumb::lower::attn
