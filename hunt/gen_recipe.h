// What plumb gen's op recipes share (hunt/gen_recipes_*.cpp): picking a value of the pool,
// scaling it to a bound, reshaping, broadcasting, and writing axes as the opset has them.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hunt/gen_graph.h"

namespace plumb::hunt::gen::recipe {

constexpr double kMaxBound = 8;
constexpr int64_t kMaxElements = 4096;

using Dims = std::vector<int64_t>;
using Pred = std::function<bool(const Value&)>;

inline int rank(const Value& v) { return static_cast<int>(v.dims.size()); }

// An upper bound on ln(n) computed without libm (whose log may differ in the last bit between
// platforms, and the bytes of a run must not): ln(2) times the bits n needs.
double ln_bound(double n);
// A value of the pool that `pred` accepts: the latest one most of the time, else any.
std::optional<Value> pick(Builder& b, const Pred& pred);
// `v` scaled by a power of two (exact) so that its bound is at most `max_bound`.
Value ready(Builder& b, const Value& v, double max_bound = kMaxBound);
Value reshape(Builder& b, const Value& v, const Dims& dims);
// A value of rank lo..hi with at most kMaxElements/4 elements: from the pool, else the latest
// value reshaped (when Reshape is enabled), else a new graph input of `fresh` dims.
Value of_rank(Builder& b, int lo, int hi, const Dims& fresh);
Value any_value(Builder& b, int min_rank = 0);
std::optional<Dims> broadcast(const Dims& a, const Dims& c);
// Dims of a constant that broadcasts with `dims`: a suffix of them, some set to 1, and a 1 of
// `dims` sometimes widened (the result grows).
Dims broadcast_partner(Rng& rng, const Dims& dims);
// The other operand of a broadcasting op on `v`: a pool value that broadcasts with it, or a
// constant in [-1, 1) of broadcast_partner dims.
Value partner(Builder& b, const Value& v);
// The value written for axis `a` of a rank-r tensor: negative (a - r) some of the time.
int64_t axis_text(Rng& rng, int a, int r);
// The axes of `op`: an input or an attribute, as its schema has them at the opset.
void set_axes(Builder& b, const std::string& op, std::vector<std::string>& ins, ::onnx::NodeProto** node,
              const std::vector<int64_t>& axes, const std::string& out);

// The recipes (op_recipes() in gen_ops.cpp names which ops each serves): each adds one node of
// `op`, or returns false when it found no value it applies to.
// Elementwise, matrix products, convolution, normalization, pooling, activations
// (gen_recipes_compute.cpp):
bool unary(Builder& b, const std::string& op);
bool binary(Builder& b, const std::string& op);
bool matmul(Builder& b, const std::string& op);
bool gemm(Builder& b, const std::string& op);
bool conv(Builder& b, const std::string& op);
bool conv_transpose(Builder& b, const std::string& op);
bool batch_normalization(Builder& b, const std::string& op);
bool pool(Builder& b, const std::string& op);
bool global_pool(Builder& b, const std::string& op);
bool layer_normalization(Builder& b, const std::string& op);
bool layer_norm_decomposed(Builder& b, const std::string& op);
bool clip(Builder& b, const std::string& op);
bool gelu(Builder& b, const std::string& op);
bool pad(Builder& b, const std::string& op);
// Reductions, softmax, shape and data movement, Where and comparisons, Cast
// (gen_recipes_data.cpp):
bool reduce(Builder& b, const std::string& op);
bool softmax(Builder& b, const std::string& op);
bool reshape_op(Builder& b, const std::string& op);
bool transpose(Builder& b, const std::string& op);
bool flatten(Builder& b, const std::string& op);
bool squeeze(Builder& b, const std::string& op);
bool unsqueeze(Builder& b, const std::string& op);
bool shape_reshape(Builder& b, const std::string& op);
bool expand(Builder& b, const std::string& op);
bool concat(Builder& b, const std::string& op);
bool split(Builder& b, const std::string& op);
bool slice(Builder& b, const std::string& op);
bool gather(Builder& b, const std::string& op);
bool where(Builder& b, const std::string& op);
bool cast(Builder& b, const std::string& op);

}  // namespace plumb::hunt::gen::recipe
