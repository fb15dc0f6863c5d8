// Lowering of ONNX Attention (lowering/onnx/attention.cpp): one-node models built by hand, lowered,
// run on ref, compared with a direct loop written here from the ONNX definition (in double, so
// the comparison is to a few f32 ulps) and with values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "frontends/onnx/model.h"
#include "lowering/onnx/driver.h"
#include "runtime/ref_evaluator.h"
#include "runtime/session.h"

namespace plumb {
namespace {

using Ints = std::vector<int64_t>;

onnx::OnnxAttribute IntAttr(const std::string& name, int64_t v) {
  onnx::OnnxAttribute a;
  a.name = name;
  a.type = onnx::AttrType::Int;
  a.i = v;
  return a;
}

struct Input {
  std::string name;  // "" = omitted optional input
  ir::DType dtype;
  Ints shape;
  std::vector<float> data;  // bool inputs: 0 / 1; i64 inputs: small integers
  ir::Shape declared = {};  // the graph input's declared shape when not empty (symbolic dims)
};

// Runs a one-node Attention model; outputs named o0, o1, ... ("" in `outputs` = not wanted).
std::vector<rt::RtValue> RunAttention(int64_t opset, const std::vector<Input>& inputs,
                                      std::vector<onnx::OnnxAttribute> attrs,
                                      const std::vector<std::string>& outputs) {
  onnx::OnnxModel m;
  m.ir_version = 10;
  m.opsets[""] = opset;
  onnx::OnnxNode n;
  n.op_type = "Attention";
  n.attributes = std::move(attrs);
  for (const Input& in : inputs) {
    n.inputs.push_back(in.name);
    if (!in.name.empty())
      m.graph.inputs.push_back(
          {in.name,
           ir::Type::tensor(in.dtype, in.declared.empty() ? ir::static_shape(in.shape) : in.declared)});
  }
  for (const std::string& o : outputs) {
    n.outputs.push_back(o);
    if (!o.empty()) m.graph.outputs.push_back({o, std::nullopt});
  }
  m.graph.nodes.push_back(n);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  EXPECT_TRUE(g.has_value()) << g.status().to_string();
  if (!g.has_value()) return {};
  auto s = rt::Session::create(std::move(*g));
  EXPECT_TRUE(s.has_value()) << s.status().to_string();
  if (!s.has_value()) return {};
  size_t idx = 0;
  for (const Input& in : inputs) {
    if (in.name.empty()) continue;
    rt::Tensor t = rt::Tensor::allocate(in.dtype, in.shape);
    for (size_t k = 0; k < in.data.size(); ++k) {
      if (in.dtype == ir::DType::Bool)
        t.as<uint8_t>()[k] = in.data[k] != 0 ? 1 : 0;
      else if (in.dtype == ir::DType::I64)
        t.as<int64_t>()[k] = static_cast<int64_t>(in.data[k]);
      else
        t.as<float>()[k] = in.data[k];
    }
    EXPECT_TRUE((*s)->set_input(idx++, t).is_ok());
  }
  Status st = (*s)->run();
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  if (!st.is_ok()) return {};
  return (*s)->outputs();
}

std::vector<float> Floats(const rt::RtValue& v) {
  const rt::Tensor& t = v.tensor();
  return std::vector<float>(t.as<float>(), t.as<float>() + t.numel());
}

std::vector<float> Ramp(int64_t n, float mul, float add) {
  std::vector<float> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(std::sin(static_cast<float>(i) * mul + add));
  return v;
}

// Plain attention for 4-D Q [B,H,S,D], K/V [B,H,T,D]: keep(b,h,i,j) decides the mask.
template <typename Keep>
std::vector<float> Reference(const std::vector<float>& q, const std::vector<float>& k,
                             const std::vector<float>& v, int64_t B, int64_t H, int64_t S, int64_t T,
                             int64_t D, Keep keep) {
  std::vector<float> y;
  const double scale = 1.0 / std::sqrt(static_cast<double>(D));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < S; ++i) {
        std::vector<double> p(static_cast<size_t>(T), 0.0);
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j < T; ++j) {
          if (!keep(b, h, i, j)) continue;
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += static_cast<double>(q[((b * H + h) * S + i) * D + d]) * k[((b * H + h) * T + j) * D + d];
          p[j] = dot * scale;
          mx = std::max(mx, p[j]);
        }
        for (int64_t j = 0; j < T; ++j) {
          p[j] = keep(b, h, i, j) ? std::exp(p[j] - mx) : 0.0;
          sum += p[j];
        }
        for (int64_t d = 0; d < D; ++d) {
          double acc = 0;
          for (int64_t j = 0; j < T; ++j)
            if (sum > 0) acc += p[j] / sum * v[((b * H + h) * T + j) * D + d];
          y.push_back(static_cast<float>(acc));
        }
      }
  return y;
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << "at " << i;
}

TEST(LowerAttention, HandComputedSingleQuery) {
  // One query [1, 0], keys [1, 0] and [0, 1], scale 1/sqrt(2): scores 1/sqrt 2 and 0, so the
  // weights are e^(1/sqrt 2) / (e^(1/sqrt 2) + 1) and 1 / (...); values 10 and 20.
  auto out = RunAttention(23,
                          {{"Q", ir::DType::F32, {1, 1, 1, 2}, {1, 0}},
                           {"K", ir::DType::F32, {1, 1, 2, 2}, {1, 0, 0, 1}},
                           {"V", ir::DType::F32, {1, 1, 2, 1}, {10, 20}}},
                          {}, {"o0"});
  ASSERT_EQ(out.size(), 1u);
  const double e = std::exp(1.0 / std::sqrt(2.0));
  const double want = (10 * e + 20) / (e + 1);
  EXPECT_NEAR(Floats(out[0])[0], static_cast<float>(want), 1e-6);
}

TEST(LowerAttention, BoolMask4D) {
  const int64_t B = 1, H = 2, S = 3, T = 4, D = 2;
  auto q = Ramp(B * H * S * D, 0.7f, 0.1f), k = Ramp(B * H * T * D, 0.3f, 1.0f),
       v = Ramp(B * H * T * D, 1.1f, 2.0f);
  // mask [S, T]: row 0 keeps {0, 2}, row 1 keeps {1}, row 2 keeps nothing (fully masked: zeros).
  std::vector<float> mask = {1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0};
  auto keep = [&](int64_t, int64_t, int64_t i, int64_t j) { return mask[i * T + j] != 0; };
  auto out = RunAttention(23,
                          {{"Q", ir::DType::F32, {B, H, S, D}, q},
                           {"K", ir::DType::F32, {B, H, T, D}, k},
                           {"V", ir::DType::F32, {B, H, T, D}, v},
                           {"M", ir::DType::Bool, {S, T}, mask}},
                          {}, {"o0"});
  ASSERT_EQ(out.size(), 1u);
  auto y = Floats(out[0]);
  ExpectNear(y, Reference(q, k, v, B, H, S, T, D, keep));
  // Row 1 keeps only key 1: its output is V[key 1] exactly; row 2 (all masked) is 0.
  EXPECT_EQ(y[1 * D + 0], v[1 * D + 0]);
  EXPECT_EQ(y[2 * D + 0], 0.0f);
}

TEST(LowerAttention, CausalIsUpperLeftAligned) {
  const int64_t B = 2, H = 1, S = 3, T = 3, D = 4;
  auto q = Ramp(B * H * S * D, 0.5f, 0.2f), k = Ramp(B * H * T * D, 0.9f, 0.4f),
       v = Ramp(B * H * T * D, 0.6f, 3.0f);
  auto keep = [&](int64_t, int64_t, int64_t i, int64_t j) { return j <= i; };
  auto out = RunAttention(23,
                          {{"Q", ir::DType::F32, {B, H, S, D}, q},
                           {"K", ir::DType::F32, {B, H, T, D}, k},
                           {"V", ir::DType::F32, {B, H, T, D}, v}},
                          {IntAttr("is_causal", 1)}, {"o0"});
  ASSERT_EQ(out.size(), 1u);
  auto y = Floats(out[0]);
  ExpectNear(y, Reference(q, k, v, B, H, S, T, D, keep));
  // Query 0 sees only key 0: Y[b, 0, 0, :] = V[b, 0, 0, :].
  for (int64_t d = 0; d < D; ++d) EXPECT_EQ(y[d], v[d]);
}

TEST(LowerAttention, CausalWithPastOffsetsByPastLength) {
  // past length 2, one new key: query 0 sees all 3 keys (j <= 0 + 2); present_key = past ++ K.
  const int64_t B = 1, H = 1, S = 1, D = 2;
  auto q = Ramp(2, 0.5f, 0.2f), k = Ramp(2, 0.9f, 0.4f), v = Ramp(2, 0.6f, 3.0f);
  auto pk = Ramp(4, 0.3f, 0.0f), pv = Ramp(4, 0.8f, 1.0f);
  auto out = RunAttention(23,
                          {{"Q", ir::DType::F32, {B, H, S, D}, q},
                           {"K", ir::DType::F32, {B, H, 1, D}, k},
                           {"V", ir::DType::F32, {B, H, 1, D}, v},
                           {"", ir::DType::F32, {}, {}},
                           {"PK", ir::DType::F32, {B, H, 2, D}, pk},
                           {"PV", ir::DType::F32, {B, H, 2, D}, pv}},
                          {IntAttr("is_causal", 1)}, {"o0", "o1", "o2"});
  ASSERT_EQ(out.size(), 3u);
  std::vector<float> fk = pk, fv = pv;
  fk.insert(fk.end(), k.begin(), k.end());
  fv.insert(fv.end(), v.begin(), v.end());
  EXPECT_EQ(Floats(out[1]), fk);
  EXPECT_EQ(Floats(out[2]), fv);
  auto all = [](int64_t, int64_t, int64_t, int64_t) { return true; };
  ExpectNear(Floats(out[0]), Reference(q, fk, fv, B, H, S, 3, D, all));
}

TEST(LowerAttention, GqaRepeatsEachKvHeadInPlace) {
  // 4 query heads over 2 kv heads: query heads 0, 1 use kv head 0 and 2, 3 use kv head 1.
  const int64_t B = 1, Hq = 4, Hkv = 2, S = 2, T = 3, D = 2;
  auto q = Ramp(B * Hq * S * D, 0.7f, 0.1f), k = Ramp(B * Hkv * T * D, 0.3f, 1.0f),
       v = Ramp(B * Hkv * T * D, 1.1f, 2.0f);
  std::vector<float> kr, vr;  // kv heads repeated as [h0, h0, h1, h1]
  for (int64_t h = 0; h < Hq; ++h) {
    const int64_t src = h / 2;
    kr.insert(kr.end(), k.begin() + src * T * D, k.begin() + (src + 1) * T * D);
    vr.insert(vr.end(), v.begin() + src * T * D, v.begin() + (src + 1) * T * D);
  }
  auto out = RunAttention(23,
                          {{"Q", ir::DType::F32, {B, Hq, S, D}, q},
                           {"K", ir::DType::F32, {B, Hkv, T, D}, k},
                           {"V", ir::DType::F32, {B, Hkv, T, D}, v}},
                          {}, {"o0"});
  ASSERT_EQ(out.size(), 1u);
  auto all = [](int64_t, int64_t, int64_t, int64_t) { return true; };
  ExpectNear(Floats(out[0]), Reference(q, kr, vr, B, Hq, S, T, D, all));
}

TEST(LowerAttention, NonpadKvSeqlenMasksTrailingKeys) {
  // Opset 24: batch 0 keeps 2 keys, batch 1 keeps all 3.
  const int64_t B = 2, H = 1, S = 2, T = 3, D = 2;
  auto q = Ramp(B * H * S * D, 0.4f, 0.3f), k = Ramp(B * H * T * D, 0.8f, 0.5f),
       v = Ramp(B * H * T * D, 0.2f, 1.5f);
  auto keep = [](int64_t b, int64_t, int64_t, int64_t j) { return j < (b == 0 ? 2 : 3); };
  std::vector<Input> in = {{"Q", ir::DType::F32, {B, H, S, D}, q}, {"K", ir::DType::F32, {B, H, T, D}, k},
                           {"V", ir::DType::F32, {B, H, T, D}, v}, {"", ir::DType::F32, {}, {}},
                           {"", ir::DType::F32, {}, {}},           {"", ir::DType::F32, {}, {}},
                           {"N", ir::DType::I64, {B}, {2, 3}}};
  auto out = RunAttention(24, in, {}, {"o0"});
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Floats(out[0]), Reference(q, k, v, B, H, S, T, D, keep));
}

TEST(LowerAttention, SymbolicBatchAndSequenceThreeDWithPast) {
  // 3-D Q/K/V [B, S, H*D] with symbolic batch and sequence lengths, 2 q heads over 1 kv head,
  // a past of length 1 (also symbolic) and causal masking: query i sees keys j <= i + 1.
  const int64_t B = 2, S = 2, H = 2, D = 2, P = 1, T = S + P;
  const ir::Dim b = ir::Dim::symbolic("batch"), sq = ir::Dim::symbolic("seq"), pl = ir::Dim::symbolic("past");
  auto q = Ramp(B * S * H * D, 0.7f, 0.1f), k = Ramp(B * S * D, 0.3f, 1.0f), v = Ramp(B * S * D, 1.1f, 2.0f);
  auto pk = Ramp(B * P * D, 0.9f, 0.2f), pv = Ramp(B * P * D, 0.5f, 0.7f);
  auto out = RunAttention(23,
                          {{"Q", ir::DType::F32, {B, S, H * D}, q, {b, sq, H * D}},
                           {"K", ir::DType::F32, {B, S, D}, k, {b, sq, D}},
                           {"V", ir::DType::F32, {B, S, D}, v, {b, sq, D}},
                           {"", ir::DType::F32, {}, {}},
                           {"PK", ir::DType::F32, {B, 1, P, D}, pk, {b, 1, pl, D}},
                           {"PV", ir::DType::F32, {B, 1, P, D}, pv, {b, 1, pl, D}}},
                          {IntAttr("is_causal", 1), IntAttr("q_num_heads", H), IntAttr("kv_num_heads", 1)},
                          {"o0", "o1"});
  ASSERT_EQ(out.size(), 2u);
  ASSERT_EQ(out[0].tensor().shape, (Ints{B, S, H * D}));
  ASSERT_EQ(out[1].tensor().shape, (Ints{B, 1, T, D}));
  // The same problem in 4-D layout, by hand: Q4[b,h,i,:] = Q[b,i,h*D:(h+1)*D]; K4/V4 = past ++ new,
  // repeated over the 2 q heads.
  std::vector<float> q4, k4, v4;
  for (int64_t bb = 0; bb < B; ++bb)
    for (int64_t h = 0; h < H; ++h) {
      for (int64_t i = 0; i < S; ++i)
        for (int64_t d = 0; d < D; ++d) q4.push_back(q[(bb * S + i) * H * D + h * D + d]);
      for (int64_t j = 0; j < T; ++j)
        for (int64_t d = 0; d < D; ++d) {
          k4.push_back(j < P ? pk[(bb * P + j) * D + d] : k[(bb * S + j - P) * D + d]);
          v4.push_back(j < P ? pv[(bb * P + j) * D + d] : v[(bb * S + j - P) * D + d]);
        }
    }
  auto keep = [&](int64_t, int64_t, int64_t i, int64_t j) { return j <= i + P; };
  std::vector<float> y4 = Reference(q4, k4, v4, B, H, S, T, D, keep), want;
  for (int64_t bb = 0; bb < B; ++bb)  // back to [B, S, H*D]
    for (int64_t i = 0; i < S; ++i)
      for (int64_t h = 0; h < H; ++h)
        for (int64_t d = 0; d < D; ++d) want.push_back(y4[((bb * H + h) * S + i) * D + d]);
  ExpectNear(Floats(out[0]), want);
}

TEST(LowerAttention, ThreeDWithoutHeadCountsIsInvalid) {
  onnx::OnnxModel m;
  m.ir_version = 10;
  m.opsets[""] = 23;
  onnx::OnnxNode n;
  n.op_type = "Attention";
  for (const char* name : {"Q", "K", "V"}) {
    n.inputs.push_back(name);
    m.graph.inputs.push_back({name, ir::Type::tensor(ir::DType::F32, ir::static_shape({1, 2, 4}))});
  }
  n.outputs.push_back("Y");
  m.graph.outputs.push_back({"Y", std::nullopt});
  m.graph.nodes.push_back(n);
  auto g = lower::lower_model(m, rt::RefEvaluator());
  ASSERT_FALSE(g.has_value());
  EXPECT_NE(g.status().to_string().find("q_num_heads"), std::string::npos) << g.status().to_string();
}

}  // namespace
}  // namespace plumb
