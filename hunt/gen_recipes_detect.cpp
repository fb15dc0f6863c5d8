// plumb gen's recipes for NonMaxSuppression, MaxRoiPool, TfIdfVectorizer, MelWeightMatrix and
// StringNormalizer (docs/gen.md).
// NonMaxSuppression's output size depends on the boxes' overlaps, so gen draws boxes and scores as
// constants it knows, runs the selection itself to settle the [K, 3] indices, and keeps every
// comparison away from its threshold.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "hunt/gen_recipe.h"

namespace plumb::hunt::gen::recipe {

namespace {

struct Box {
  double y1, x1, y2, x2;  // normalized: y1 <= y2, x1 <= x2
};

// IoU of two boxes whose coordinates are multiples of 1/32: intersection and union are exact in
// double, so only the one division rounds.
double iou(const Box& a, const Box& c) {
  const double h = std::max(0.0, std::min(a.y2, c.y2) - std::max(a.y1, c.y1));
  const double w = std::max(0.0, std::min(a.x2, c.x2) - std::max(a.x1, c.x1));
  const double inter = h * w;
  const double uni = (a.y2 - a.y1) * (a.x2 - a.x1) + (c.y2 - c.y1) * (c.x2 - c.x1) - inter;
  return inter / uni;
}

}  // namespace

// NonMaxSuppression (opset 10/11 text): boxes [B, N, 4] in either box format (corners given as any
// diagonal pair, or center and size), coordinates multiples of 1/32 with sides of at least 1/4;
// scores [B, C, N] distinct within each (batch, class), multiples of 1/16; max_output_boxes_per_class
// 1..N+1; an iou_threshold at least 1/100 from every pair's IoU (else the recipe does not apply),
// a score_threshold (sometimes) between two scores. The selected [K, 3] indices are cast to float
// and reshaped to the K the generator's own selection found, for the ops after it.
bool nms(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const int64_t nb = rng.in(1, 2), nc = rng.in(1, 2), n = rng.in(2, 6);
  const bool center = b.has_attribute(op, "center_point_box") && rng.chance(40);
  std::vector<Box> boxes;
  std::vector<float> box_data;
  for (int64_t k = 0; k < nb * n; ++k) {
    const double cy = rng.in(-16, 16) / 16.0, cx = rng.in(-16, 16) / 16.0;
    const double h = rng.in(4, 16) / 16.0, w = rng.in(4, 16) / 16.0;
    const Box box{cy - h / 2, cx - w / 2, cy + h / 2, cx + w / 2};
    boxes.push_back(box);
    if (center) {
      for (double v : {cx, cy, w, h}) box_data.push_back(static_cast<float>(v));
    } else if (rng.chance(30)) {  // the other diagonal, or both corners swapped
      const bool swap_y = rng.chance(50);
      const bool swap_x = !swap_y || rng.chance(50);
      box_data.push_back(static_cast<float>(swap_y ? box.y2 : box.y1));
      box_data.push_back(static_cast<float>(swap_x ? box.x2 : box.x1));
      box_data.push_back(static_cast<float>(swap_y ? box.y1 : box.y2));
      box_data.push_back(static_cast<float>(swap_x ? box.x1 : box.x2));
    } else {
      for (double v : {box.y1, box.x1, box.y2, box.x2}) box_data.push_back(static_cast<float>(v));
    }
  }
  // The threshold candidates, in a drawn order; the first that no IoU comes near is used.
  std::vector<float> candidates = {0.0f, 0.1f, 0.25f, 0.4f, 0.5f, 0.7f};
  for (size_t k = candidates.size(); k > 1; --k)
    std::swap(candidates[k - 1], candidates[static_cast<size_t>(rng.below(static_cast<int>(k)))]);
  float iou_t = -1;
  for (float t : candidates) {
    bool clear = true;
    for (int64_t bi = 0; bi < nb && clear; ++bi)
      for (int64_t i = 0; i < n && clear; ++i)
        for (int64_t j = i + 1; j < n && clear; ++j) {
          const double v =
              iou(boxes[static_cast<size_t>(bi * n + i)], boxes[static_cast<size_t>(bi * n + j)]);
          // IoU 0 (no overlap) is exact: a threshold of 0 keeps such a pair apart on any backend.
          clear = (t == 0.0f && v == 0.0) || v - static_cast<double>(t) > 0.01 ||
                  static_cast<double>(t) - v > 0.01;
        }
    if (clear) {
      iou_t = t;
      break;
    }
  }
  if (iou_t < 0) return false;
  std::vector<float> scores;
  for (int64_t s = 0; s < nb * nc; ++s) {
    std::vector<int> perm(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) perm[static_cast<size_t>(k)] = static_cast<int>(k);
    for (size_t k = perm.size(); k > 1; --k)
      std::swap(perm[k - 1], perm[static_cast<size_t>(rng.below(static_cast<int>(k)))]);
    for (int p : perm) scores.push_back(static_cast<float>(p + 1) / 16);
  }
  const int64_t max_out = rng.in(1, static_cast<int>(n) + 1);
  // A score threshold halfway between two scores (k + 1/2) / 16: no score is near it.
  const bool score_given = rng.chance(50);
  const float score_t =
      score_given ? (static_cast<float>(rng.in(0, static_cast<int>(n) - 1)) + 0.5f) / 16 : 0.0f;
  // The selection as the text describes it, per batch and class: boxes by descending score, each
  // kept unless its score is below the threshold or its IoU with a kept box exceeds iou_threshold.
  int64_t selected = 0;
  for (int64_t bi = 0; bi < nb; ++bi)
    for (int64_t ci = 0; ci < nc; ++ci) {
      std::vector<int64_t> order(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) order[static_cast<size_t>(k)] = k;
      const float* s = scores.data() + (bi * nc + ci) * n;
      std::sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return s[i] > s[j]; });
      std::vector<int64_t> kept;
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) == max_out) break;
        if (score_given && s[i] < score_t) continue;
        bool suppressed = false;
        for (int64_t j : kept)
          suppressed = suppressed || iou(boxes[static_cast<size_t>(bi * n + i)],
                                         boxes[static_cast<size_t>(bi * n + j)]) > static_cast<double>(iou_t);
        if (!suppressed) kept.push_back(i);
      }
      selected += static_cast<int64_t>(kept.size());
    }
  if (selected == 0) return false;
  std::vector<std::string> ins = {b.const_f32({nb, n, 4}, box_data), b.const_f32({nb, nc, n}, scores),
                                  b.const_i64({max_out}, rng.chance(50)), b.const_f32({}, {iou_t})};
  if (score_given) ins.push_back(b.const_f32({}, {score_t}));
  const std::string idx = b.fresh("v"), f = b.fresh("v");
  auto* node = b.node(op, ins, {idx});
  if (center) set_int(node, "center_point_box", 1);
  set_int(b.node("Cast", {idx}, {f}), "to", ::onnx::TensorProto::FLOAT);
  settle(b, f, {selected, 3}, static_cast<double>(std::max(nb, n)), true);
  return true;
}

// MaxRoiPool of a rank-4 value: ONNX's text gives no bin formula; the op is Caffe's RoI pooling,
// as onnxruntime computes it (corners round(c * spatial_scale), RoI size end - start + 1, bin h of
// ph: [floor(ph * size / pooled), ceil((ph + 1) * size / pooled)) from the start, clipped to the
// image, an empty bin 0). gen keeps every rounding off a tie: spatial_scale 1/2, 1 or 2 with
// corners whose scaled values are integers, and RoI sizes multiples of pooled_shape, so the bin
// edges are integers in any float arithmetic. A RoI may run past the image (clipped bins, empty
// ones).
bool max_roi_pool(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const Value x = of_rank(b, 4, 4, {rng.in(1, 2), rng.in(1, 4), rng.in(3, 7), rng.in(3, 7)});
  const int64_t ph = rng.in(1, 3), pw = rng.in(1, 3), rois = rng.in(1, 3);
  const float scale = std::vector<float>{0.5f, 1.0f, 2.0f}[static_cast<size_t>(rng.below(3))];
  std::vector<float> data;
  for (int64_t r = 0; r < rois; ++r) {
    const int64_t h0 = rng.in(0, static_cast<int>(x.dims[2]) - 1),
                  w0 = rng.in(0, static_cast<int>(x.dims[3]) - 1);
    const int64_t h1 = h0 + ph * rng.in(1, 2) - 1, w1 = w0 + pw * rng.in(1, 2) - 1;  // inclusive ends
    data.push_back(static_cast<float>(rng.below(static_cast<int>(x.dims[0]))));
    for (int64_t c : {w0, h0, w1, h1}) data.push_back(static_cast<float>(c) / scale);
  }
  const Value out = b.push({rois, x.dims[1], ph, pw}, x.bound, x.exact);
  auto* node = b.node(op, {x.name, b.const_f32({rois, 5}, data)}, {out.name});
  set_ints(node, "pooled_shape", {ph, pw});
  if (scale != 1.0f || rng.chance(30)) set_float(node, "spatial_scale", scale);
  return true;
}

// RoiAlign (opset 10; 16 adds coordinate_transformation_mode) of a rank-4 value whose H and W are
// at least 2, with 1 to 3 well-conditioned RoIs: in scaled coordinates (spatial_scale 1/2, 1 or 2)
// each starts at a multiple of 1/4 inside the image and spans 1 to what is left of it, so every
// sample point lies in [-1/2, extent - 1] (never where the reference zeroes a sample, below -1 or
// past the extent) and the RoI sizes are exact: the adaptive grid, ceil(size / output size) with
// sampling_ratio 0, cannot round to another integer. Both modes (avg; max, the largest weighted
// corner of each sample as ONNX's reference and onnxruntime take it), both coordinate modes,
// output 1..3 x 1..3, sampling_ratio 0..2. Bilinear interpolation is continuous, so the result is
// well-conditioned in X; bounded by X's bound.
bool roi_align(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  auto picked = pick(b, [](const Value& v) {
    return rank(v) == 4 && v.dims[2] >= 2 && v.dims[3] >= 2 && num_elements(v.dims) <= kMaxElements / 4;
  });
  const Value x =
      picked ? ready(b, *picked) : b.input({rng.in(1, 2), rng.in(1, 4), rng.in(2, 7), rng.in(2, 7)});
  const int64_t oh = rng.in(1, 3), ow = rng.in(1, 3), rois = rng.in(1, 3);
  const float scale = std::vector<float>{0.5f, 1.0f, 2.0f}[static_cast<size_t>(rng.below(3))];
  std::vector<float> boxes;
  std::vector<int64_t> batch;
  auto span = [&](int64_t extent, float* start, float* end) {
    // Quarters in scaled coordinates: start in [0, extent - 2], size in [1, extent - 1 - start].
    const int q0 = rng.in(0, static_cast<int>(4 * (extent - 2)));
    const int q1 = rng.in(4, static_cast<int>(4 * (extent - 1)) - q0);
    *start = static_cast<float>(q0) / 4 / scale;
    *end = static_cast<float>(q0 + q1) / 4 / scale;
  };
  for (int64_t r = 0; r < rois; ++r) {
    float x1, y1, x2, y2;
    span(x.dims[3], &x1, &x2);
    span(x.dims[2], &y1, &y2);
    boxes.insert(boxes.end(), {x1, y1, x2, y2});
    batch.push_back(rng.below(static_cast<int>(x.dims[0])));
  }
  const Value out = b.push({rois, x.dims[1], oh, ow}, x.bound, false);
  auto* node = b.node(op, {x.name, b.const_f32({rois, 4}, boxes), b.const_i64(batch)}, {out.name});
  const bool max_mode = rng.chance(40);
  if (max_mode || rng.chance(30)) set_string(node, "mode", max_mode ? "max" : "avg");
  if (oh != 1 || rng.chance(30)) set_int(node, "output_height", oh);
  if (ow != 1 || rng.chance(30)) set_int(node, "output_width", ow);
  const int64_t sampling = rng.in(0, 2);
  if (sampling != 0 || rng.chance(30)) set_int(node, "sampling_ratio", sampling);
  if (scale != 1.0f || rng.chance(30)) set_float(node, "spatial_scale", scale);
  if (b.has_attribute(op, "coordinate_transformation_mode")) {
    const bool half = rng.chance(50);
    if (!half || rng.chance(30))
      set_string(node, "coordinate_transformation_mode", half ? "half_pixel" : "output_half_pixel");
  }
  return true;
}

// TfIdfVectorizer of int64 tokens: Floor of an exact value brought to [-2, 2] (tokens -2..2, so the
// pool's n-grams occur), cast to int64, rank 1 or 2. A pool of 1 to 3 distinct n-grams of each
// length 1..max_gram_length (ngram_counts their starts), min_gram_length 1..max, max_skip_count
// 0..2, ngram_indexes distinct (some output coordinates left unused), mode TF, IDF or TFIDF with
// weights multiples of 1/4 (or none: ones). Counting is exact and a count times a weight is exact,
// so every backend gives the same bits; the result is float [D] or [N, D], D = max index + 1.
bool tfidf(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const Value x = ready(b, exact_value(b, 1, 2, {rng.in(2, 8)}), 2);
  const std::string fl = b.fresh("v"), tok = b.fresh("v");
  b.node("Floor", {x.name}, {fl});
  set_int(b.node("Cast", {fl}, {tok}), "to", ::onnx::TensorProto::INT64);
  const int64_t max_n = rng.in(1, 3), min_n = rng.in(1, static_cast<int>(max_n)), skips = rng.in(0, 2);
  std::vector<int64_t> pool, counts;
  int64_t grams = 0;
  for (int64_t n = 1; n <= max_n; ++n) {
    counts.push_back(static_cast<int64_t>(pool.size()));  // starts are offsets into pool_int64s
    std::set<std::vector<int64_t>> drawn;
    const int want = rng.in(1, 3);
    for (int k = 0; k < 3 * want && static_cast<int>(drawn.size()) < want; ++k) {
      std::vector<int64_t> g(static_cast<size_t>(n));
      for (int64_t& t : g) t = rng.in(-2, 2);
      if (drawn.insert(g).second) pool.insert(pool.end(), g.begin(), g.end());
    }
    grams += static_cast<int64_t>(drawn.size());
  }
  const char* mode = std::vector<const char*>{"TF", "IDF", "TFIDF"}[static_cast<size_t>(rng.below(3))];
  std::vector<float> weights;
  if (std::string(mode) != "TF" && rng.chance(70))
    for (int64_t k = 0; k < grams; ++k) weights.push_back(static_cast<float>(rng.in(1, 8)) / 4);
  // Distinct output coordinates for the pool's n-grams: a shuffle of 0..grams+extra-1, cut
  // (weights follow the pool through them: ONNX's text and onnxruntime; plumb indexed them by the
  // coordinate until gen's campaign found it, docs/gen.md).
  std::vector<int64_t> coords(static_cast<size_t>(grams + rng.in(0, 2)));
  for (size_t k = 0; k < coords.size(); ++k) coords[k] = static_cast<int64_t>(k);
  for (size_t k = coords.size(); k > 1; --k)
    std::swap(coords[k - 1], coords[static_cast<size_t>(rng.below(static_cast<int>(k)))]);
  coords.resize(static_cast<size_t>(grams));
  const int64_t width = *std::max_element(coords.begin(), coords.end()) + 1;
  Dims dims = x.dims;
  dims.back() = width;
  // A count is at most the row's length times the skips tried; a weight at most 2.
  const double bound = static_cast<double>(x.dims.back() * (skips + 1) * 2);
  const Value out = b.push(dims, bound, true);
  auto* node = b.node(op, {tok}, {out.name});
  set_int(node, "min_gram_length", min_n);
  set_int(node, "max_gram_length", max_n);
  set_int(node, "max_skip_count", skips);
  set_string(node, "mode", mode);
  set_ints(node, "ngram_counts", counts);
  set_ints(node, "ngram_indexes", coords);
  set_ints(node, "pool_int64s", pool);
  if (!weights.empty()) {
    auto* a = node->add_attribute();
    a->set_name("weights");
    a->set_type(::onnx::AttributeProto::FLOATS);
    for (float w : weights) a->add_floats(w);
  }
  return true;
}

namespace {

// MelWeightMatrix settings (num_mel_bins, dft_length, sample_rate, lower_edge_hertz,
// upper_edge_hertz) whose frequency bins (dft_length + 1) * f / sample_rate, f computed through
// log10 and pow as ONNX's reference does, are at least 0.02 from an integer in float64 and in
// float32: a floor of them cannot part backends. Drawn from the 623 such settings of num_mel_bins
// 1..6, dft_length 8..32, sample_rate 8000 / 16000 / 8192, edges 0 / 100 / 300 and 3000 / the
// Nyquist frequency (gen computes no log: libm's last bit varies, and the bytes of a run must
// not); tests/cli/lib/gen_oracle_signal.py checks the margin of every one gen writes.
struct MelSetting {
  int64_t bins, dft, rate;
  float lower, upper;
};
constexpr MelSetting kMelSettings[] = {
    {2, 10, 8192, 0, 4096},    {6, 16, 8192, 0, 3000},   {1, 16, 8192, 300, 3000},
    {3, 12, 16000, 100, 8000}, {2, 8, 16000, 100, 3000}, {5, 24, 16000, 0, 8000},
    {5, 10, 8192, 300, 4096},  {5, 16, 8192, 0, 3000},   {4, 20, 8000, 0, 3000},
    {2, 32, 16000, 300, 3000}, {1, 32, 8000, 0, 3000},   {5, 20, 8192, 100, 4096},
    {4, 20, 8192, 300, 3000},  {5, 8, 8192, 300, 4096},  {6, 32, 8192, 300, 3000},
    {3, 16, 8000, 100, 4000},  {3, 8, 8192, 100, 3000},  {6, 24, 16000, 100, 3000},
    {1, 32, 16000, 300, 8000}, {3, 32, 8192, 0, 4096},   {6, 10, 16000, 100, 3000},
    {4, 20, 8000, 300, 3000},  {3, 8, 8000, 100, 4000},  {6, 8, 16000, 100, 8000},
};

}  // namespace

// MelWeightMatrix of a setting above (its inputs int64 or int32 scalars and float edges, constants):
// a [dft_length / 2 + 1, num_mel_bins] float matrix for the ops after it.
bool mel_weight_matrix(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  const MelSetting& m =
      kMelSettings[rng.below(static_cast<int>(sizeof kMelSettings / sizeof kMelSettings[0]))];
  std::vector<std::string> ins;
  const bool i32 = rng.chance(30);
  for (int64_t v : {m.bins, m.dft, m.rate}) {
    if (i32) {
      const int32_t w = static_cast<int32_t>(v);
      ins.push_back(b.initializer(::onnx::TensorProto::INT32, {}, &w, sizeof w));
    } else {
      ins.push_back(b.const_i64({v}, true));
    }
  }
  ins.push_back(b.const_f32({}, {m.lower}));
  ins.push_back(b.const_f32({}, {m.upper}));
  const Value out = b.push({m.dft / 2 + 1, m.bins}, 1, false);
  auto* node = b.node(op, ins, {out.name});
  if (rng.chance(30)) set_int(node, "output_datatype", ::onnx::TensorProto::FLOAT);
  return true;
}

// StringNormalizer of a constant [C] or [1, C] string tensor of decimal numbers written with
// exponents in either case ("1.25E1", "-2.5e-1"; each exact in float32), stop words some of
// them, with a case change from the other letter case when is_case_sensitive is 0, LOWER, UPPER or
// NONE; what is left (gen keeps one at least) is cast to float (case does not change a number),
// exact, and reshaped to the count gen knows. Left out: letters other than ASCII (plumb's case
// map ignores locale).
bool string_normalizer(Builder& b, const std::string& op) {
  Rng& rng = b.rng;
  static constexpr const char* kWords[] = {"0.5",     "1e1",     "1E1", "-3",      "2.5e-1", "2.5E-1",
                                           "-1.25E1", "-1.25e1", "4e0", "6.25E-2", "7",      "-7.5e-1"};
  constexpr int kCount = static_cast<int>(sizeof kWords / sizeof kWords[0]);
  const int64_t c = rng.in(1, 6);
  std::vector<std::string> x;
  for (int64_t k = 0; k < c; ++k) x.push_back(kWords[rng.below(kCount)]);
  const bool sensitive = rng.chance(50);
  auto fold = [](std::string w) {
    for (char& ch : w) ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
    return w;
  };
  std::vector<std::string> stops;
  for (int k = rng.in(0, 2); k > 0; --k) {
    std::string w = x[static_cast<size_t>(rng.below(static_cast<int>(c)))];
    if (!sensitive && rng.chance(50))
      for (char& ch : w) ch = static_cast<char>(ch == 'e' ? 'E' : ch == 'E' ? 'e' : ch);
    stops.push_back(w);
  }
  int64_t kept = 0;
  for (const std::string& w : x) {
    bool stop = false;
    for (const std::string& s : stops) stop = stop || (sensitive ? w == s : fold(w) == fold(s));
    kept += stop ? 0 : 1;
  }
  if (kept == 0) return false;
  const bool batch = rng.chance(40);
  const std::string y = b.fresh("v"), f = b.fresh("v");
  auto* node = b.node(op, {b.const_strings(batch ? Dims{1, c} : Dims{c}, x)}, {y});
  const char* action = std::vector<const char*>{"LOWER", "UPPER", "NONE"}[static_cast<size_t>(rng.below(3))];
  if (std::string(action) != "NONE" || rng.chance(50)) set_string(node, "case_change_action", action);
  // onnxruntime opens locale + ".UTF-8" for a case change and a case-blind stop word (default
  // en_US, often not installed: "locale::facet::_S_create_c_locale name not valid"); C.UTF-8 is on
  // every glibc system, and the strings are ASCII, which every locale maps alike.
  set_string(node, "locale", "C");
  if (sensitive || rng.chance(50)) set_int(node, "is_case_sensitive", sensitive ? 1 : 0);
  if (!stops.empty()) {
    auto* a = node->add_attribute();
    a->set_name("stopwords");
    a->set_type(::onnx::AttributeProto::STRINGS);
    for (const std::string& s : stops) a->add_strings(s);
  }
  set_int(b.node("Cast", {y}, {f}), "to", ::onnx::TensorProto::FLOAT);
  settle(b, f, batch ? Dims{1, kept} : Dims{kept}, 12.5, true);
  return true;
}

}  // namespace plumb::hunt::gen::recipe
