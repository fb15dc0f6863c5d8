// The shared one-node harness itself (tests/lowering/one_node.h): an initializer input and a
// graph input of another dtype reach the rule with their values.
#include "tests/lowering/one_node.h"

namespace plumb::testing {
namespace {

TEST(OneNodeHarness, ConstantAndGraphInputs) {
  auto out = RunOneNode("Add", 14, {{{2}, {1.5, -2}}, {{2}, {0.25, 4}, ir::DType::F32, true}}, {}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {1.75, 2});
}

TEST(OneNodeHarness, IntegerDtypes) {
  auto out = RunOneNode("Mul", 14,
                        {{{3}, {2, -3, 7}, ir::DType::I64}, {{3}, {5, 5, -1}, ir::DType::I64, true}}, {}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Values(out[0]), (std::vector<double>{10, -15, -7}));
}

}  // namespace
}  // namespace plumb::testing
