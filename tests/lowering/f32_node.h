// Shared by the lowering tests that state f32 cases: inputs as float lists, one_node.h's harness to
// run them, and the outputs read back as floats or int64s.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/lowering/one_node.h"

namespace plumb::testing::f32 {

struct Input {
  Ints shape;
  std::vector<float> data;
};

// Runs a one-node f32 model (inputs named i0, i1, ..., outputs o0, o1, ...).
inline std::vector<rt::RtValue> RunNode(const std::string& op, int64_t opset,
                                        const std::vector<Input>& inputs,
                                        std::vector<onnx::OnnxAttribute> attrs, size_t num_outputs) {
  std::vector<NodeInput> in;
  for (const Input& x : inputs) in.push_back({x.shape, std::vector<double>(x.data.begin(), x.data.end())});
  return RunOneNode(op, opset, in, std::move(attrs), num_outputs);
}

inline std::vector<float> Floats(const rt::RtValue& v) {
  const rt::Tensor& t = v.tensor();
  return std::vector<float>(t.as<float>(), t.as<float>() + t.numel());
}

inline std::vector<int64_t> I64s(const rt::RtValue& v) {
  const rt::Tensor& t = v.tensor();
  return std::vector<int64_t>(t.as<int64_t>(), t.as<int64_t>() + t.numel());
}

}  // namespace plumb::testing::f32
