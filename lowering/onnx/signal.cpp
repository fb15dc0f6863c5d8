// ONNX signal ops: DFT (17, 20), STFT (17), HannWindow HammingWindow BlackmanWindow (17),
// MelWeightMatrix (17).
//
// DFT and STFT are one `matmul` with a twiddle-factor matrix W built here in f64: the angle
// 2*pi*k*n/N is taken with k*n reduced mod N in integer arithmetic before the trig call (so large
// k*n lose nothing), and W is rounded once to the compute dtype (f32 for f16/bf16/f32, f64 for
// f64). Real and imaginary parts are interleaved in the last dim ([..., L, c] flattens to L*c), so
// one real matrix [L*c, K*co] does the complex product. Zero-padding and truncation to dft_length
// are rows of W that are absent or zero. The windows and MelWeightMatrix depend only on scalar
// inputs: they are computed here in f64 and emitted as constants rounded once to the output dtype.
#include <cmath>
#include <string>

#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;

namespace {

using Ints = std::vector<int64_t>;
constexpr double kPi = 3.141592653589793238462643383279502884;
// Bound on the twiddle matrix and on the constants made here (elements), so a hostile dft_length
// or window size cannot ask for an unbounded allocation at lowering time.
constexpr int64_t kMaxTable = int64_t{1} << 24;

// 2*pi*num/den with num reduced mod den first (den > 0).
double turn_angle(int64_t num, int64_t den) {
  int64_t r = num % den;
  if (r < 0) r += den;
  return 2.0 * kPi * static_cast<double>(r) / static_cast<double>(den);
}

// Scalar (or 1-element) integer input i, required to be known at lowering time.
Expected<int64_t> scalar_int_input(LowerCtx& cx, const OnnxNode& n, size_t i, const char* what) {
  std::optional<Ints> v = cx.const_ints(n, i);
  if (!v) return cx.needs_build_time(n, i, what);
  if (v->size() != 1) return cx.invalid(std::string(what) + " must be a scalar");
  return (*v)[0];
}

Expected<double> scalar_float_input(LowerCtx& cx, const OnnxNode& n, size_t i, const char* what) {
  std::optional<std::vector<double>> v = cx.const_floats(n, i);
  if (!v) {
    std::optional<Ints> iv = cx.const_ints(n, i);
    if (!iv) return cx.needs_build_time(n, i, what);
    v = std::vector<double>(iv->begin(), iv->end());
  }
  if (v->size() != 1) return cx.invalid(std::string(what) + " must be a scalar");
  return (*v)[0];
}

Expected<Ints> static_dims(LowerCtx& cx, ValueId v, const char* op) {
  const ir::Type t = cx.type(v);
  if (!t.ranked || !ir::shape_is_static(t.shape))
    return cx.unsupported(std::string(op) + " with symbolic dims");
  Ints d;
  for (const ir::Dim& x : t.shape) d.push_back(x.size);
  return d;
}

// f64 values as a constant of `dt`, rounded once: floats through an f64 constant and one cast;
// integers truncated toward zero (numpy astype, as the ONNX reference does).
Expected<ValueId> values_as(LowerCtx& cx, ir::DType dt, const Ints& dims, const std::vector<double>& vals) {
  if (ir::is_float(dt)) {
    ValueId c = cx.b.const_floats(ir::DType::F64, dims, vals);
    return dt == ir::DType::F64 ? c : cx.b.cast(c, dt);
  }
  if (ir::is_int(dt)) {
    Ints iv;
    for (double v : vals) iv.push_back(static_cast<int64_t>(std::trunc(v)));
    return cx.b.const_ints(dt, dims, iv);
  }
  return cx.unsupported("output dtype " + std::string(ir::dtype_name(dt)));
}

Expected<ir::DType> output_datatype(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(int64_t code, n.attr_int("output_datatype", 1));
  std::optional<ir::DType> dt = ir::dtype_from_onnx_code(static_cast<int>(code));
  if (!dt) return cx.invalid("output_datatype " + std::to_string(code) + " is not a tensor dtype");
  return *dt;
}

// ---- windows ------------------------------------------------------------------------------------
// w[n] = a0 - a1 cos(2 pi n / N1) + a2 cos(4 pi n / N1), N1 = size (periodic) or size - 1.
template <int kWindow>
Status lower_window(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(int64_t size, scalar_int_input(cx, n, 0, "window size"));
  PLUMB_ASSIGN_OR_RETURN(int64_t periodic, n.attr_int("periodic", 1));
  PLUMB_ASSIGN_OR_RETURN(ir::DType dt, output_datatype(cx, n));
  if (size < 0 || size > kMaxTable) return cx.invalid("window size out of range: " + std::to_string(size));
  double a0 = 0.5, a1 = 0.5, a2 = 0.0;                   // Hann
  if (kWindow == 1) a0 = 25.0 / 46.0, a1 = 21.0 / 46.0;  // Hamming: alpha = 25/46, beta = 1 - alpha
  if (kWindow == 2) a0 = 0.42, a1 = 0.5, a2 = 0.08;      // Blackman
  const int64_t n1 = periodic ? size : size - 1;
  std::vector<double> w(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) {
    // A symmetric window of length 1 has N1 = 0: the ONNX reference divides by zero there (NaN);
    // plumb takes the limit convention of numpy/scipy, a single 1.
    if (n1 == 0) {
      w[i] = 1.0;
      continue;
    }
    w[i] = a0 - a1 * std::cos(turn_angle(i, n1)) + a2 * std::cos(turn_angle(2 * i, n1));
  }
  PLUMB_ASSIGN_OR_RETURN(ValueId y, values_as(cx, dt, {size}, w));
  cx.set_output(n, 0, y);
  return cx.error();
}

// ---- MelWeightMatrix ----------------------------------------------------------------------------
// Triangular filters between mel-spaced bin edges (the ONNX reference's formula): edges
// f_i = floor((dft_length + 1) * hz(mel_lo + i * step) / sample_rate), i in [0, bins + 2),
// step = (mel_hi - mel_lo) / (bins + 2), mel(h) = 2595 log10(1 + h / 700).
Status lower_mel(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(int64_t bins, scalar_int_input(cx, n, 0, "num_mel_bins"));
  PLUMB_ASSIGN_OR_RETURN(int64_t dft_length, scalar_int_input(cx, n, 1, "dft_length"));
  PLUMB_ASSIGN_OR_RETURN(int64_t rate, scalar_int_input(cx, n, 2, "sample_rate"));
  PLUMB_ASSIGN_OR_RETURN(double lo, scalar_float_input(cx, n, 3, "lower_edge_hertz"));
  PLUMB_ASSIGN_OR_RETURN(double hi, scalar_float_input(cx, n, 4, "upper_edge_hertz"));
  PLUMB_ASSIGN_OR_RETURN(ir::DType dt, output_datatype(cx, n));
  if (bins < 0 || dft_length < 1 || rate < 1 || dft_length > kMaxTable)
    return cx.invalid("MelWeightMatrix needs num_mel_bins >= 0, dft_length >= 1 and sample_rate >= 1");
  const int64_t spec_bins = dft_length / 2 + 1;
  if (bins > kMaxTable / spec_bins) return cx.invalid("MelWeightMatrix too large");
  const double mel_lo = 2595.0 * std::log10(1.0 + lo / 700.0);
  const double mel_hi = 2595.0 * std::log10(1.0 + hi / 700.0);
  const double step = (mel_hi - mel_lo) / static_cast<double>(bins + 2);
  Ints edge;
  for (int64_t i = 0; i < bins + 2; ++i) {
    const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + mel_lo) / 2595.0) - 1.0);
    const double f = std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(rate));
    if (!(f >= 0.0 && f < static_cast<double>(spec_bins)))
      return cx.invalid("MelWeightMatrix band edge outside [0, dft_length / 2]: check the edge frequencies");
    edge.push_back(static_cast<int64_t>(f));
  }
  std::vector<double> w(static_cast<size_t>(spec_bins * bins), 0.0);
  auto at = [&](int64_t j, int64_t i) -> double& { return w[static_cast<size_t>(j * bins + i)]; };
  for (int64_t i = 0; i < bins; ++i) {
    const int64_t l = edge[i], c = edge[i + 1], h = edge[i + 2];
    if (c == l) {
      at(c, i) = 1.0;
    } else {
      for (int64_t j = l; j <= c; ++j) at(j, i) = static_cast<double>(j - l) / static_cast<double>(c - l);
    }
    for (int64_t j = c; j < h; ++j) at(j, i) = static_cast<double>(h - j) / static_cast<double>(h - c);
  }
  PLUMB_ASSIGN_OR_RETURN(ValueId y, values_as(cx, dt, {spec_bins, bins}, w));
  cx.set_output(n, 0, y);
  return cx.error();
}

// ---- DFT ------------------------------------------------------------------------------------------
enum class Mode { Forward, Inverse, InverseReal };

// The twiddle matrix [L*c, K*co] for `mode` over a transform of length N, in f64.
//  Forward:     Y_k = sum_m x_m e^{-i theta},            co = 2
//  Inverse:     Y_k = (1/N) sum_m x_m e^{+i theta},      co = 2
//  InverseReal: y_k = (1/N) sum_m w_m Re(x_m e^{+i theta}) over the half spectrum m <= N/2,
//               w_m = 1 for m = 0 and m = N/2 (N even), else 2 (numpy irfft), co = 1
// with theta = 2 pi k m / N; inputs m >= N (truncation) have zero rows.
std::vector<double> twiddles(Mode mode, int64_t L, int64_t c, int64_t N, int64_t K) {
  const int64_t co = mode == Mode::InverseReal ? 1 : 2;
  std::vector<double> w(static_cast<size_t>(L * c * K * co), 0.0);
  const int64_t m_end = std::min(L, mode == Mode::InverseReal ? N / 2 + 1 : N);
  const double scale = mode == Mode::Forward ? 1.0 : 1.0 / static_cast<double>(N);
  const double sgn = mode == Mode::Forward ? -1.0 : 1.0;
  for (int64_t m = 0; m < m_end; ++m) {
    double wm = 1.0;
    if (mode == Mode::InverseReal && m != 0 && !(N % 2 == 0 && m == N / 2)) wm = 2.0;
    for (int64_t k = 0; k < K; ++k) {
      const double th = turn_angle(k * m, N);
      const double cs = std::cos(th) * scale * wm, sn = sgn * std::sin(th) * scale * wm;
      // (a + ib)(cs + i sn) = (a cs - b sn) + i (a sn + b cs)
      auto put = [&](int64_t part, int64_t out, double v) {
        w[static_cast<size_t>(((m * c + part) * K + k) * co + out)] = v;
      };
      put(0, 0, cs);
      if (c == 2) put(1, 0, -sn);
      if (co == 2) {
        put(0, 1, sn);
        if (c == 2) put(1, 1, cs);
      }
    }
  }
  return w;
}

// x [..., L at `axis`, ..., c] -> the transform along `axis`: [..., K at axis, ..., co].
Expected<ValueId> apply_dft(LowerCtx& cx, ValueId x, const Ints& dims, int64_t axis, Mode mode, int64_t N,
                            int64_t K) {
  const int64_t r = static_cast<int64_t>(dims.size());
  const int64_t L = dims[axis], c = dims[r - 1];
  const int64_t co = mode == Mode::InverseReal ? 1 : 2;
  if (L * c > kMaxTable / std::max<int64_t>(K * co, 1)) return cx.unsupported("DFT twiddle matrix too large");
  const ir::DType dt = cx.type(x).dtype;
  const ir::DType ct = compute_dtype(dt);
  // Move `axis` next to the complex dim and flatten to [M, L*c].
  Ints perm, outer_dims;
  for (int64_t i = 0; i < r - 1; ++i)
    if (i != axis) perm.push_back(i), outer_dims.push_back(dims[i]);
  perm.push_back(axis);
  perm.push_back(r - 1);
  int64_t M = 1;
  for (int64_t d : outer_dims) M *= d;
  ValueId xt = to_compute(cx, x);
  if (axis != r - 2) xt = cx.b.transpose(xt, perm);
  xt = cx.b.reshape(xt, cx.b.shape_const({M, L * c}));
  ValueId w = cx.b.const_floats(ct, {L * c, K * co}, twiddles(mode, L, c, N, K));
  ValueId y = cx.b.matmul(xt, w, ct);
  Ints ydims = outer_dims;
  ydims.push_back(K);
  ydims.push_back(co);
  y = cx.b.reshape(y, cx.b.shape_const(ydims));
  if (axis != r - 2) {
    // y is [outer..., K, co]; put K back at `axis`.
    Ints inv(static_cast<size_t>(r));
    for (int64_t i = 0; i < r; ++i) inv[perm[i]] = i;
    y = cx.b.transpose(y, inv);
  }
  return from_compute(cx, y, dt);
}

Status lower_dft(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  if (!ir::is_float(cx.type(x).dtype)) return cx.invalid("DFT input must be floating");
  PLUMB_ASSIGN_OR_RETURN(Ints dims, static_dims(cx, x, "DFT"));
  const int64_t r = static_cast<int64_t>(dims.size());
  if (r < 2 || (dims[r - 1] != 1 && dims[r - 1] != 2))
    return cx.invalid("DFT input must have rank >= 2 and a last dim of 1 (real) or 2 (complex)");
  PLUMB_ASSIGN_OR_RETURN(int64_t inverse, n.attr_int("inverse", 0));
  PLUMB_ASSIGN_OR_RETURN(int64_t onesided, n.attr_int("onesided", 0));
  int64_t axis = 0;
  if (cx.opset() < 20) {
    // DFT-17: axis attribute (default 1); a negative one counts from the back of the signal dims
    // (the ONNX reference applies it to the input without its complex dim).
    PLUMB_ASSIGN_OR_RETURN(axis, n.attr_int("axis", 1));
    if (axis < 0) axis += r - 1;
  } else {
    // DFT-20: axis input (default -2), accepted range [-r, -2] U [0, r-2].
    axis = -2;
    if (cx.has_input(n, 2)) {
      PLUMB_ASSIGN_OR_RETURN(axis, scalar_int_input(cx, n, 2, "DFT axis"));
    }
    if (axis < 0) axis += r;
  }
  if (axis < 0 || axis > r - 2) return cx.invalid("DFT axis out of range");
  const int64_t L = dims[axis];
  const bool irfft = inverse && onesided;
  int64_t N = irfft ? 2 * (L - 1) : L;
  if (cx.has_input(n, 1)) {
    PLUMB_ASSIGN_OR_RETURN(N, scalar_int_input(cx, n, 1, "dft_length"));
  }
  if (N < 1 || N > kMaxTable) return cx.invalid("DFT length must be in [1, 2^24]");
  // onesided: the forward transform keeps bins [0, N/2]; with inverse it is the inverse of that
  // (irfft: a half spectrum in, N real samples out), as the ONNX test data of DFT-17 and -20 have it.
  const Mode mode = irfft ? Mode::InverseReal : inverse ? Mode::Inverse : Mode::Forward;
  const int64_t K = !irfft && onesided ? N / 2 + 1 : N;
  PLUMB_ASSIGN_OR_RETURN(ValueId y, apply_dft(cx, x, dims, axis, mode, N, K));
  cx.set_output(n, 0, y);
  return cx.error();
}

// ---- STFT -----------------------------------------------------------------------------------------
// Frames x[b, f*step + j, :] (j < frame_length) gathered into [B, F, frame_length, c], multiplied
// by the window (in the compute dtype), then a forward DFT of length frame_length over axis 2.
Status lower_stft(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  if (!ir::is_float(cx.type(x).dtype)) return cx.invalid("STFT signal must be floating");
  PLUMB_ASSIGN_OR_RETURN(Ints dims, static_dims(cx, x, "STFT"));
  if (dims.size() != 3 || (dims[2] != 1 && dims[2] != 2))
    return cx.invalid("STFT signal must be [batch, length, 1] or [batch, length, 2]");
  PLUMB_ASSIGN_OR_RETURN(int64_t step, scalar_int_input(cx, n, 1, "frame_step"));
  PLUMB_ASSIGN_OR_RETURN(int64_t onesided, n.attr_int("onesided", 1));
  const int64_t S = dims[1], c = dims[2];
  ValueId window = ir::kNoValue;
  int64_t wlen = -1;
  if (cx.has_input(n, 2)) {
    PLUMB_ASSIGN_OR_RETURN(window, cx.input(n, 2));
    PLUMB_ASSIGN_OR_RETURN(Ints wd, static_dims(cx, window, "STFT window"));
    if (wd.size() != 1) return cx.invalid("STFT window must be 1-D");
    wlen = wd[0];
  }
  int64_t fl = wlen >= 0 ? wlen : S;
  if (cx.has_input(n, 3)) {
    PLUMB_ASSIGN_OR_RETURN(fl, scalar_int_input(cx, n, 3, "frame_length"));
  }
  if (wlen >= 0 && wlen != fl) return cx.invalid("STFT window length differs from frame_length");
  if (step < 1) return cx.invalid("STFT frame_step must be >= 1");
  if (fl < 1 || fl > S) return cx.invalid("STFT frame_length must be in [1, signal length]");
  const int64_t frames = 1 + (S - fl) / step;
  if (frames > kMaxTable / fl) return cx.unsupported("STFT with too many frames");
  Ints idx;
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t j = 0; j < fl; ++j) idx.push_back(f * step + j);
  const ir::DType dt = cx.type(x).dtype;
  ValueId xc = to_compute(cx, x);
  ValueId fr = cx.b.emit1(ir::GatherAttrs{ir::GatherKind::Axis, 1, 0},
                          {xc, cx.b.const_ints(ir::DType::I64, {frames, fl}, idx)});
  const Ints fdims = {dims[0], frames, fl, c};
  if (window != ir::kNoValue) {
    ValueId wv = to_compute(cx, window);
    if (cx.type(wv).dtype != cx.type(xc).dtype) wv = cx.b.cast(wv, cx.type(xc).dtype);
    fr = cx.b.binary(BK::Mul, fr, cx.b.broadcast(wv, cx.b.shape_const(fdims), {2}));
  }
  const int64_t K = onesided ? fl / 2 + 1 : fl;
  PLUMB_ASSIGN_OR_RETURN(ValueId y, apply_dft(cx, fr, fdims, 2, Mode::Forward, fl, K));
  cx.set_output(n, 0, from_compute(cx, y, dt));
  return cx.error();
}

}  // namespace

void register_signal(Registry& r) {
  // A table: its rows packed, several to a line.
  // clang-format off
  r.add_since({
      {"DFT", 17, lower_dft}, {"STFT", 17, lower_stft}, {"HannWindow", 17, lower_window<0>},
      {"HammingWindow", 17, lower_window<1>}, {"BlackmanWindow", 17, lower_window<2>},
      {"MelWeightMatrix", 17, lower_mel}});
  // clang-format on
}

}  // namespace plumb::lower
