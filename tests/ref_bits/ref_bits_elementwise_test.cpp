// ref's vectorized elementwise, cast, pool, reduce and layout kernels (issue 17: one SIMD loop per
// kind, rows of windows in lanes, merged dims) against the kernels they replaced
// (tests/ref_baseline), at 1, 2 and 3 threads: lengths off every vector width, inf/NaN/-0/subnormal
// operands, windows over padding, every reduce axes pattern. One changed bit anywhere fails,
// except in a NaN's payload, which the spec leaves open (spec/numerics.md).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "runtime/cpu/ref/philox.h"
#include "tests/ref_bits/ref_bits_util.h"

namespace plumb::rt {
namespace {

using namespace ref_bits;

Tensor bool_tensor(Ints shape, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Tensor t = Tensor::allocate(ir::DType::Bool, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.as<bool>()[i] = (rng() & 1) != 0;
  return t;
}

Tensor ints(const Ints& v) {
  return testing::make_tensor<int64_t>({static_cast<int64_t>(v.size())}, v, ir::DType::I64);
}

std::string name_of(const std::string& op, ir::DType dt, bool specials) {
  return op + " " + std::string(ir::dtype_name(dt)) + (specials ? " with specials" : "");
}

// Lengths around the vector widths (4 and 8 lanes) and the 64K-element thread ranges.
const Ints kShapes[] = {{1}, {7}, {3, 1001}, {2, 65537}};

TEST(RefBits, UnaryEqualsBaseline) {
  const ir::UnaryKind kinds[] = {ir::UnaryKind::Neg,   ir::UnaryKind::Abs,  ir::UnaryKind::Sign,
                                 ir::UnaryKind::Floor, ir::UnaryKind::Ceil, ir::UnaryKind::Round,
                                 ir::UnaryKind::Sqrt,  ir::UnaryKind::Exp,  ir::UnaryKind::Tanh};
  uint64_t seed = 7000;
  for (ir::UnaryKind kind : kinds)
    for (const Ints& shape : kShapes)
      for (ir::DType dt : {ir::DType::F32, ir::DType::F64, ir::DType::F16})
        for (bool specials : {false, true}) {
          KernelRun run(ir::Op::Unary);
          run.attr("kind", ir::EnumValue{kind}).input(random_tensor(dt, shape, seed++, specials));
          expect_same_bits(run, ir::Op::Unary,
                           name_of("unary " + std::to_string(static_cast<int>(kind)), dt, specials));
        }
}

TEST(RefBits, CompareEqualsBaseline) {
  const ir::CompareKind kinds[] = {ir::CompareKind::Eq, ir::CompareKind::Ne, ir::CompareKind::Lt,
                                   ir::CompareKind::Le, ir::CompareKind::Gt, ir::CompareKind::Ge};
  uint64_t seed = 8000;
  for (ir::CompareKind kind : kinds)
    for (const Ints& shape : {Ints{7}, Ints{3, 1001}})
      for (ir::DType dt :
           {ir::DType::F32, ir::DType::F64, ir::DType::F16, ir::DType::I8, ir::DType::I64, ir::DType::U32})
        for (bool specials : {false, true}) {
          // Equal operands often enough: b is a, with every third element from another draw.
          Tensor a = random_tensor(dt, shape, seed, specials),
                 b = random_tensor(dt, shape, seed + 1, specials);
          const int64_t bytes = static_cast<int64_t>(a.nbytes() / static_cast<size_t>(a.numel()));
          for (int64_t i = 0; i < a.numel(); ++i)
            if (i % 3 != 0)
              std::memcpy(static_cast<char*>(b.data) + i * bytes, static_cast<char*>(a.data) + i * bytes,
                          static_cast<size_t>(bytes));
          seed += 2;
          KernelRun run(ir::Op::Compare);
          run.attr("kind", ir::EnumValue{kind}).input(std::move(a)).input(std::move(b));
          expect_same_bits(run, ir::Op::Compare,
                           name_of("compare " + std::to_string(static_cast<int>(kind)), dt, specials));
        }
}

TEST(RefBits, SelectEqualsBaseline) {
  uint64_t seed = 9000;
  for (const Ints& shape : kShapes)
    for (ir::DType dt : {ir::DType::F32, ir::DType::F64, ir::DType::F16, ir::DType::I8, ir::DType::I16,
                         ir::DType::I64, ir::DType::Bool}) {
      KernelRun run(ir::Op::Select);
      run.input(bool_tensor(shape, seed));
      if (dt == ir::DType::Bool)
        run.input(bool_tensor(shape, seed + 1)).input(bool_tensor(shape, seed + 2));
      else
        run.input(random_tensor(dt, shape, seed + 1, true)).input(random_tensor(dt, shape, seed + 2, true));
      seed += 3;
      expect_same_bits(run, ir::Op::Select, name_of("select", dt, true));
    }
}

TEST(RefBits, CastEqualsBaseline) {
  struct Pair {
    ir::DType from, to;
  };
  const Pair pairs[] = {
      {ir::DType::F32, ir::DType::F64},  {ir::DType::F64, ir::DType::F32}, {ir::DType::U32, ir::DType::F64},
      {ir::DType::I32, ir::DType::F64},  {ir::DType::I16, ir::DType::F32}, {ir::DType::U8, ir::DType::F32},
      {ir::DType::I8, ir::DType::F64},   {ir::DType::U16, ir::DType::F64}, {ir::DType::Bool, ir::DType::F32},
      {ir::DType::Bool, ir::DType::F64}, {ir::DType::I64, ir::DType::F64}, {ir::DType::I32, ir::DType::F32},
      {ir::DType::F64, ir::DType::F16},  {ir::DType::F32, ir::DType::F32}, {ir::DType::F64, ir::DType::F64}};
  uint64_t seed = 10000;
  for (const Pair& p : pairs)
    for (const Ints& shape : kShapes)
      for (bool specials : {false, true}) {
        KernelRun run(ir::Op::Cast);
        run.attr("to", p.to)
            .attr("saturate", false)
            .attr("round", ir::EnumValue{ir::RoundMode::NearestEven})
            .input(p.from == ir::DType::Bool ? bool_tensor(shape, seed)
                                             : random_tensor(p.from, shape, seed, specials));
        ++seed;
        expect_same_bits(run, ir::Op::Cast,
                         name_of("cast to " + std::string(ir::dtype_name(p.to)), p.from, specials));
      }
}

struct PoolCase {
  Ints input, window, strides, dilations, pads_low, pads_high;
};

TEST(RefBits, PoolEqualsBaseline) {
  const std::vector<PoolCase> cases = {
      {{1, 3, 17, 19}, {1, 1, 3, 3}, {1, 1, 2, 2}, {1, 1, 1, 1}, {0, 0, 1, 1}, {0, 0, 1, 1}},  // resnet's
      {{2, 4, 9, 40}, {1, 1, 2, 5}, {1, 1, 1, 1}, {1, 1, 1, 2}, {0, 0, 0, 3}, {0, 0, 1, 3}},
      {{3, 33}, {1, 4}, {1, 3}, {1, 1}, {0, 2}, {0, 2}},
      {{1, 2, 5, 6, 7}, {1, 1, 2, 3, 2}, {1, 1, 1, 2, 1}, {1, 1, 2, 1, 3}, {0, 0, 1, 1, 2}, {0, 0, 0, 1, 1}},
      {{1, 5, 7, 7}, {1, 3, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}, {0, 1, 0, 0}, {0, 1, 0, 0}},    // across
                                                                                               // channels
      {{1, 1, 4, 4}, {1, 1, 9, 9}, {1, 1, 1, 1}, {1, 1, 1, 1}, {0, 0, 4, 4}, {0, 0, 4, 4}},    // over padding
      {{1, 2, 3, 3}, {1, 1, 1, 40}, {1, 1, 1, 1}, {1, 1, 1, 1}, {0, 0, 0, 38}, {0, 0, 0, 2}},  // padding only
      {{2, 3, 56, 56}, {1, 1, 3, 3}, {1, 1, 1, 1}, {1, 1, 1, 1}, {0, 0, 1, 1}, {0, 0, 1, 1}}};
  uint64_t seed = 11000;
  for (const PoolCase& c : cases)
    for (ir::PoolKind kind : {ir::PoolKind::Max, ir::PoolKind::Sum})
      for (ir::DType dt : {ir::DType::F32, ir::DType::F64, ir::DType::F16, ir::DType::I32, ir::DType::I8})
        for (bool specials : {false, true}) {
          KernelRun run(ir::Op::Pool);
          run.attr("kind", ir::EnumValue{kind})
              .attr("window", c.window)
              .attr("strides", c.strides)
              .attr("dilations", c.dilations)
              .attr("pads_low", c.pads_low)
              .attr("pads_high", c.pads_high)
              .input(random_tensor(dt, c.input, seed++, specials));
          std::string what = kind == ir::PoolKind::Max ? "pool max" : "pool sum";
          for (int64_t d : c.input) what += " " + std::to_string(d);
          expect_same_bits(run, ir::Op::Pool, name_of(what, dt, specials));
        }
}

TEST(RefBits, ReduceEqualsBaseline) {
  const Ints shape = {3, 5, 7, 9};
  const std::vector<Ints> axes = {{}, {0}, {3}, {1, 2}, {0, 2}, {1, 3}, {2, 3}, {0, 1, 2, 3}};
  const ir::ReduceKind kinds[] = {ir::ReduceKind::Sum, ir::ReduceKind::Prod, ir::ReduceKind::Max,
                                  ir::ReduceKind::Min};
  uint64_t seed = 12000;
  for (const Ints& a : axes)
    for (ir::ReduceKind kind : kinds)
      for (ir::DType dt : {ir::DType::F32, ir::DType::F64, ir::DType::F16, ir::DType::I32, ir::DType::U8})
        for (bool specials : {false, true}) {
          KernelRun run(ir::Op::Reduce);
          run.attr("kind", ir::EnumValue{kind})
              .attr("axes", a)
              .input(random_tensor(dt, shape, seed++, specials));
          std::string what = "reduce " + std::to_string(static_cast<int>(kind)) + " axes";
          for (int64_t d : a) what += " " + std::to_string(d);
          expect_same_bits(run, ir::Op::Reduce, name_of(what, dt, specials));
        }
  KernelRun empty(ir::Op::Reduce);  // an empty operand: the identity (a float sum: +0)
  empty.attr("kind", ir::EnumValue{ir::ReduceKind::Sum})
      .attr("axes", Ints{1})
      .input(random_tensor(ir::DType::F32, {4, 0}, 1, false));
  expect_same_bits(empty, ir::Op::Reduce, "reduce sum of an empty axis");
}

TEST(RefBits, LayoutEqualsBaseline) {
  uint64_t seed = 13000;
  for (ir::DType dt : {ir::DType::F32, ir::DType::F64, ir::DType::I8, ir::DType::I64}) {
    {
      KernelRun run(ir::Op::Broadcast);  // a bias over the channels
      run.attr("dims", Ints{1}).input(random_tensor(dt, {32}, seed++, true)).input(ints({1, 32, 7, 9}));
      expect_same_bits(run, ir::Op::Broadcast, name_of("broadcast channels", dt, true));
    }
    {
      KernelRun run(ir::Op::Broadcast);  // a scalar
      run.attr("dims", Ints{}).input(random_tensor(dt, {}, seed++, true)).input(ints({4, 33}));
      expect_same_bits(run, ir::Op::Broadcast, name_of("broadcast scalar", dt, true));
    }
    {
      KernelRun run(ir::Op::Broadcast);  // repeated inner and outer dims, a moved dim
      run.attr("dims", Ints{0, 2, 3})
          .input(random_tensor(dt, {3, 1, 5}, seed++, true))
          .input(ints({3, 2, 4, 5}));
      expect_same_bits(run, ir::Op::Broadcast, name_of("broadcast 3,1,5", dt, true));
    }
    for (const Ints& perm : {Ints{0, 2, 3, 1}, Ints{3, 2, 1, 0}, Ints{0, 1, 3, 2}, Ints{1, 0, 2, 3}}) {
      KernelRun run(ir::Op::Transpose);
      run.attr("perm", perm).input(random_tensor(dt, {2, 3, 4, 5}, seed++, true));
      expect_same_bits(run, ir::Op::Transpose, name_of("transpose", dt, true));
    }
    {
      KernelRun run(ir::Op::Slice);  // negative and unit strides, a dim of size 1
      run.input(random_tensor(dt, {4, 6, 10}, seed++, true))
          .input(ints({3, 1, 2}))
          .input(ints({2, 1, 4}))
          .input(ints({-2, 1, 2}));
      expect_same_bits(run, ir::Op::Slice, name_of("slice", dt, true));
    }
    {
      KernelRun run(ir::Op::Concat);
      run.attr("axis", int64_t{1})
          .input(random_tensor(dt, {2, 3, 5}, seed, true))
          .input(random_tensor(dt, {2, 1, 5}, seed + 1, true))
          .input(random_tensor(dt, {2, 4, 5}, seed + 2, true));
      seed += 3;
      expect_same_bits(run, ir::Op::Concat, name_of("concat", dt, true));
    }
    {
      KernelRun run(ir::Op::Reshape);
      run.input(random_tensor(dt, {6, 35}, seed++, true)).input(ints({5, 42}));
      expect_same_bits(run, ir::Op::Reshape, name_of("reshape", dt, true));
    }
  }
}

// rng's blocks in SIMD lanes and on threads: word k mod 4 of block k / 4 (spec/ops/rng.md), the
// last block partial or not.
TEST(RefBits, RngIsPhiloxPerBlock) {
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{3}, int64_t{4}, int64_t{37}, int64_t{4 * 16384 + 2},
                    int64_t{4 * 65536}})
    for (int threads : {1, 2, 3}) {
      KernelRun run(ir::Op::Rng);
      run.attr("algorithm", ir::EnumValue{ir::RngAlgorithm::Philox4x32x10})
          .attr("seed", int64_t{0x123456789})
          .attr("stream", int64_t{77})
          .threads(threads)
          .input(ints({n}));
      const KernelResult got = run.run();
      ASSERT_TRUE(got.status.is_ok()) << got.status.to_string();
      const uint32_t* w = got.out(0).as<uint32_t>();
      for (int64_t k = 0; k < n; ++k)
        ASSERT_EQ(w[k], rng_block(static_cast<uint64_t>(k / 4), 0x123456789, 77)[static_cast<size_t>(k % 4)])
            << "element " << k << " of " << n << " at " << threads << " threads";
    }
}

}  // namespace
}  // namespace plumb::rt
