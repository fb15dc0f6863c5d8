#include "lowering/onnx/window.h"

#include <string>

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;
using Ints = std::vector<int64_t>;

// The static spatial dims of x ([N, C, D...]), or nullopt when one is symbolic.
std::optional<Ints> static_spatial(LowerCtx& cx, ValueId x) {
  const ir::Type t = cx.type(x);
  Ints d;
  for (int64_t i = 2; i < t.rank(); ++i) {
    if (!t.shape[i].is_static()) return std::nullopt;
    d.push_back(t.shape[i].size);
  }
  return d;
}

// Per-spatial-dim attribute of n entries (default `dflt` each).
Expected<Ints> spatial_attr(const OnnxNode& n, const char* name, size_t count, int64_t dflt) {
  PLUMB_ASSIGN_OR_RETURN(Ints v, n.attr_ints(name, {}));
  if (v.empty()) return Ints(count, dflt);
  if (v.size() != count) return invalid_model("", std::string(name) + " must have one entry per spatial dim");
  return v;
}

// Reads strides/dilations/pads and applies auto_pad (ONNX Conv and pooling). `in` are the spatial
// dims (-1 for symbolic; only NOTSET and VALID accept those).
Status resolve_pads(LowerCtx& cx, const OnnxNode& n, const Ints& in, Window& w) {
  const size_t s = w.kernel.size();
  PLUMB_ASSIGN_OR_RETURN(w.strides, spatial_attr(n, "strides", s, 1));
  PLUMB_ASSIGN_OR_RETURN(w.dilations, spatial_attr(n, "dilations", s, 1));
  PLUMB_ASSIGN_OR_RETURN(std::string auto_pad, n.attr_string("auto_pad", "NOTSET"));
  PLUMB_ASSIGN_OR_RETURN(Ints pads, n.attr_ints("pads", {}));
  w.lo.assign(s, 0);
  w.hi.assign(s, 0);
  for (size_t i = 0; i < s; ++i) {
    if (w.strides[i] < 1 || w.dilations[i] < 1 || w.kernel[i] < 1)
      return cx.invalid("strides, dilations and kernel_shape must be >= 1");
    if (w.strides[i] > kMaxWindow || w.dilations[i] > kMaxWindow || w.kernel[i] > kMaxWindow ||
        in[i] > kMaxExtent)
      return cx.invalid("strides, dilations or kernel_shape too large");
  }
  for (int64_t p : pads)
    if (p > kMaxExtent || p < -kMaxExtent) return cx.invalid("pads too large");
  if (auto_pad == "NOTSET" || auto_pad.empty()) {
    if (!pads.empty()) {
      if (pads.size() != 2 * s) return cx.invalid("pads must have two entries per spatial dim");
      for (size_t i = 0; i < s; ++i) {
        w.lo[i] = pads[i];
        w.hi[i] = pads[s + i];
        if (w.lo[i] < 0 || w.hi[i] < 0) return cx.unsupported("negative pads");
      }
    }
    return Status::ok();
  }
  if (auto_pad == "VALID") return Status::ok();
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") return cx.invalid("unknown auto_pad " + auto_pad);
  for (size_t i = 0; i < s; ++i) {
    if (in[i] < 0) return cx.unsupported("auto_pad " + auto_pad + " with a symbolic spatial dim");
    const int64_t out = (in[i] + w.strides[i] - 1) / w.strides[i];
    const int64_t dk = (w.kernel[i] - 1) * w.dilations[i] + 1;
    const int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[i] + dk - in[i]);
    w.lo[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    w.hi[i] = total - w.lo[i];
  }
  return Status::ok();
}

}  // namespace plumb::lower
