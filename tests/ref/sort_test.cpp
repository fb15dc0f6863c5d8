// ref kernel sort (spec/ops/sort.md): stability, the float total order, strings, empty tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tests/ref/kernel_test_util.h"

namespace plumb::rt {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

KernelResult sort(int64_t axis, bool descending, Tensor operand) {
  return KernelRun(ir::Op::Sort)
      .attr("axis", axis)
      .attr("descending", descending)
      .input(std::move(operand))
      .run();
}

#define ASSERT_OK(r) ASSERT_TRUE((r).status.is_ok()) << (r).status.to_string()

TEST(RefSort, AscendingAndDescendingWithIndices) {
  const auto x = make_tensor<int32_t>({5}, {3, -1, 4, 1, 5});
  auto up = sort(0, false, x);
  ASSERT_OK(up);
  EXPECT_EQ(values<int32_t>(up.out(0)), (std::vector<int32_t>{-1, 1, 3, 4, 5}));
  EXPECT_EQ(values<int64_t>(up.out(1)), (std::vector<int64_t>{1, 3, 0, 2, 4}));
  auto down = sort(0, true, x);
  ASSERT_OK(down);
  EXPECT_EQ(values<int32_t>(down.out(0)), (std::vector<int32_t>{5, 4, 3, 1, -1}));
  EXPECT_EQ(values<int64_t>(down.out(1)), (std::vector<int64_t>{4, 2, 0, 3, 1}));
}

TEST(RefSort, StableTiesKeepOriginalOrderBothWays) {
  const auto x = make_tensor<float>({4}, {1, 3, 3, 1});
  auto up = sort(0, false, x);
  ASSERT_OK(up);
  EXPECT_EQ(values<int64_t>(up.out(1)), (std::vector<int64_t>{0, 3, 1, 2}));
  auto down = sort(0, true, x);  // lowest index first among ties, as TopK needs
  ASSERT_OK(down);
  EXPECT_EQ(values<float>(down.out(0)), (std::vector<float>{3, 3, 1, 1}));
  EXPECT_EQ(values<int64_t>(down.out(1)), (std::vector<int64_t>{1, 2, 0, 3}));
}

TEST(RefSort, FloatTotalOrderNaNLargestZerosEqual) {
  const auto x = make_tensor<float>({6}, {0.0f, -0.0f, -kInf, kNaN, 1, kInf});
  auto up = sort(0, false, x);
  ASSERT_OK(up);
  EXPECT_EQ(values<int64_t>(up.out(1)), (std::vector<int64_t>{2, 0, 1, 4, 5, 3}));
  const auto v = values<float>(up.out(0));
  EXPECT_FALSE(std::signbit(v[1]));  // +0 first: -0 and +0 are equal and keep their order
  EXPECT_TRUE(std::signbit(v[2]));
  EXPECT_TRUE(std::isnan(v[5]));
  auto down = sort(0, true, x);
  ASSERT_OK(down);
  EXPECT_EQ(values<int64_t>(down.out(1)), (std::vector<int64_t>{3, 5, 4, 0, 1, 2}));
}

TEST(RefSort, F16ByValueNotBits) {
  // -2 (0xC000) < -1 (0xBC00) < 0.5 (0x3800) < NaN (0x7E00); bit patterns would order them wrongly
  auto r = sort(0, false, make_tensor<uint16_t>({4}, {0x7E00, 0xBC00, 0x3800, 0xC000}, ir::DType::F16));
  ASSERT_OK(r);
  EXPECT_EQ(values<uint16_t>(r.out(0)), (std::vector<uint16_t>{0xC000, 0xBC00, 0x3800, 0x7E00}));
  EXPECT_EQ(values<int64_t>(r.out(1)), (std::vector<int64_t>{3, 1, 2, 0}));
}

TEST(RefSort, AlongAxisZeroOfMatrix) {
  auto r = sort(0, false, make_tensor<int64_t>({3, 2}, {5, 0, 1, 2, 3, 1}));
  ASSERT_OK(r);
  EXPECT_EQ(values<int64_t>(r.out(0)), (std::vector<int64_t>{1, 0, 3, 1, 5, 2}));
  EXPECT_EQ(values<int64_t>(r.out(1)), (std::vector<int64_t>{1, 0, 2, 2, 0, 1}));
}

TEST(RefSort, StringsBytewiseUnsigned) {
  auto r = sort(0, false, make_tensor<std::string>({5}, {"b", "a", "B", "\xff", "ab"}));
  ASSERT_OK(r);
  EXPECT_EQ(values<std::string>(r.out(0)), (std::vector<std::string>{"B", "a", "ab", "b", "\xff"}));
  EXPECT_EQ(values<int64_t>(r.out(1)), (std::vector<int64_t>{2, 1, 4, 0, 3}));
}

TEST(RefSort, BoolsAndUnsigned) {
  auto b = sort(0, true, make_tensor<uint8_t>({3}, {0, 1, 0}, ir::DType::Bool));
  ASSERT_OK(b);
  EXPECT_EQ(values<bool>(b.out(0)), (std::vector<bool>{true, false, false}));
  EXPECT_EQ(values<int64_t>(b.out(1)), (std::vector<int64_t>{1, 0, 2}));
  auto u = sort(0, false, make_tensor<uint64_t>({2}, {UINT64_MAX, 1}));
  ASSERT_OK(u);
  EXPECT_EQ(values<uint64_t>(u.out(0)), (std::vector<uint64_t>{1, UINT64_MAX}));
}

TEST(RefSort, EmptyTensors) {
  for (std::vector<int64_t> shape : {std::vector<int64_t>{0}, {2, 0}, {0, 3}}) {
    auto r = sort(static_cast<int64_t>(shape.size()) - 1, false, make_tensor<float>(shape, {}));
    ASSERT_OK(r);
    EXPECT_EQ(r.out(0).shape, shape);
    EXPECT_EQ(r.out(1).shape, shape);
  }
}

}  // namespace
}  // namespace plumb::rt
