// Shared by the control-flow and sequence lowering tests: a small multi-node ONNX graph built by
// hand (graph inputs fed with numeric data, initializers, nodes with subgraph attributes), lowered
// and run on ref.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "runtime/ref_evaluator.h"
#include "tests/lowering/one_node.h"

namespace plumb::testing {

inline onnx::OnnxNode Node(const std::string& op, std::vector<std::string> ins, std::vector<std::string> outs,
                           std::vector<onnx::OnnxAttribute> attrs = {}) {
  onnx::OnnxNode n;
  n.op_type = op;
  n.name = op + "_" + outs[0];
  n.inputs = std::move(ins);
  n.outputs = std::move(outs);
  n.attributes = std::move(attrs);
  return n;
}

struct MultiNode {
  onnx::OnnxModel m;
  std::vector<rt::RtValue> feeds;

  explicit MultiNode(int64_t opset) {
    m.ir_version = 8;
    m.opsets[""] = opset;
  }
  void Input(const std::string& name, ir::DType dt, const Ints& shape, const std::vector<double>& data) {
    m.graph.inputs.push_back({name, ir::Type::tensor(dt, ir::static_shape(shape))});
    feeds.push_back(MakeTensor(dt, shape, data));
  }
  void Const(const std::string& name, ir::DType dt, const Ints& shape, const std::vector<double>& data) {
    rt::Tensor v = MakeTensor(dt, shape, data);
    const auto* p = static_cast<const uint8_t*>(v.data);
    m.graph.initializers.push_back(
        onnx::Tensor::owned(name, dt, shape, std::vector<uint8_t>(p, p + v.nbytes())));
  }
  void Add(onnx::OnnxNode n) { m.graph.nodes.push_back(std::move(n)); }
  void Output(const std::string& name) { m.graph.outputs.push_back({name, std::nullopt}); }

  // Lowers and runs; the run's status (lowering failures are test failures).
  Status Run(std::vector<rt::RtValue>* outs) {
    auto g = lower::lower_model(m, rt::RefEvaluator());
    EXPECT_TRUE(g.has_value()) << g.status().to_string();
    if (!g.has_value()) return g.status();
    auto s = rt::Session::create(std::move(*g));
    EXPECT_TRUE(s.has_value()) << s.status().to_string();
    if (!s.has_value()) return s.status();
    for (size_t k = 0; k < feeds.size(); ++k) EXPECT_TRUE((*s)->set_input(k, feeds[k]).is_ok());
    Status st = (*s)->run();
    if (st.is_ok()) *outs = (*s)->outputs();
    return st;
  }
  std::vector<rt::RtValue> RunOk() {
    std::vector<rt::RtValue> outs;
    Status st = Run(&outs);
    EXPECT_TRUE(st.is_ok()) << st.to_string();
    return outs;
  }
};

inline onnx::OnnxAttribute GraphAttr(const std::string& name, onnx::OnnxGraph g) {
  onnx::OnnxAttribute a;
  a.name = name;
  a.type = onnx::AttrType::Graph;
  a.g = std::make_shared<const onnx::OnnxGraph>(std::move(g));
  return a;
}

inline Ints Shape(const rt::RtValue& v) { return v.tensor().shape; }

}  // namespace plumb::testing
