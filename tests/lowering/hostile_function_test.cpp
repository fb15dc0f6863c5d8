// Model-local function calls from a hostile model (issue 23, tests/cli/hostile.sh): a function
// that calls itself, directly or through another, recursed in the lowering until the stack
// overflowed (the call depth was passed per node list and so never grew past 1); a chain of calls
// deeper than 32 is refused; one of 32 lowers and runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/ref_evaluator.h"
#include "tests/lowering/multi_node.h"

namespace plumb::testing {
namespace {

// f0 calls f1 ... calls f<n-1>; the last calls f<last> (a cycle) or, when last < 0, is a Relu.
MultiNode Chain(int n, int last) {
  MultiNode mn(17);
  mn.m.opsets["local"] = 1;
  for (int i = 0; i < n; ++i) {
    onnx::OnnxFunction f;
    f.name = "f" + std::to_string(i);
    f.domain = "local";
    f.inputs = {"a"};
    f.outputs = {"b"};
    f.opsets = {{"", 17}, {"local", 1}};
    const int callee = i + 1 < n ? i + 1 : last;
    onnx::OnnxNode call = Node(callee < 0 ? "Relu" : "f" + std::to_string(callee), {"a"}, {"b"});
    if (callee >= 0) call.domain = "local";
    f.nodes.push_back(call);
    EXPECT_TRUE(mn.m.add_function(f));
  }
  mn.Input("x", ir::DType::F32, {2}, {-1, 2});
  onnx::OnnxNode call = Node("f0", {"x"}, {"y"});
  call.domain = "local";
  mn.Add(call);
  mn.Output("y");
  return mn;
}

std::string LowerError(const MultiNode& mn) {
  auto g = lower::lower_model(mn.m, rt::RefEvaluator());
  return g ? std::string("lowered") : g.status().to_string();
}

TEST(HostileFunction, RecursionIsAnError) {
  EXPECT_EQ(LowerError(Chain(1, 0)),
            "node 'f0_b' (local.f0-1): function local.f0 calls itself (local.f0 -> local.f0)");
  EXPECT_EQ(LowerError(Chain(3, 1)),
            "node 'f1_b' (local.f1-1): function local.f1 calls itself (local.f0 -> local.f1 -> local.f2 -> "
            "local.f1)");
}

TEST(HostileFunction, CallsNestAtMost32Deep) {
  EXPECT_EQ(LowerError(Chain(33, -1)),
            "node 'f32_b' (local.f32-1): model-local function calls nested deeper than 32");
  MultiNode ok = Chain(32, -1);
  std::vector<rt::RtValue> outs;
  ASSERT_TRUE(ok.Run(&outs).is_ok());
  ASSERT_EQ(outs.size(), 1u);
  EXPECT_EQ(Values(outs[0]), (std::vector<double>{0, 2}));
}

}  // namespace
}  // namespace plumb::testing
