// Data movement on the GPU (spec/ops/{transpose,broadcast,reshape,concat}.md): one strided copy,
// each op a pair of views (index_math.h). Elements are moved as bytes of their width: any dtype.
#include "runtime/cuda/device_types.cuh"
#include "runtime/cuda/kernels.h"

namespace plumb::rt::cuda {
namespace {

template <typename T>
__global__ void strided_copy(const T* src, View sv, T* dst, int64_t dst_offset, View dv, int64_t n) {
  PLUMB_CUDA_FOR(i, n) dst[dst_offset + offset_of(dv, i)] = src[offset_of(sv, i)];
}

template <typename T>
cudaError_t copy_as(const void* src, const View& sv, void* dst, int64_t dst_offset, const View& dv,
                    cudaStream_t s) {
  const int64_t n = numel(sv);
  return launch_1d(strided_copy<T>, n, s, static_cast<const T*>(src), sv, static_cast<T*>(dst), dst_offset,
                   dv, n);
}

// pad (spec/ops/pad.md): result element i reads the operand at j (per dim: inside, or reflected,
// edged or wrapped into it) or, in constant mode outside, the scalar *value.
template <typename T>
__global__ void pad_kernel(const T* src, View in, T* dst, View out, PadSpec p, const T* value, int64_t n) {
  PLUMB_CUDA_FOR(i, n) {
    int64_t rest = i, off = 0;
    bool inside = true;
    for (int d = out.rank - 1; d >= 0; --d) {
      const int64_t q = rest / out.size[d], idx = rest - q * out.size[d];
      rest = q;
      const int64_t len = in.size[d];
      int64_t j = idx - p.low[d];
      if (j < 0 || j >= len) {
        switch (p.mode) {
          case ir::PadMode::Constant: inside = false; break;
          case ir::PadMode::Reflect: j = j < 0 ? -j : 2 * (len - 1) - j; break;
          case ir::PadMode::Edge: j = j < 0 ? 0 : len - 1; break;
          default: j = ((j % len) + len) % len; break;
        }
      }
      off += j * in.stride[d];
    }
    dst[i] = inside ? src[off] : *value;
  }
}

template <typename T>
cudaError_t pad_as(const void* src, const View& in, void* dst, const View& out, const PadSpec& p,
                   const void* value, cudaStream_t s) {
  const int64_t n = numel(out);
  return launch_1d(pad_kernel<T>, n, s, static_cast<const T*>(src), in, static_cast<T*>(dst), out, p,
                   static_cast<const T*>(value), n);
}

}  // namespace

cudaError_t launch_pad(int elem_bytes, const void* src, const View& in, void* dst, const View& out,
                       const PadSpec& p, const void* value, cudaStream_t s) {
  switch (elem_bytes) {
    case 1: return pad_as<uint8_t>(src, in, dst, out, p, value, s);
    case 2: return pad_as<uint16_t>(src, in, dst, out, p, value, s);
    case 4: return pad_as<uint32_t>(src, in, dst, out, p, value, s);
    case 8: return pad_as<uint64_t>(src, in, dst, out, p, value, s);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t launch_strided_copy(int elem_bytes, const void* src, const View& src_view, void* dst,
                                int64_t dst_offset, const View& dst_view, cudaStream_t s) {
  if (src_view.rank != dst_view.rank) return cudaErrorInvalidValue;
  for (int k = 0; k < src_view.rank; ++k)
    if (src_view.size[k] != dst_view.size[k]) return cudaErrorInvalidValue;
  switch (elem_bytes) {
    case 1: return copy_as<uint8_t>(src, src_view, dst, dst_offset, dst_view, s);
    case 2: return copy_as<uint16_t>(src, src_view, dst, dst_offset, dst_view, s);
    case 4: return copy_as<uint32_t>(src, src_view, dst, dst_offset, dst_view, s);
    case 8: return copy_as<uint64_t>(src, src_view, dst, dst_offset, dst_view, s);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace plumb::rt::cuda
