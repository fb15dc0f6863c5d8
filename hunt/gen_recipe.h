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

// An exact value (see Value) of rank lo..hi from the pool, else a new graph input (the latest
// value's dims when their rank fits, else `fresh`): for ops whose result jumps (Floor, Sign, Mod,
// comparisons, ArgMax, TopK's indices), where an input rounded differently could flip it.
Value exact_value(Builder& b, int lo, int hi, const Dims& fresh);
// `name` (a tensor of another element type, e.g. ArgMax's int64 or a comparison's bool) cast to
// float32 and pushed to the pool.
Value to_float(Builder& b, const std::string& name, const Dims& dims, double bound, bool exact);
// `name` (of data-dependent dims in ONNX's shape inference and plumb's: a Compress, a Loop's scan
// output, a sequence's element) reshaped to the `dims` the recipe knows it has and pushed, as
// x[mask].view(...) exports it, so that the ops after it (those needing static dims in plumb:
// ConvTranspose, SpaceToDepth, Det) see static dims.
Value settle(Builder& b, const std::string& name, const Dims& dims, double bound, bool exact);
// Abs(x) + c (c > 0): a value at least c, for the ops defined or well-conditioned only there (Log,
// Sqrt, Reciprocal, Div's divisor, Pow's base).
Value positive(Builder& b, const Value& x, float c);
// A bool tensor of `c`'s dims: a comparison (one enabled, else any) of the exact value `c` with a
// threshold. The name of the result.
std::string condition(Builder& b, const Value& c);

// Shared with gen_recipes_compute.cpp's window ops: an image batch's dims [1..2, 1..4, 3..7
// (, 3..7)]; one spatial axis of a window op (kernel, stride, dilation, pads; the output size, at
// least 1); the padding attributes; x plus a ramp over the dims from axis a on whose step keeps
// the elements a normalization reads at least 1 apart.
Dims image_dims(Rng& rng);
struct Window {
  int64_t k = 1, s = 1, d = 1, pb = 0, pe = 0, out = 1;
};
Window window(Rng& rng, int64_t size, bool dilate);
void set_padding(Builder& b, ::onnx::NodeProto* node, bool same, const std::vector<int64_t>& pads_begin,
                 const std::vector<int64_t>& pads_end);
Value spread(Builder& b, const Value& x, int a);

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
// Unary math, activations with attributes, Div/Pow/Mod/Sum/Mean, logical ops, quantization
// (gen_recipes_math.cpp):
bool unary_math(Builder& b, const std::string& op);
bool activation(Builder& b, const std::string& op);
bool arith(Builder& b, const std::string& op);
bool logical(Builder& b, const std::string& op);
bool quantize(Builder& b, const std::string& op);
// Indices and data movement: ArgMax/ArgMin, TopK, CumSum, Tile, ConstantOfShape, Range,
// GatherElements/ND, ScatterElements/ND, OneHot, Trilu, Compress, ReverseSequence, EyeLike, Size
// (gen_recipes_index.cpp):
bool arg_reduce(Builder& b, const std::string& op);
bool top_k(Builder& b, const std::string& op);
bool cum_sum(Builder& b, const std::string& op);
bool index_op(Builder& b, const std::string& op);
bool scatter(Builder& b, const std::string& op);
bool generate_op(Builder& b, const std::string& op);
// Layout and the other normalizations: DepthToSpace/SpaceToDepth, Einsum, InstanceNormalization,
// LRN, LpNormalization, MeanVarianceNormalization, LpPool/GlobalLpPool, Resize, Det, windows
// (gen_recipes_layout.cpp):
bool depth_space(Builder& b, const std::string& op);
bool einsum(Builder& b, const std::string& op);
bool norm_extra(Builder& b, const std::string& op);
bool lp_pool(Builder& b, const std::string& op);
bool resize(Builder& b, const std::string& op);
bool det(Builder& b, const std::string& op);
bool window_fn(Builder& b, const std::string& op);
// RNN, LSTM, GRU; If, Loop, Scan (gen_recipes_seq.cpp):
bool rnn(Builder& b, const std::string& op);
bool control(Builder& b, const std::string& op);
// BitShift, MatMulInteger, QLinearMatMul; losses; sequences; Optional, CastLike, Constant
// (gen_recipes_misc.cpp):
bool integer_op(Builder& b, const std::string& op);
bool loss(Builder& b, const std::string& op);
bool sequence(Builder& b, const std::string& op);
bool wrap_op(Builder& b, const std::string& op);
// DFT, STFT; GridSample; ConvInteger, QLinearConv; NonZero, Unique, MaxUnpool
// (gen_recipes_signal.cpp):
bool signal(Builder& b, const std::string& op);
bool grid_sample(Builder& b, const std::string& op);
bool conv_integer(Builder& b, const std::string& op);
bool data_sized(Builder& b, const std::string& op);
bool dynamic_quantize(Builder& b, const std::string& op);
bool random_op(Builder& b, const std::string& op);
// NonMaxSuppression of constant boxes and scores, MaxRoiPool, RoiAlign, TfIdfVectorizer of int64 tokens,
// MelWeightMatrix, StringNormalizer (gen_recipes_detect.cpp):
bool nms(Builder& b, const std::string& op);
bool max_roi_pool(Builder& b, const std::string& op);
bool roi_align(Builder& b, const std::string& op);
bool tfidf(Builder& b, const std::string& op);
bool mel_weight_matrix(Builder& b, const std::string& op);
bool string_normalizer(Builder& b, const std::string& op);
// The ops of gen's other-opset models (gen_recipes_other.cpp; gen_ops.cpp's other_opset_recipes()
// gives each its opsets): Mish Gelu Swish SwiGLU; BitwiseAnd/Or/Xor/Not; BitCast;
// GroupNormalization, RMSNormalization; CenterCropPad, Col2Im, AffineGrid; Attention,
// RotaryEmbedding, LinearAttention, TensorScatter; CumProd; DeformConv, CausalConvWithState;
// ImageDecoder; RegexFullMatch, StringConcat, StringSplit; Upsample.
bool smooth_other(Builder& b, const std::string& op);
bool bitwise(Builder& b, const std::string& op);
bool bit_cast(Builder& b, const std::string& op);
bool group_normalization(Builder& b, const std::string& op);
bool rms_normalization(Builder& b, const std::string& op);
bool center_crop_pad(Builder& b, const std::string& op);
bool col2im(Builder& b, const std::string& op);
bool affine_grid(Builder& b, const std::string& op);
bool attention(Builder& b, const std::string& op);
bool rotary_embedding(Builder& b, const std::string& op);
bool tensor_scatter(Builder& b, const std::string& op);
bool cum_prod(Builder& b, const std::string& op);
bool deform_conv(Builder& b, const std::string& op);
bool image_decoder(Builder& b, const std::string& op);
bool string_other(Builder& b, const std::string& op);
bool causal_conv(Builder& b, const std::string& op);
bool linear_attention(Builder& b, const std::string& op);
bool upsample(Builder& b, const std::string& op);

}  // namespace plumb::hunt::gen::recipe
