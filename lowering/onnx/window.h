// Shared by the ONNX convolution (conv.cpp) and pooling (pool.cpp) rules: the window of a
// Conv/Pool node (kernel, strides, dilations, explicit pads) read from its attributes, with
// auto_pad turned into explicit pads.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "frontends/onnx/model.h"
#include "ir/builder.h"
#include "lowering/onnx/context.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

// Bounds on strides/dilations/kernel sizes and on pads and dims, so that the pad arithmetic
// (products of one of each) cannot overflow; the core ops refuse extents above 2^62 anyway.
constexpr int64_t kMaxWindow = int64_t{1} << 20;
constexpr int64_t kMaxExtent = int64_t{1} << 40;

struct Window {
  std::vector<int64_t> kernel, strides, dilations, lo, hi;
};

// The static spatial dims of x ([N, C, D...]), or nullopt when one is symbolic.
std::optional<std::vector<int64_t>> static_spatial(LowerCtx& cx, ir::ValueId x);
// Per-spatial-dim attribute of n entries (default `dflt` each).
Expected<std::vector<int64_t>> spatial_attr(const onnx::OnnxNode& n, const char* name, size_t count,
                                            int64_t dflt);
// Reads strides/dilations/pads and applies auto_pad (ONNX Conv and pooling). `in` are the spatial
// dims (-1 for symbolic; only NOTSET and VALID accept those).
Status resolve_pads(LowerCtx& cx, const onnx::OnnxNode& n, const std::vector<int64_t>& in, Window& w);

// The pooling rules (pool.cpp), registered by register_conv_pool (conv.cpp).
void register_pool(Registry& r);

}  // namespace plumb::lower
