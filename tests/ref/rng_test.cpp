// rng (runtime/cpu/ref/rng.cpp, spec/ops/rng.md): Philox4x32-10 against the Random123 known
// answers, and the counter layout of the op (expected words computed with an independent Python
// implementation checked against the same known answers).
#include "runtime/cpu/ref/philox.h"
#include "tests/ref/kernel_test_util.h"

namespace plumb::rt::testing {
namespace {

// Random123 kat_vectors, the three "philox4x32 10" lines.
TEST(RefRng, PhiloxKnownAnswers) {
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (PhiloxCounter{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
            (PhiloxCounter{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
            (PhiloxCounter{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

KernelResult rng(int64_t seed, int64_t stream, std::vector<int64_t> shape) {
  const int64_t n = static_cast<int64_t>(shape.size());
  return KernelRun(ir::Op::Rng)
      .attr("algorithm", ir::EnumValue{ir::RngAlgorithm::Philox4x32x10})
      .attr("seed", seed)
      .attr("stream", stream)
      .input(make_tensor<int64_t>({n}, shape))
      .run();
}

TEST(RefRng, SeedZeroStreamZeroIsTheZeroKnownAnswer) {
  auto r = rng(0, 0, {2, 2});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<uint32_t>(r.out(0)),
            (std::vector<uint32_t>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
}

TEST(RefRng, CounterIsPositionOverFourAndStream) {
  // seed 0x123456789, stream -2 (u64 0xfffffffffffffffe): blocks 0 and 1, 6 words
  auto r = rng(0x123456789, -2, {2, 3});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<uint32_t>(r.out(0)),
            (std::vector<uint32_t>{0x3eaecb8b, 0x88f2c88b, 0xfe5dc770, 0xcaea74a9, 0xb983a6ec, 0x773b038f}));
  r = rng(7, 3, {});  // rank 0: word 0 of block 0
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<uint32_t>(r.out(0)), (std::vector<uint32_t>{0x97b356d9}));
}

TEST(RefRng, DeterministicAndStreamsDiffer) {
  auto a = rng(42, 1, {8}), b = rng(42, 1, {8}), c = rng(42, 2, {8});
  ASSERT_TRUE(a.status.is_ok() && b.status.is_ok() && c.status.is_ok());
  EXPECT_EQ(values<uint32_t>(a.out(0)), values<uint32_t>(b.out(0)));
  EXPECT_NE(values<uint32_t>(a.out(0)), values<uint32_t>(c.out(0)));
  // a prefix of a longer result: position k depends on k only, not on the shape
  auto d = rng(42, 1, {2, 4});
  ASSERT_TRUE(d.status.is_ok());
  EXPECT_EQ(values<uint32_t>(d.out(0)), values<uint32_t>(a.out(0)));
}

TEST(RefRng, Empty) {
  auto r = rng(1, 1, {3, 0});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{3, 0}));
}

TEST(RefRng, R1InvalidShape) {
  EXPECT_EQ(rng(1, 1, {-1}).status.label(), "rng.R1");
  EXPECT_EQ(rng(1, 1, {int64_t{1} << 30, int64_t{1} << 30}).status.label(), "rng.R1");
}

}  // namespace
}  // namespace plumb::rt::testing
