// ref's matmul and conv (blocked, SIMD lanes, threads: issue 17) and binary (a loop per kind)
// against the kernels they replaced (tests/ref_baseline), byte for byte, at 1, 2 and 3 threads: shapes around
// every tile, k-block and work-item edge, every accumulator type, inf/NaN/-0/subnormal operands, padding and
// holes beside non-finite weights. One changed bit anywhere fails, except in a NaN's payload, which the spec
// leaves open (spec/numerics.md).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/ref_bits/ref_bits_util.h"

namespace plumb::rt {
namespace {

using namespace ref_bits;

struct MatmulCase {
  Ints batch;
  int64_t m, k, n;
};

struct Dtypes {
  ir::DType lhs, rhs, to;
};

TEST(RefBits, MatmulEqualsBaseline) {
  const std::vector<MatmulCase> shapes = {
      {{}, 1, 1, 1},     {{}, 3, 7, 5},      {{}, 4, 16, 16},    {{}, 5, 17, 33},   {{}, 1, 300, 70},
      {{}, 2, 40, 1},    {{}, 9, 0, 6},      {{}, 4, 257, 17},   {{}, 33, 513, 35}, {{3}, 37, 70, 45},
      {{2, 2}, 6, 9, 3}, {{}, 130, 64, 260}, {{}, 300, 520, 530}};
  const std::vector<Dtypes> types = {
      {ir::DType::F32, ir::DType::F32, ir::DType::F32},    {ir::DType::F64, ir::DType::F64, ir::DType::F64},
      {ir::DType::F16, ir::DType::F16, ir::DType::F32},    {ir::DType::F16, ir::DType::F16, ir::DType::F16},
      {ir::DType::BF16, ir::DType::BF16, ir::DType::BF16}, {ir::DType::I8, ir::DType::U8, ir::DType::I32},
      {ir::DType::I64, ir::DType::I64, ir::DType::I64},    {ir::DType::U32, ir::DType::I16, ir::DType::U64}};
  uint64_t seed = 1;
  for (const MatmulCase& c : shapes)
    for (const Dtypes& t : types)
      for (bool specials : {false, true}) {
        if (c.m * c.k * c.n > 1000000 && (t.lhs != ir::DType::F32 || specials)) continue;  // the big one: f32
        Ints ls = c.batch, rs = c.batch;
        ls.insert(ls.end(), {c.m, c.k});
        rs.insert(rs.end(), {c.k, c.n});
        KernelRun run(ir::Op::MatMul);
        run.attr("to", t.to)
            .input(random_tensor(t.lhs, ls, seed, specials))
            .input(random_tensor(t.rhs, rs, seed + 1, specials));
        seed += 2;
        expect_same_bits(run, ir::Op::MatMul,
                         "matmul " + std::to_string(c.m) + "x" + std::to_string(c.k) + "x" +
                             std::to_string(c.n) + " " + std::string(ir::dtype_name(t.lhs)) +
                             (specials ? " with specials" : ""));
      }
}

TEST(RefBits, MatmulPreciseModeEqualsBaseline) {
  KernelRun run(ir::Op::MatMul);
  run.attr("to", ir::DType::F64)
      .mode(NumericMode::kPrecise)
      .input(random_tensor(ir::DType::F64, {2, 70, 300}, 7, true))
      .input(random_tensor(ir::DType::F64, {2, 300, 90}, 8, true));
  expect_same_bits(run, ir::Op::MatMul, "precise matmul");
}

struct ConvCase {
  Ints input, weight, strides, dilations, lhs_dilations, pads_low, pads_high;
  int64_t groups;
};

TEST(RefBits, ConvEqualsBaseline) {
  const std::vector<ConvCase> cases = {
      {{1, 8, 13, 11}, {12, 8, 3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 1},
      {{2, 6, 17, 19}, {8, 3, 3, 2}, {2, 1}, {2, 1}, {1, 1}, {2, 0}, {1, 3}, 2},
      {{1, 16, 15, 15}, {16, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 16},
      {{1, 12, 9, 10}, {24, 1, 5, 5}, {2, 2}, {1, 1}, {1, 1}, {2, 2}, {2, 2}, 12},
      {{2, 5, 40}, {7, 5, 4}, {3}, {1}, {2}, {2}, {3}, 1},
      {{1, 3, 6, 7, 5}, {4, 3, 2, 3, 2}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 0}, {0, 1, 1}, 1},
      {{1, 64, 10, 10}, {32, 64, 1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, 1},
      {{1, 4, 7, 7}, {6, 4, 3, 3}, {1, 1}, {1, 1}, {2, 2}, {2, 2}, {2, 2}, 1},
      {{1, 2, 0, 5}, {3, 2, 1, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 0}, {1, 0}, 1},
      {{1, 0, 5}, {3, 0, 2}, {1}, {1}, {1}, {0}, {0}, 1},
      {{1, 3, 29, 31}, {8, 3, 7, 7}, {2, 2}, {1, 1}, {1, 1}, {3, 3}, {3, 3}, 1},
      {{1, 64, 28, 28}, {64, 64, 3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 1},
      // conv_direct (fewer than 4 output channels per group): holes, strides, 3 and 1 spatial dims
      {{1, 6, 8, 9}, {9, 2, 3, 3}, {1, 2}, {2, 1}, {1, 1}, {1, 2}, {2, 0}, 3},
      {{2, 4, 20}, {2, 4, 3}, {2}, {1}, {2}, {1}, {2}, 1},
      {{1, 3, 5, 6, 7}, {3, 1, 2, 3, 3}, {1, 1, 2}, {1, 1, 1}, {1, 2, 1}, {0, 1, 1}, {1, 0, 1}, 3},
      {{1, 32, 21, 23}, {32, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, {1, 1}, 32},
      // pointwise (the im2col rows are the input planes), grouped and strided 1x1
      {{2, 8, 5, 7}, {8, 4, 1, 1}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, 2},
      {{1, 6, 9, 9}, {8, 6, 1, 1}, {2, 2}, {1, 1}, {1, 1}, {0, 0}, {0, 0}, 1}};
  const std::vector<Dtypes> types = {{ir::DType::F32, ir::DType::F32, ir::DType::F32},
                                     {ir::DType::F64, ir::DType::F64, ir::DType::F64},
                                     {ir::DType::F16, ir::DType::F16, ir::DType::F32},
                                     {ir::DType::I8, ir::DType::I8, ir::DType::I32},
                                     {ir::DType::I64, ir::DType::U8, ir::DType::I64}};
  uint64_t seed = 1000;
  for (const ConvCase& c : cases)
    for (const Dtypes& t : types)
      for (bool specials : {false, true}) {
        if (c.weight[0] == 64 && (t.lhs != ir::DType::F32 || specials)) continue;  // the big one: f32
        KernelRun run(ir::Op::Conv);
        run.attr("to", t.to)
            .attr("strides", c.strides)
            .attr("dilations", c.dilations)
            .attr("lhs_dilations", c.lhs_dilations)
            .attr("pads_low", c.pads_low)
            .attr("pads_high", c.pads_high)
            .attr("groups", c.groups)
            .input(random_tensor(t.lhs, c.input, seed, specials))
            .input(random_tensor(t.rhs, c.weight, seed + 1, specials));
        seed += 2;
        std::string what = "conv input";
        for (int64_t d : c.input) what += " " + std::to_string(d);
        expect_same_bits(
            run, ir::Op::Conv,
            what + " " + std::string(ir::dtype_name(t.lhs)) + (specials ? " with specials" : ""));
      }
}

// Finite operands with an inf weight only over the padding: no term there (spec/ops/conv.md), so
// the result stays finite; conv_direct's path, still the baseline's bits.
TEST(RefBits, ConvInfWeightOverPaddingEqualsBaseline) {
  Tensor w = random_tensor(ir::DType::F32, {4, 2, 3, 3}, 5, false);
  w.as<float>()[0] = std::numeric_limits<float>::infinity();
  KernelRun run(ir::Op::Conv);
  run.attr("to", ir::DType::F32)
      .attr("strides", Ints{1, 1})
      .attr("dilations", Ints{1, 1})
      .attr("lhs_dilations", Ints{1, 1})
      .attr("pads_low", Ints{1, 1})
      .attr("pads_high", Ints{1, 1})
      .attr("groups", int64_t{1})
      .input(random_tensor(ir::DType::F32, {1, 2, 6, 6}, 6, false))
      .input(std::move(w));
  expect_same_bits(run, ir::Op::Conv, "conv with an inf weight");
}

// binary's per-kind loops (f32, f64) against binary_float per element, NaN payloads included.
TEST(RefBits, BinaryEqualsBaseline) {
  const ir::BinaryKind kinds[] = {ir::BinaryKind::Add, ir::BinaryKind::Sub, ir::BinaryKind::Mul,
                                  ir::BinaryKind::Div, ir::BinaryKind::Max, ir::BinaryKind::Min,
                                  ir::BinaryKind::Rem, ir::BinaryKind::Pow};
  uint64_t seed = 5000;
  for (ir::BinaryKind kind : kinds)
    for (ir::DType dt : {ir::DType::F32, ir::DType::F64, ir::DType::F16})
      for (bool specials : {false, true}) {
        KernelRun run(ir::Op::Binary);
        run.attr("kind", ir::EnumValue{kind})
            .input(random_tensor(dt, {3, 1000}, seed, specials))
            .input(random_tensor(dt, {3, 1000}, seed + 1, specials));
        seed += 2;
        expect_same_bits(run, ir::Op::Binary,
                         "binary " + std::to_string(static_cast<int>(kind)) + " " +
                             std::string(ir::dtype_name(dt)) + (specials ? " with specials" : ""));
      }
}

}  // namespace
}  // namespace plumb::rt
