#include "runtime/cuda/step.h"

#include <string>

#include "ir/attrs.h"

namespace plumb::rt::cuda {
namespace {

// The window of one op from its attributes and resolved shapes.
Window make_window(const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                   const std::vector<int64_t>& win, const std::vector<int64_t>& strides,
                   const std::vector<int64_t>& dil, const std::vector<int64_t>* lhs_dil,
                   const std::vector<int64_t>& pads_low) {
  Window w;
  w.rank = static_cast<int>(in.size());
  for (size_t d = 0; d < in.size(); ++d) {
    w.in[d] = in[d];
    w.out[d] = out[d];
    w.win[d] = win[d];
    w.stride[d] = strides[d];
    w.dil[d] = dil[d];
    w.lhs_dil[d] = lhs_dil ? (*lhs_dil)[d] : 1;
    w.pad_lo[d] = pads_low[d];
  }
  return w;
}

// The plan's known i64[n] value %v (a constant or a folded value), or null.
const Tensor* known_i64(const Plan& plan, ir::ValueId v, size_t n) {
  if (v >= plan.known.size() || !plan.known[v].is_tensor()) return nullptr;
  const Tensor& t = plan.known[v].tensor();
  if (t.dtype != ir::DType::I64 || t.rank() != 1 || t.shape[0] != static_cast<int64_t>(n) ||
      (n > 0 && !t.data))
    return nullptr;
  return &t;
}

}  // namespace

std::vector<int64_t> dims_of(const ir::Type& t) {
  std::vector<int64_t> d;
  for (const ir::Dim& x : t.shape) d.push_back(x.size);
  return d;
}

bool static_tensor(const ir::Type& t) {
  if (!t.is_tensor() || !t.ranked) return false;
  for (const ir::Dim& d : t.shape)
    if (!d.is_static()) return false;
  return true;
}

int64_t elements(const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t x : d) n *= x;
  return n;
}

View row_major_view(const std::vector<int64_t>& d) {
  View v;
  v.rank = static_cast<int>(d.size());
  for (size_t k = 0; k < d.size(); ++k) v.size[k] = d[k];
  set_row_major(v);
  return v;
}

Support plan_step(const ir::Node& n, Step& st, const Plan& plan) {
  switch (n.op) {
    case ir::Op::Reduce: {
      const auto& axes = ir::attrs<ir::Op::Reduce>(n).axes;
      st.reduce = plan_reduce(static_cast<int>(st.in_dims[0].size()), st.in_dims[0].data(),
                              static_cast<int>(axes.size()), axes.data());
      return Support::ok();
    }
    case ir::Op::Transpose: {
      const auto& perm = ir::attrs<ir::Op::Transpose>(n).perm;
      st.src_view = transpose_view(static_cast<int>(st.in_dims[0].size()), st.in_dims[0].data(), perm.data());
      return Support::ok();
    }
    case ir::Op::Broadcast: {
      const auto& dims = ir::attrs<ir::Op::Broadcast>(n).dims;
      for (size_t k = 0; k < dims.size(); ++k)
        if (st.in_dims[0][k] != 1 && st.in_dims[0][k] != st.out_dims[static_cast<size_t>(dims[k])])
          return Support::no(
              "broadcast of a dim that is neither 1 nor the result's (broadcast.R2, ref reports it)");
      st.src_view = broadcast_view(static_cast<int>(st.in_dims[0].size()), st.in_dims[0].data(), dims.data(),
                                   static_cast<int>(st.out_dims.size()), st.out_dims.data());
      return Support::ok();
    }
    case ir::Op::Slice: {
      // start, size, stride: constants (claims.cpp), so the view and slice.R1-R3 are settled
      // here; a slice that breaks them is declined and ref reports it.
      std::vector<const int64_t*> p;
      for (size_t k = 1; k < 4; ++k) {
        const Tensor* t = known_i64(plan, n.inputs[k], st.in_dims[0].size());
        if (!t) return Support::no("slice bounds known only at run time");
        p.push_back(t->as<int64_t>());
      }
      const View in = row_major_view(st.in_dims[0]);
      View v;
      v.rank = in.rank;
      st.src_offset = 0;
      bool empty = false;
      for (int d = 0; d < in.rank; ++d) empty = empty || p[1][d] == 0;
      for (int d = 0; d < in.rank; ++d) {
        const int64_t start = p[0][d], size = p[1][d], stride = p[2][d], len = in.size[d];
        if (stride == 0 || size < 0)
          return Support::no("slice stride 0 or negative size (slice.R1/R2, ref reports it)");
        if (size != st.out_dims[static_cast<size_t>(d)])
          return Support::no("slice size differs from the planned result");
        if (!empty) {
          const __int128 last = static_cast<__int128>(start) + static_cast<__int128>(size - 1) * stride;
          if (start < 0 || start >= len || last < 0 || last >= len)
            return Support::no("slice out of range (slice.R3, ref reports it)");
        }
        v.size[d] = size;
        v.stride[d] = stride * in.stride[d];
        st.src_offset += empty ? 0 : start * in.stride[d];
      }
      st.src_view = v;
      return Support::ok();
    }
    case ir::Op::Gather: {
      const auto axis = static_cast<size_t>(ir::attrs<ir::Op::Gather>(n).axis);
      const auto& x = st.in_dims[0];
      st.outer = 1;
      st.inner = 1;
      for (size_t d = 0; d < axis; ++d) st.outer *= x[d];
      for (size_t d = axis + 1; d < x.size(); ++d) st.inner *= x[d];
      st.extent = x[axis];
      return Support::ok();
    }
    case ir::Op::Pad: {
      const size_t r = st.in_dims[0].size();
      const Tensor* lo = known_i64(plan, n.inputs[1], r);
      const Tensor* hi = known_i64(plan, n.inputs[2], r);
      if (!lo || !hi) return Support::no("pad amounts known only at run time");
      st.pad.mode = ir::attrs<ir::Op::Pad>(n).mode;
      for (size_t d = 0; d < r; ++d) {
        const int64_t l = lo->as<int64_t>()[d], h = hi->as<int64_t>()[d], len = st.in_dims[0][d];
        const bool padded = l > 0 || h > 0;
        if (l < 0 || h < 0 || len + l + h != st.out_dims[d])
          return Support::no("pad amounts negative or not the planned result (pad.R1, ref reports it)");
        if (st.pad.mode == ir::PadMode::Reflect && padded && (l >= len || h >= len))
          return Support::no("reflect pad as large as the dim (pad.R2, ref reports it)");
        if ((st.pad.mode == ir::PadMode::Edge || st.pad.mode == ir::PadMode::Wrap) && padded && len == 0)
          return Support::no("edge/wrap pad of an empty dim (pad.R3, ref reports it)");
        st.pad.low[d] = l;
      }
      return Support::ok();
    }
    case ir::Op::Reshape:
      if (elements(st.in_dims[0]) != elements(st.out_dims))
        return Support::no("reshape changes the element count");
      return Support::ok();
    case ir::Op::Concat: {
      const size_t axis = static_cast<size_t>(ir::attrs<ir::Op::Concat>(n).axis);
      int64_t along = 0;
      for (const auto& d : st.in_dims) {
        for (size_t k = 0; k < d.size(); ++k)
          if (k != axis && d[k] != st.out_dims[k])
            return Support::no("concat operands differ off the axis (concat.R1, ref reports it)");
        along += d[axis];
      }
      if (along != st.out_dims[axis]) return Support::no("concat operands do not fill the result");
      return Support::ok();
    }
    case ir::Op::MatMul: {
      const auto& a = st.in_dims[0];
      const auto& b = st.in_dims[1];
      const size_t r = a.size();
      if (b.size() != r || r < 2) return Support::no("matmul operands of different ranks");
      st.batch = 1;
      for (size_t k = 0; k + 2 < r; ++k) {
        if (a[k] != b[k]) return Support::no("matmul batch dims differ at run time");
        st.batch *= a[k];
      }
      st.M = a[r - 2];
      st.K = a[r - 1];
      st.N = b[r - 1];
      if (b[r - 2] != st.K) return Support::no("matmul contraction dims differ at run time");
      return Support::ok();
    }
    case ir::Op::Conv: {
      const auto& a = ir::attrs<ir::Op::Conv>(n);
      const auto& x = st.in_dims[0];
      const auto& w = st.in_dims[1];
      const std::vector<int64_t> D(x.begin() + 2, x.end()), K(w.begin() + 2, w.end()),
          E(st.out_dims.begin() + 2, st.out_dims.end());
      st.conv.batch = x[0];
      st.conv.channels = x[1];
      st.conv.outputs = w[0];
      st.conv.groups = a.groups;
      if (a.groups < 1 || x[1] % a.groups != 0 || w[0] % a.groups != 0 || w[1] * a.groups != x[1])
        return Support::no("conv groups do not divide the channels at run time");
      st.conv.spatial = make_window(D, E, K, a.strides, a.dilations, &a.lhs_dilations, a.pads_low);
      return Support::ok();
    }
    case ir::Op::Pool: {
      const auto& a = ir::attrs<ir::Op::Pool>(n);
      st.window =
          make_window(st.in_dims[0], st.out_dims, a.window, a.strides, a.dilations, nullptr, a.pads_low);
      return Support::ok();
    }
    default: {
      // Elementwise: every operand has the result's shape (no implicit broadcasting).
      for (const auto& d : st.in_dims)
        if (d != st.out_dims) return Support::no("elementwise operand shape differs from the result's");
      return Support::ok();
    }
  }
}

}  // namespace plumb::rt::cuda
