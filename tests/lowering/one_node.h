// Shared by the lowering tests: build a one-node ONNX model by hand, lower it, run it on ref.
// Inputs are named i0, i1, ...; outputs o0, o1, ...  RunModel runs any hand-built model on
// runtime values of every kind (string tensors, maps, sequences, optionals).  Values go in and come out as
// doubles so that a test states expected numbers once whatever the dtype (every value a test uses is exact in
// it).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "frontends/onnx/model.h"
#include "lowering/onnx/driver.h"
#include "runtime/ref_evaluator.h"
#include "runtime/session.h"

namespace plumb::testing {

using Ints = std::vector<int64_t>;

// An attribute `name` of `type` whose value is `v`, stored in `field`.
template <typename V>
onnx::OnnxAttribute OnnxAttr(const std::string& name, onnx::AttrType type, V onnx::OnnxAttribute::*field,
                             V v) {
  onnx::OnnxAttribute a;
  a.name = name;
  a.type = type;
  a.*field = std::move(v);
  return a;
}
inline onnx::OnnxAttribute IntsAttr(const std::string& name, Ints v) {
  return OnnxAttr(name, onnx::AttrType::Ints, &onnx::OnnxAttribute::ints, std::move(v));
}
inline onnx::OnnxAttribute IntAttr(const std::string& name, int64_t v) {
  return OnnxAttr(name, onnx::AttrType::Int, &onnx::OnnxAttribute::i, v);
}
inline onnx::OnnxAttribute FloatAttr(const std::string& name, float v) {
  return OnnxAttr(name, onnx::AttrType::Float, &onnx::OnnxAttribute::f, v);
}
inline onnx::OnnxAttribute FloatsAttr(const std::string& name, std::vector<float> v) {
  return OnnxAttr(name, onnx::AttrType::Floats, &onnx::OnnxAttribute::floats, std::move(v));
}
inline onnx::OnnxAttribute StrAttr(const std::string& name, std::string v) {
  return OnnxAttr(name, onnx::AttrType::String, &onnx::OnnxAttribute::s, std::move(v));
}
inline onnx::OnnxAttribute StrsAttr(const std::string& name, std::vector<std::string> v) {
  return OnnxAttr(name, onnx::AttrType::Strings, &onnx::OnnxAttribute::strings, std::move(v));
}
inline onnx::OnnxAttribute TensorAttr(const std::string& name, onnx::Tensor t) {
  return OnnxAttr(name, onnx::AttrType::Tensor, &onnx::OnnxAttribute::t, std::move(t));
}

struct NodeInput {
  Ints shape;
  std::vector<double> data;
  ir::DType dtype = ir::DType::F32;
  bool constant = false;  // given as an initializer instead of a graph input
};

// Writes `data` into a tensor of `dtype` (the numeric dtypes tests use).
inline rt::Tensor MakeTensor(ir::DType dtype, const Ints& shape, const std::vector<double>& data) {
  rt::Tensor t = rt::Tensor::allocate(dtype, shape);
  EXPECT_EQ(static_cast<int64_t>(data.size()), t.numel());
  for (size_t k = 0; k < data.size() && static_cast<int64_t>(k) < t.numel(); ++k) {
    switch (dtype) {
      case ir::DType::F32: t.as<float>()[k] = static_cast<float>(data[k]); break;
      case ir::DType::F64: t.as<double>()[k] = data[k]; break;
      case ir::DType::I64: t.as<int64_t>()[k] = static_cast<int64_t>(data[k]); break;
      case ir::DType::I32: t.as<int32_t>()[k] = static_cast<int32_t>(data[k]); break;
      case ir::DType::I8: t.as<int8_t>()[k] = static_cast<int8_t>(data[k]); break;
      case ir::DType::U8: t.as<uint8_t>()[k] = static_cast<uint8_t>(data[k]); break;
      case ir::DType::Bool: t.as<uint8_t>()[k] = data[k] != 0; break;
      default: ADD_FAILURE() << "MakeTensor: unsupported dtype in tests"; return t;
    }
  }
  return t;
}

// Reads any numeric tensor of the dtypes above back as doubles.
inline std::vector<double> Values(const rt::RtValue& v) {
  const rt::Tensor& t = v.tensor();
  std::vector<double> out(static_cast<size_t>(t.numel()));
  for (size_t k = 0; k < out.size(); ++k) {
    switch (t.dtype) {
      case ir::DType::F32: out[k] = t.as<float>()[k]; break;
      case ir::DType::F64: out[k] = t.as<double>()[k]; break;
      case ir::DType::I64: out[k] = static_cast<double>(t.as<int64_t>()[k]); break;
      case ir::DType::I32: out[k] = t.as<int32_t>()[k]; break;
      case ir::DType::I8: out[k] = t.as<int8_t>()[k]; break;
      case ir::DType::U8:
      case ir::DType::Bool: out[k] = t.as<uint8_t>()[k]; break;
      default: ADD_FAILURE() << "Values: unsupported dtype in tests"; return {};
    }
  }
  return out;
}

// A string tensor and the strings of one.
inline rt::Tensor StrTensor(const Ints& shape, const std::vector<std::string>& v) {
  rt::Tensor t = rt::Tensor::allocate(ir::DType::String, shape);
  EXPECT_EQ(static_cast<int64_t>(v.size()), t.numel());
  for (size_t k = 0; k < v.size() && static_cast<int64_t>(k) < t.numel(); ++k) t.strings()[k] = v[k];
  return t;
}
inline std::vector<std::string> StrValues(const rt::RtValue& v) {
  const rt::Tensor& t = v.tensor();
  return std::vector<std::string>(t.strings(), t.strings() + t.numel());
}

// An ONNX tensor (an attribute's or an initializer's) of a MakeTensor dtype; the file layout
// equals the runtime layout for those dtypes.
inline onnx::Tensor OnnxTensor(const std::string& name, ir::DType dtype, const Ints& shape,
                               const std::vector<double>& data) {
  rt::Tensor v = MakeTensor(dtype, shape, data);
  const auto* p = static_cast<const uint8_t*>(v.data);
  return onnx::Tensor::owned(name, dtype, shape, std::vector<uint8_t>(p, p + v.nbytes()));
}
inline onnx::OnnxAttribute TensorAttr(const std::string& name, ir::DType dtype, const Ints& shape,
                                      const std::vector<double>& data) {
  return TensorAttr(name, OnnxTensor(name, dtype, shape, data));
}

// The one-node model (for tests that want to lower it themselves, e.g. to expect an error).
inline onnx::OnnxModel OneNodeModel(const std::string& op, int64_t opset,
                                    const std::vector<NodeInput>& inputs,
                                    std::vector<onnx::OnnxAttribute> attrs, size_t num_outputs,
                                    const std::string& domain = "") {
  onnx::OnnxModel m;
  m.ir_version = 8;
  m.opsets[domain] = opset;
  if (!domain.empty()) m.opsets[""] = 21;
  onnx::OnnxNode n;
  n.op_type = op;
  n.domain = domain;
  n.name = "n0";
  n.attributes = std::move(attrs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "i" + std::to_string(i);
    n.inputs.push_back(name);
    if (inputs[i].constant) {
      m.graph.initializers.push_back(OnnxTensor(name, inputs[i].dtype, inputs[i].shape, inputs[i].data));
    } else {
      m.graph.inputs.push_back({name, ir::Type::tensor(inputs[i].dtype, ir::static_shape(inputs[i].shape))});
    }
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    const std::string name = "o" + std::to_string(i);
    n.outputs.push_back(name);
    m.graph.outputs.push_back({name, std::nullopt});
  }
  m.graph.nodes.push_back(n);
  return m;
}

// Lowers a model and runs it on `inputs` (any runtime values: tensors, sequences, maps,
// optionals), bound to the graph inputs in order. Without `error` a failure is a test failure;
// with it, a lowering or run failure is stored there instead. Gives {} on failure.
inline std::vector<rt::RtValue> RunModel(const onnx::OnnxModel& m, std::vector<rt::RtValue> inputs,
                                         Status* error = nullptr) {
  auto g = lower::lower_model(m, rt::RefEvaluator());
  if (!g.has_value()) {
    if (error)
      *error = g.status();
    else
      ADD_FAILURE() << g.status().to_string();
    return {};
  }
  auto s = rt::Session::create(std::move(*g));
  EXPECT_TRUE(s.has_value()) << s.status().to_string();
  if (!s.has_value()) return {};
  for (size_t k = 0; k < inputs.size(); ++k) {
    Status in = (*s)->set_input(k, std::move(inputs[k]));
    EXPECT_TRUE(in.is_ok()) << in.to_string();
  }
  Status st = (*s)->run();
  if (error)
    *error = st;
  else
    EXPECT_TRUE(st.is_ok()) << st.to_string();
  if (!st.is_ok()) return {};
  return (*s)->outputs();
}

// Lowers and runs the one-node model; failures are test failures and give {}.
inline std::vector<rt::RtValue> RunOneNode(const std::string& op, int64_t opset,
                                           const std::vector<NodeInput>& inputs,
                                           std::vector<onnx::OnnxAttribute> attrs, size_t num_outputs,
                                           const std::string& domain = "") {
  std::vector<rt::RtValue> values;
  for (const NodeInput& in : inputs)
    if (!in.constant) values.push_back(MakeTensor(in.dtype, in.shape, in.data));
  return RunModel(OneNodeModel(op, opset, inputs, std::move(attrs), num_outputs, domain), std::move(values));
}

inline void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

}  // namespace plumb::testing
