// ONNX Col2Im (18) and DeformConv (19, 22).
//
// Col2Im is one `scatter` with reduction add into the zero-padded image (flattened per channel),
// then a slice that drops the pads: the updates are added in row-major order of the columns
// (kernel offset major, then block position), the order of the ONNX reference loop, so even the
// floating sums agree term by term. DeformConv samples the input (multi)linearly at the offset kernel
// taps (2^s `gather`s for s spatial dims, out-of-input corners weighted 0: GridSample's zeros
// padding with align_corners), applies the mask, and contracts with the weights in one batched `matmul`;
// it is computed in f64 and rounded once to the output dtype.
#include <string>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using CK = ir::CompareKind;

namespace {

using Ints = std::vector<int64_t>;
constexpr int64_t kMaxWindow = int64_t{1} << 20;
constexpr int64_t kMaxTable = int64_t{1} << 26;  // elements of index constants made here

int64_t product(const Ints& d) {
  int64_t p = 1;
  for (int64_t x : d) p *= x;
  return p;
}

Expected<Ints> static_dims(LowerCtx& cx, ValueId v, const char* what) {
  const ir::Type t = cx.type(v);
  if (!t.ranked || !ir::shape_is_static(t.shape))
    return cx.unsupported(std::string(what) + " with symbolic dims");
  Ints d;
  for (const ir::Dim& x : t.shape) d.push_back(x.size);
  return d;
}

Expected<Ints> per_dim_attr(LowerCtx& cx, const OnnxNode& n, const char* name, size_t count, int64_t dflt) {
  PLUMB_ASSIGN_OR_RETURN(Ints v, n.attr_ints(name, {}));
  if (v.empty()) return Ints(count, dflt);
  if (v.size() != count) return cx.invalid(std::string(name) + " has the wrong number of entries");
  for (int64_t x : v)
    if (x < -kMaxWindow || x > kMaxWindow) return cx.invalid(std::string(name) + " out of range");
  return v;
}

ValueId reshape_to(LowerCtx& cx, ValueId v, const Ints& dims) {
  return cx.b.reshape(v, cx.b.shape_const(dims));
}

ValueId slice(LowerCtx& cx, ValueId v, const Ints& start, const Ints& size, const Ints& stride) {
  return cx.b.emit1(ir::SliceAttrs{},
                    {v, cx.b.shape_const(start), cx.b.shape_const(size), cx.b.shape_const(stride)});
}

// Row-major coordinates of flat index i in dims.
Ints unflatten(int64_t i, const Ints& dims) {
  Ints c(dims.size());
  for (size_t k = dims.size(); k-- > 0;) {
    c[k] = dims[k] == 0 ? 0 : i % dims[k];
    i = dims[k] == 0 ? 0 : i / dims[k];
  }
  return c;
}

// ---- Col2Im ---------------------------------------------------------------------------------------
// input [N, C * prod(block), L], image_shape [s..], block_shape [k..] -> [N, C, s..]:
//   image[n, c, pos] += input[n, c * K + kk, l], pos_d = l_d * stride_d - pad_lo_d + kk_d * dil_d
// for positions inside the image (those in the pads are dropped).
Status lower_col2im(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  std::optional<Ints> image = cx.const_ints(n, 1), block = cx.const_ints(n, 2);
  if (!image) return cx.needs_build_time(n, 1, "Col2Im image_shape");
  if (!block) return cx.needs_build_time(n, 2, "Col2Im block_shape");
  PLUMB_ASSIGN_OR_RETURN(Ints xd, static_dims(cx, x, "Col2Im"));
  const size_t s = image->size();
  if (s == 0 || block->size() != s)
    return cx.invalid("Col2Im image_shape and block_shape must have one entry per spatial dim");
  if (xd.size() != 3) return cx.invalid("Col2Im input must be [N, C * prod(block_shape), L]");
  PLUMB_ASSIGN_OR_RETURN(Ints dil, per_dim_attr(cx, n, "dilations", s, 1));
  PLUMB_ASSIGN_OR_RETURN(Ints strides, per_dim_attr(cx, n, "strides", s, 1));
  PLUMB_ASSIGN_OR_RETURN(Ints pads, per_dim_attr(cx, n, "pads", 2 * s, 0));
  Ints padded, blocks;
  for (size_t d = 0; d < s; ++d) {
    const int64_t im = (*image)[d], k = (*block)[d];
    if (im < 1 || im > kMaxTable || k < 1 || k > kMaxWindow || dil[d] < 1 || strides[d] < 1 || pads[d] < 0 ||
        pads[d + s] < 0)
      return cx.invalid("Col2Im: image and block sizes, dilations and strides must be >= 1 and pads >= 0");
    padded.push_back(im + pads[d] + pads[d + s]);
    const int64_t span = dil[d] * (k - 1) + 1;
    if (padded.back() < span) return cx.invalid("Col2Im: the block does not fit in the padded image");
    blocks.push_back((padded.back() - span) / strides[d] + 1);
  }
  const int64_t K = product(*block), Lc = product(blocks), P = product(padded);
  if (K > kMaxTable || Lc > kMaxTable || P > kMaxTable || K * Lc > kMaxTable)
    return cx.unsupported("Col2Im too large");
  if (xd[1] % K != 0) return cx.invalid("Col2Im: input dim 1 must be a multiple of prod(block_shape)");
  if (xd[2] != Lc) return cx.invalid("Col2Im: input dim 2 does not match the number of blocks");
  const int64_t N = xd[0], C = xd[1] / K;
  Ints idx;
  idx.reserve(static_cast<size_t>(K * Lc));
  for (int64_t kk = 0; kk < K; ++kk) {
    const Ints off = unflatten(kk, *block);
    for (int64_t l = 0; l < Lc; ++l) {
      const Ints pos = unflatten(l, blocks);
      int64_t flat = 0;
      for (size_t d = 0; d < s; ++d) flat = flat * padded[d] + pos[d] * strides[d] + off[d] * dil[d];
      idx.push_back(flat);
    }
  }
  ValueId updates = reshape_to(cx, x, {N, C, K * Lc});
  ValueId indices =
      cx.b.broadcast(cx.b.const_ints(ir::DType::I64, {K * Lc}, idx), cx.b.shape_const({N, C, K * Lc}), {2});
  ValueId zero = cx.b.broadcast(scalar_like(cx, 0.0, x), cx.b.shape_const({N, C, P}), {});
  ValueId img = cx.b.emit1(ir::ScatterAttrs{ir::GatherKind::Elements, 2, ir::ScatterReduction::Add},
                           {zero, indices, updates});
  Ints full = {N, C}, start = {0, 0}, size = {N, C}, stride = {1, 1};
  for (size_t d = 0; d < s; ++d) {
    full.push_back(padded[d]);
    start.push_back(pads[d]);
    size.push_back((*image)[d]);
    stride.push_back(1);
  }
  img = reshape_to(cx, img, full);
  cx.set_output(n, 0, slice(cx, img, start, size, stride));
  return cx.error();
}

// ---- DeformConv -----------------------------------------------------------------------------------
// N-D (the ONNX reference implements 2-D; the same formula for every spatial rank s):
//   y[n, o, p] = B[o] + sum_{c in group(o), k} W[o, c, k] * mask[n, g(c), k, p] *
//                sample(X[n, c], base(k, p) + off[n, g(c), k, :, p])
//   base_d(k, p) = p_d * stride_d - pad_begin_d + k_d * dil_d
// sample() is multilinear: the 2^s integer neighbours weighted by prod_d (1 - |pos_d - c_d|), each
// neighbour outside the input counting as 0 (GridSample with zeros padding and align_corners).
Status lower_deform_conv(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_ASSIGN_OR_RETURN(ValueId w, cx.input(n, 1));
  PLUMB_ASSIGN_OR_RETURN(ValueId offset, cx.input(n, 2));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const ir::DType dt = cx.type(x).dtype;
  if (!ir::is_float(dt)) return cx.invalid("DeformConv input must be floating");
  PLUMB_ASSIGN_OR_RETURN(Ints xd, static_dims(cx, x, "DeformConv"));
  PLUMB_ASSIGN_OR_RETURN(Ints wd, static_dims(cx, w, "DeformConv"));
  PLUMB_ASSIGN_OR_RETURN(Ints od, static_dims(cx, offset, "DeformConv"));
  if (xd.size() < 3 || xd.size() > 6) return cx.unsupported("DeformConv input rank outside [3, 6]");
  const size_t s = xd.size() - 2;
  if (wd.size() != xd.size() || od.size() != xd.size())
    return cx.invalid("DeformConv: W and offset must have X's rank");
  PLUMB_ASSIGN_OR_RETURN(Ints kernel, n.attr_ints("kernel_shape", Ints(wd.begin() + 2, wd.end())));
  PLUMB_ASSIGN_OR_RETURN(Ints dil, per_dim_attr(cx, n, "dilations", s, 1));
  PLUMB_ASSIGN_OR_RETURN(Ints strides, per_dim_attr(cx, n, "strides", s, 1));
  PLUMB_ASSIGN_OR_RETURN(Ints pads, per_dim_attr(cx, n, "pads", 2 * s, 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t group, n.attr_int("group", 1));
  PLUMB_ASSIGN_OR_RETURN(int64_t og, n.attr_int("offset_group", 1));
  const int64_t N = xd[0], C = xd[1], oC = wd[0];
  if (kernel != Ints(wd.begin() + 2, wd.end())) return cx.invalid("DeformConv kernel_shape must match W");
  if (group < 1 || og < 1 || C % group != 0 || oC % group != 0 || wd[1] != C / group || C % og != 0)
    return cx.invalid("DeformConv: channel counts do not fit group and offset_group");
  Ints out;
  for (size_t d = 0; d < s; ++d) {
    if (dil[d] < 1 || strides[d] < 1 || pads[d] < 0 || pads[d + s] < 0)
      return cx.invalid("DeformConv strides and dilations must be >= 1 and pads >= 0");
    const int64_t span = dil[d] * (kernel[d] - 1) + 1, in = xd[2 + d] + pads[d] + pads[d + s];
    out.push_back(in < span ? 0 : (in - span) / strides[d] + 1);
  }
  const int64_t K = product(kernel), P = product(out), HW = product(Ints(xd.begin() + 2, xd.end()));
  Ints want_off = {N, og * K * static_cast<int64_t>(s)};
  want_off.insert(want_off.end(), out.begin(), out.end());
  if (od != want_off)
    return cx.invalid("DeformConv offset must be [N, offset_group * prod(kernel) * s, out...]");
  if (K > kMaxTable || P > kMaxTable || K * P > kMaxTable) return cx.unsupported("DeformConv too large");
  constexpr ir::DType kF = ir::DType::F64;
  auto f64 = [&](ValueId v) { return cx.type(v).dtype == kF ? v : cx.b.cast(v, kF); };
  auto bc = [&](ValueId v, const Ints& shape, const Ints& dims) {
    return cx.b.broadcast(v, cx.b.shape_const(shape), dims);
  };
  const int64_t Cog = C / og;
  const Ints s4 = {N, og, K, P};
  const Ints s5 = {N, og, Cog, K * P};
  auto full = [&](double v) { return bc(cx.b.scalar_float(kF, v), s4, {}); };
  // Per spatial dim: the floor of the sampling position and the fraction above it, [N, og, K, P].
  ValueId off = reshape_to(cx, f64(offset), {N, og, K, static_cast<int64_t>(s), P});
  std::vector<ValueId> lo(s), frac(s);
  for (size_t d = 0; d < s; ++d) {
    std::vector<double> base;
    for (int64_t k = 0; k < K; ++k) {
      const Ints kc = unflatten(k, kernel);
      for (int64_t p = 0; p < P; ++p) {
        const Ints pc = unflatten(p, out);
        base.push_back(static_cast<double>(pc[d] * strides[d] - pads[d] + kc[d] * dil[d]));
      }
    }
    ValueId od_d = reshape_to(
        cx, slice(cx, off, {0, 0, 0, static_cast<int64_t>(d), 0}, {N, og, K, 1, P}, {1, 1, 1, 1, 1}), s4);
    ValueId pos = cx.b.binary(BK::Add, bc(cx.b.const_floats(kF, {K, P}, base), s4, {2, 3}), od_d);
    lo[d] = cx.b.unary(ir::UnaryKind::Floor, pos);
    frac[d] = cx.b.binary(BK::Sub, pos, lo[d]);
  }
  ValueId xg = reshape_to(cx, f64(x), {N, og, Cog, HW});
  ValueId acc = ir::kNoValue;
  for (int64_t bits = 0; bits < (int64_t{1} << s); ++bits) {
    ValueId inside = ir::kNoValue, flat = ir::kNoValue, wgt = ir::kNoValue;
    for (size_t d = 0; d < s; ++d) {
      const bool up = (bits >> (s - 1 - d)) & 1;  // the last dim varies fastest
      ValueId c = up ? cx.b.binary(BK::Add, lo[d], full(1.0)) : lo[d];
      ValueId wd_ = up ? frac[d] : cx.b.binary(BK::Sub, full(1.0), frac[d]);
      ValueId in_d = cx.b.binary(BK::And, cx.b.compare(CK::Ge, c, full(0.0)),
                                 cx.b.compare(CK::Lt, c, full(static_cast<double>(xd[2 + d]))));
      inside = inside == ir::kNoValue ? in_d : cx.b.binary(BK::And, inside, in_d);
      flat = flat == ir::kNoValue
                 ? c
                 : cx.b.binary(BK::Add, cx.b.binary(BK::Mul, flat, full(static_cast<double>(xd[2 + d]))), c);
      wgt = wgt == ir::kNoValue ? wd_ : cx.b.binary(BK::Mul, wgt, wd_);
    }
    ValueId idx = cx.b.cast(cx.b.select(inside, flat, full(0.0)), ir::DType::I64);
    idx = bc(reshape_to(cx, idx, {N, og, 1, K * P}), s5, {0, 1, 2, 3});
    ValueId v = cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Elements, 3, 0}, {xg, idx});
    ValueId wv = bc(reshape_to(cx, cx.b.select(inside, wgt, full(0.0)), {N, og, 1, K * P}), s5, {0, 1, 2, 3});
    ValueId term = cx.b.binary(BK::Mul, v, wv);
    acc = acc == ir::kNoValue ? term : cx.b.binary(BK::Add, acc, term);
  }
  if (cx.has_input(n, 4)) {
    PLUMB_ASSIGN_OR_RETURN(ValueId mask, cx.input(n, 4));
    PLUMB_ASSIGN_OR_RETURN(Ints md, static_dims(cx, mask, "DeformConv mask"));
    Ints want_mask = {N, og * K};
    want_mask.insert(want_mask.end(), out.begin(), out.end());
    if (md != want_mask)
      return cx.invalid("DeformConv mask must be [N, offset_group * prod(kernel), out...]");
    acc = cx.b.binary(BK::Mul, acc, bc(reshape_to(cx, f64(mask), {N, og, 1, K * P}), s5, {0, 1, 2, 3}));
  }
  // cols [N, C, K, P] = [N, group, Cg * K, P]; W [oC, Cg, k...] = [group, oCg, Cg * K].
  const int64_t Cg = C / group, oCg = oC / group;
  ValueId cols = reshape_to(cx, acc, {N, group, Cg * K, P});
  ValueId wm = bc(reshape_to(cx, f64(w), {group, oCg, Cg * K}), {N, group, oCg, Cg * K}, {1, 2, 3});
  Ints yd = {N, oC};
  yd.insert(yd.end(), out.begin(), out.end());
  ValueId res = reshape_to(cx, cx.b.matmul(wm, cols, kF), yd);
  PLUMB_ASSIGN_OR_RETURN(const ValueId bias, cx.optional_input(n, 3));
  if (bias != ir::kNoValue) res = cx.b.binary(BK::Add, res, bc(f64(bias), yd, {1}));
  cx.set_output(n, 0, dt == kF ? res : cx.b.cast(res, dt, /*saturate=*/true));
  return cx.error();
}

}  // namespace

void register_conv_extra(Registry& r) {
  r.add_since({{"Col2Im", 18, lower_col2im}, {"DeformConv", 19, lower_deform_conv}});
}

}  // namespace plumb::lower
