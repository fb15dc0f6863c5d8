// Pieces shared by the attention rules (attention.cpp: Attention; flex_attention.cpp:
// FlexAttention): dims as i64[1] values that may be symbolic, the repetition of K/V heads for
// grouped-query attention, and the softmax whose rows with no finite score give zeros. Scores
// and probabilities are f64 here: both rules compute everything after their inputs in f64 and
// round once at the end (see the top of each rule file).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "frontends/onnx/model.h"
#include "ir/builder.h"
#include "ir/status.h"
#include "lowering/onnx/context.h"

namespace plumb::lower::attn {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// A dim as an i64[1] value, with its static size (-1 when symbolic).
struct DimV {
  int64_t n;
  ir::ValueId v;
};

struct Dims {
  LowerCtx& cx;
  DimV of(ir::ValueId x, int64_t axis);
  DimV c(int64_t n) { return {n, cx.b.shape_const({n})}; }
  DimV add(DimV a, DimV b);
  DimV sub(DimV a, DimV b);
  // The i64[k] shape made of `ds` (a constant when every dim is static).
  ir::ValueId shape(const std::vector<DimV>& ds);
  // The dim as an i64 scalar.
  ir::ValueId scalar(DimV d);
};

// Dim `axis` of `v`, which must be static (head counts and head sizes): an Unsupported error
// naming `op` and `what` otherwise.
Expected<int64_t> static_dim(LowerCtx& cx, ir::ValueId v, int64_t axis, const std::string& op,
                             const char* what);

// A float attribute widened to double, or `dflt` when absent.
Expected<double> float_attr(const onnx::OnnxNode& n, const char* name, double dflt);

// A f64 constant `v` broadcast to the i64[r] shape `shape`.
ir::ValueId fill(LowerCtx& cx, double v, ir::ValueId shape);

// Both sizes known and different.
inline bool known_ne(int64_t a, int64_t b) { return a >= 0 && b >= 0 && a != b; }

// [B, Hkv, T, d] -> [B, Hkv * rep, T, d]: each head repeated `rep` times in place ([h0, h0, h1,
// h1, ...], numpy.repeat on axis 1), so query head h reads K/V head h / rep.
ir::ValueId repeat_heads(LowerCtx& cx, Dims& dm, ir::ValueId x, DimV B, int64_t hkv, int64_t rep, DimV T,
                         int64_t d);

// Softmax over the last axis of the rank-4 f64 scores `s` of i64[4] shape `shape`, max-subtracted.
// A row whose maximum is -inf (every score -inf, or no key at all) gives all zeros; a NaN or +inf
// score makes its row NaN, as in the ONNX reference's max-subtracted softmax.
ir::ValueId softmax_rows(LowerCtx& cx, ir::ValueId s, ir::ValueId shape);

}  // namespace plumb::lower::attn
