// Reference kernels of the value-source and layout ops (runtime/cpu/ref/layout.cpp): one test per
// R-label of spec/ops/{iota,reshape,broadcast,slice,concat,pad}.md, rank 0, empty tensors, every
// dtype (strings, sub-byte, narrow floats), negative strides.
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "ir/infer.h"
#include "ir/text.h"
#include "runtime/cpu/ref/constant_data.h"
#include "runtime/session.h"
#include "tests/ref/kernel_test_util.h"
#include "tests/ref/spec_example.h"

namespace plumb::rt::testing {
namespace {

using ir::DType;

Tensor i64s(std::vector<int64_t> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return make_tensor<int64_t>({n}, v);
}
Tensor f32s(std::vector<int64_t> shape, std::vector<float> v) {
  return make_tensor<float>(std::move(shape), v);
}

std::string label_of(const KernelResult& r) { return r.status.label(); }

// A tensor of any dtype whose elements all differ (up to the dtype's range): strings "s<k>"; else
// each byte of element k is k+1, or k mod 2 for bool and sub-byte dtypes.
Tensor pattern(DType dt, std::vector<int64_t> shape) {
  Tensor t = Tensor::allocate(dt, std::move(shape));
  const int64_t n = t.numel();
  if (dt == DType::String) {
    for (int64_t k = 0; k < n; ++k) t.strings()[k] = "s" + std::to_string(k);
    return t;
  }
  const int64_t eb = runtime_elem_bytes(dt);
  uint8_t* p = static_cast<uint8_t*>(t.data);
  const bool small = dt == DType::Bool || ir::is_packed(dt);
  for (int64_t k = 0; k < n; ++k)
    for (int64_t b = 0; b < eb; ++b) p[k * eb + b] = static_cast<uint8_t>(small ? k % 2 : k + 1);
  return t;
}

// a[i] and b[j] hold the same element.
bool same_elem(const Tensor& a, int64_t i, const Tensor& b, int64_t j) {
  if (a.dtype != b.dtype) return false;
  if (a.dtype == DType::String) return a.strings()[i] == b.strings()[j];
  const int64_t eb = runtime_elem_bytes(a.dtype);
  return std::memcmp(static_cast<const uint8_t*>(a.data) + i * eb,
                     static_cast<const uint8_t*>(b.data) + j * eb, eb) == 0;
}

std::vector<DType> all_dtypes() {
  std::vector<DType> v;
  for (int d = 0; d < ir::kNumDTypes; ++d) v.push_back(static_cast<DType>(d));
  return v;
}

// ---- constant ----------------------------------------------------------------------------------

ir::Type T(DType dt, std::vector<int64_t> dims) { return ir::Type::tensor(dt, ir::static_shape(dims)); }

TEST(RefConstant, UnpacksPlainDtypes) {
  const float v[3] = {1.5f, -0.0f, 3};
  Tensor t;
  ASSERT_TRUE(ref::unpack_constant(ir::ConstantData::copy_of(T(DType::F32, {3}), v, 12), t).is_ok());
  EXPECT_EQ(t.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(values<float>(t), (std::vector<float>{1.5f, -0.0f, 3}));
  EXPECT_TRUE(std::signbit(t.as<float>()[1]));
  Tensor b;
  ASSERT_TRUE(ref::unpack_constant(ir::ConstantData::owned(T(DType::Bool, {2}), {1, 0}), b).is_ok());
  EXPECT_EQ(values<bool>(b), (std::vector<bool>{true, false}));
  Tensor s;  // rank 0
  ASSERT_TRUE(ref::unpack_constant(ir::ConstantData::owned(T(DType::I16, {}), {0x34, 0x12}), s).is_ok());
  EXPECT_EQ(values<int16_t>(s), (std::vector<int16_t>{0x1234}));
}

TEST(RefConstant, UnpacksSubByteLowBitsFirst) {
  // i4 [1, -1, 7, -8, 2]: nibbles 0x1, 0xF, 0x7, 0x8, 0x2 packed low first: 0xF1, 0x87, 0x02
  Tensor t;
  ASSERT_TRUE(
      ref::unpack_constant(ir::ConstantData::owned(T(DType::I4, {5}), {0xF1, 0x87, 0x02}), t).is_ok());
  EXPECT_EQ(values<int8_t>(t), (std::vector<int8_t>{1, -1, 7, -8, 2}));
  Tensor u;  // u2 [3, 0, 1, 2, 1]: 0b10'01'00'11 = 0x93, then 0x01
  ASSERT_TRUE(ref::unpack_constant(ir::ConstantData::owned(T(DType::U2, {5}), {0x93, 0x01}), u).is_ok());
  EXPECT_EQ(values<uint8_t>(u), (std::vector<uint8_t>{3, 0, 1, 2, 1}));
  Tensor i2;  // i2 [-2, 1, -1]: 0b11'01'10 = 0x36
  ASSERT_TRUE(ref::unpack_constant(ir::ConstantData::owned(T(DType::I2, {3}), {0x36}), i2).is_ok());
  EXPECT_EQ(values<int8_t>(i2), (std::vector<int8_t>{-2, 1, -1}));
  Tensor f4;  // f4e2m1 bits 0xA, 0x3: one byte 0x3A
  ASSERT_TRUE(ref::unpack_constant(ir::ConstantData::owned(T(DType::F4E2M1, {2}), {0x3A}), f4).is_ok());
  EXPECT_EQ(values<uint8_t>(f4), (std::vector<uint8_t>{0xA, 0x3}));
}

TEST(RefConstant, UnpacksStrings) {
  Tensor t;
  const std::vector<uint8_t> bytes = {2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0, 3, 0, 0, 0, 'a', 0, 'b'};
  ASSERT_TRUE(ref::unpack_constant(ir::ConstantData::owned(T(DType::String, {3}), bytes), t).is_ok());
  EXPECT_EQ(values<std::string>(t), (std::vector<std::string>{"hi", "", std::string("a\0b", 3)}));
}

TEST(RefConstant, RefusesBytesThatDoNotFit) {
  Tensor t;
  EXPECT_EQ(
      ref::unpack_constant(ir::ConstantData::owned(T(DType::F32, {2}), std::vector<uint8_t>(7)), t).label(),
      "constant.C3");
  Tensor s;
  EXPECT_EQ(
      ref::unpack_constant(ir::ConstantData::owned(T(DType::String, {2}), {1, 0, 0, 0, 'a', 9, 0, 0, 0}), s)
          .label(),
      "constant.C3");
  Tensor b;
  EXPECT_EQ(ref::unpack_constant(ir::ConstantData::owned(T(DType::Bool, {1}), {2}), b).label(),
            "constant.C3");
  Tensor d;
  EXPECT_EQ(ref::unpack_constant(
                ir::ConstantData::owned(ir::Type::tensor(DType::F32, {ir::Dim::symbolic()}), {}), d)
                .label(),
            "constant.C2");
}

TEST(RefConstant, InferredTypeMatchesUnpackedTensor) {
  ir::Graph g;
  g.constants.push_back(ir::ConstantData::owned(T(DType::U4, {2, 2}), {0x21, 0x43}));
  ir::Node n;
  n.op = ir::Op::Constant;
  n.outputs = {0};
  n.attrs.push_back(ir::Attr{"value", ir::ConstRef{0}});
  std::vector<ir::Operand> none;
  auto types = ir::infer_types(ir::InferCtx{n, none, g, true});
  ASSERT_TRUE(types.has_value()) << types.status().to_string();
  Tensor t = Tensor::allocate(DType::U4, {2, 2});
  ASSERT_TRUE(ref::unpack_constant(g.constants[0], t).is_ok());
  EXPECT_EQ(type_of(RtValue(t)), (*types)[0]);
  EXPECT_EQ(values<uint8_t>(t), (std::vector<uint8_t>{1, 2, 3, 4}));
}

// ---- iota --------------------------------------------------------------------------------------

KernelResult iota(DType dt, int64_t axis, std::vector<int64_t> shape) {
  return KernelRun(ir::Op::Iota).attr("dtype", dt).attr("axis", axis).input(i64s(std::move(shape))).run();
}

TEST(RefIota, CountsAlongAxis) {
  auto r = iota(DType::I32, 1, {2, 3});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<int32_t>(r.out(0)), (std::vector<int32_t>{0, 1, 2, 0, 1, 2}));
  r = iota(DType::F64, 0, {2, 3});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<double>(r.out(0)), (std::vector<double>{0, 0, 0, 1, 1, 1}));
  r = iota(DType::U64, 1, {0, 3});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{0, 3}));
}

TEST(RefIota, IntegersWrap) {
  auto r = iota(DType::I8, 0, {300});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).as<int8_t>()[127], 127);
  EXPECT_EQ(r.out(0).as<int8_t>()[200], -56);
  EXPECT_EQ(r.out(0).as<int8_t>()[299], 43);
  r = iota(DType::I4, 0, {20});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  const std::vector<int8_t> i4 = values<int8_t>(r.out(0));
  EXPECT_EQ(i4[7], 7);
  EXPECT_EQ(i4[8], -8);
  EXPECT_EQ(i4[15], -1);
  EXPECT_EQ(i4[19], 3);
  r = iota(DType::U2, 0, {5});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<uint8_t>(r.out(0)), (std::vector<uint8_t>{0, 1, 2, 3, 0}));
}

TEST(RefIota, NarrowFloatsHoldTheirBits) {
  auto r = iota(DType::F16, 0, {4});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<uint16_t>(r.out(0)), (std::vector<uint16_t>{0x0000, 0x3C00, 0x4000, 0x4200}));
  r = iota(DType::BF16, 0, {4});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<uint16_t>(r.out(0)), (std::vector<uint16_t>{0x0000, 0x3F80, 0x4000, 0x4040}));
  r = iota(DType::F8E4M3FN, 0, {4});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<uint8_t>(r.out(0)), (std::vector<uint8_t>{0x00, 0x38, 0x40, 0x44}));
  r = iota(DType::F4E2M1, 0, {7});  // 0 1 2 3 4 5(tie -> 4) 6
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<uint8_t>(r.out(0)), (std::vector<uint8_t>{0x0, 0x2, 0x4, 0x5, 0x6, 0x6, 0x7}));
}

TEST(RefIota, R1NegativeShapeEntry) {
  EXPECT_EQ(label_of(iota(DType::F32, 0, {2, -1})), "iota.R1");
  EXPECT_EQ(label_of(iota(DType::F32, 0, {int64_t{1} << 21, int64_t{1} << 21})), "iota.R1");
}

// ---- shape_of ----------------------------------------------------------------------------------

TEST(RefShapeOf, ReturnsTheShape) {
  auto r = KernelRun(ir::Op::ShapeOf).input(make_tensor<std::string>({2, 0, 3}, {})).run();
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<int64_t>(r.out(0)), (std::vector<int64_t>{2, 0, 3}));
  r = KernelRun(ir::Op::ShapeOf).input(f32s({}, {1})).run();
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{0}));
}

// ---- reshape -----------------------------------------------------------------------------------

TEST(RefReshape, KeepsRowMajorOrder) {
  auto r = KernelRun(ir::Op::Reshape).input(f32s({2, 3}, {1, 2, 3, 4, 5, 6})).input(i64s({3, 1, 2})).run();
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{3, 1, 2}));
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  r = KernelRun(ir::Op::Reshape).input(make_tensor<std::string>({1}, {"x"})).input(i64s({})).run();
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).rank(), 0);
  EXPECT_EQ(values<std::string>(r.out(0)), (std::vector<std::string>{"x"}));
  r = KernelRun(ir::Op::Reshape).input(f32s({0, 3}, {})).input(i64s({3, 0, 7})).run();
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{3, 0, 7}));
}

TEST(RefReshape, R1NegativeShapeEntry) {
  auto r = KernelRun(ir::Op::Reshape).input(f32s({2, 3}, {1, 2, 3, 4, 5, 6})).input(i64s({-1, 6})).run();
  EXPECT_EQ(label_of(r), "reshape.R1");
  EXPECT_EQ(r.status.code(), ErrorCode::kRuntimeError);
  r = KernelRun(ir::Op::Reshape).input(f32s({0}, {})).input(i64s({0, -1})).run();
  EXPECT_EQ(label_of(r), "reshape.R1");
}

TEST(RefReshape, R2ElementCountDiffers) {
  auto r = KernelRun(ir::Op::Reshape).input(f32s({2, 3}, {1, 2, 3, 4, 5, 6})).input(i64s({5})).run();
  EXPECT_EQ(label_of(r), "reshape.R2");
  r = KernelRun(ir::Op::Reshape).input(f32s({}, {1})).input(i64s({0})).run();
  EXPECT_EQ(label_of(r), "reshape.R2");
}

// ---- broadcast ---------------------------------------------------------------------------------

KernelResult broadcast(Tensor operand, std::vector<int64_t> shape, std::vector<int64_t> dims) {
  return KernelRun(ir::Op::Broadcast)
      .attr("dims", std::move(dims))
      .input(operand)
      .input(i64s(std::move(shape)))
      .run();
}

TEST(RefBroadcast, RepeatsAlongNewAndUnitDims) {
  auto r = broadcast(f32s({3}, {1, 2, 3}), {2, 3}, {1});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  r = broadcast(f32s({2}, {1, 2}), {2, 3}, {0});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{1, 1, 1, 2, 2, 2}));
  r = broadcast(f32s({1, 2}, {1, 2}), {3, 2}, {0, 1});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{1, 2, 1, 2, 1, 2}));
  r = broadcast(make_tensor<std::string>({}, {"a"}), {2}, {});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<std::string>(r.out(0)), (std::vector<std::string>{"a", "a"}));
  r = broadcast(f32s({1}, {7}), {0, 4}, {1});  // unit dim to an empty result
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{0, 4}));
  r = broadcast(f32s({0}, {}), {3, 0}, {1});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{3, 0}));
}

TEST(RefBroadcast, R1NegativeShapeEntry) {
  EXPECT_EQ(label_of(broadcast(f32s({}, {1}), {-1}, {})), "broadcast.R1");
}

TEST(RefBroadcast, R2OperandDimNotOneOrEqual) {
  EXPECT_EQ(label_of(broadcast(f32s({2}, {1, 2}), {3}, {0})), "broadcast.R2");
  EXPECT_EQ(label_of(broadcast(f32s({0}, {}), {1}, {0})), "broadcast.R2");
}

// ---- transpose ---------------------------------------------------------------------------------

KernelResult transpose(Tensor operand, std::vector<int64_t> perm) {
  return KernelRun(ir::Op::Transpose).attr("perm", std::move(perm)).input(operand).run();
}

TEST(RefTranspose, PermutesIndices) {
  auto r = transpose(f32s({2, 3}, {1, 2, 3, 4, 5, 6}), {1, 0});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  // [2,1,3] with perm [2,0,1] -> [3,2,1]; result[k,i,j] = operand[i,j,k]
  r = transpose(f32s({2, 1, 3}, {1, 2, 3, 4, 5, 6}), {2, 0, 1});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{3, 2, 1}));
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  r = transpose(f32s({}, {9}), {});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{9}));
  r = transpose(f32s({0, 2}, {}), {1, 0});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{2, 0}));
}

TEST(RefTranspose, EveryDtype) {
  for (DType dt : all_dtypes()) {
    const Tensor x = pattern(dt, {2, 3});
    auto r = transpose(x, {1, 0});
    ASSERT_TRUE(r.status.is_ok()) << ir::dtype_name(dt) << ": " << r.status.to_string();
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 2; ++j)
        EXPECT_TRUE(same_elem(r.out(0), i * 2 + j, x, j * 3 + i)) << ir::dtype_name(dt);
  }
}

// ---- slice -------------------------------------------------------------------------------------

KernelResult slice(Tensor operand, std::vector<int64_t> start, std::vector<int64_t> size,
                   std::vector<int64_t> stride) {
  return KernelRun(ir::Op::Slice)
      .input(operand)
      .input(i64s(std::move(start)))
      .input(i64s(std::move(size)))
      .input(i64s(std::move(stride)))
      .run();
}

TEST(RefSlice, StartSizeStride) {
  // operand [[0..4],[5..9],[10..14]]; rows 0 and 2, columns 1 and 3
  std::vector<float> v(15);
  for (int k = 0; k < 15; ++k) v[k] = float(k);
  auto r = slice(f32s({3, 5}, v), {0, 1}, {2, 2}, {2, 2});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{1, 3, 11, 13}));
}

TEST(RefSlice, NegativeStrideReverses) {
  auto r = slice(f32s({5}, {0, 1, 2, 3, 4}), {4}, {5}, {-1});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{4, 3, 2, 1, 0}));
  r = slice(make_tensor<std::string>({2, 3}, {"a", "b", "c", "d", "e", "f"}), {1, 2}, {2, 2}, {-1, -2});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<std::string>(r.out(0)), (std::vector<std::string>{"f", "d", "c", "a"}));
}

TEST(RefSlice, RankZeroAndEmpty) {
  auto r = slice(f32s({}, {5}), {}, {}, {});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{5}));
  // an empty result reads nothing: start and stride are not range-checked
  r = slice(f32s({2, 0}, {}), {7, -3}, {4, 0}, {1, 5});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{4, 0}));
}

TEST(RefSlice, EveryDtype) {
  for (DType dt : all_dtypes()) {
    const Tensor x = pattern(dt, {4});
    auto r = slice(x, {3}, {2}, {-2});
    ASSERT_TRUE(r.status.is_ok()) << ir::dtype_name(dt) << ": " << r.status.to_string();
    EXPECT_TRUE(same_elem(r.out(0), 0, x, 3) && same_elem(r.out(0), 1, x, 1)) << ir::dtype_name(dt);
  }
}

TEST(RefSlice, HugeStrideWithSizeOneReadsStartOnly) {
  auto r = slice(f32s({2, 3}, {1, 2, 3, 4, 5, 6}), {1, 2}, {1, 1}, {INT64_MAX, INT64_MIN});
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{6}));
}

TEST(RefSlice, R1ZeroStride) { EXPECT_EQ(label_of(slice(f32s({3}, {1, 2, 3}), {0}, {1}, {0})), "slice.R1"); }

TEST(RefSlice, R2NegativeSize) {
  EXPECT_EQ(label_of(slice(f32s({3}, {1, 2, 3}), {0}, {-1}, {1})), "slice.R2");
}

TEST(RefSlice, R3IndexOutOfRange) {
  EXPECT_EQ(label_of(slice(f32s({3}, {1, 2, 3}), {3}, {1}, {1})), "slice.R3");
  EXPECT_EQ(label_of(slice(f32s({3}, {1, 2, 3}), {-1}, {1}, {1})), "slice.R3");
  EXPECT_EQ(label_of(slice(f32s({3}, {1, 2, 3}), {1}, {2}, {2})), "slice.R3");
  EXPECT_EQ(label_of(slice(f32s({3}, {1, 2, 3}), {1}, {3}, {-1})), "slice.R3");
  EXPECT_EQ(label_of(slice(f32s({3}, {1, 2, 3}), {0}, {3}, {INT64_MIN})), "slice.R3");
  EXPECT_EQ(label_of(slice(f32s({0}, {}), {0}, {1}, {1})), "slice.R3");
}

// ---- concat ------------------------------------------------------------------------------------

TEST(RefConcat, JoinsAlongAxis) {
  auto r = KernelRun(ir::Op::Concat)
               .attr("axis", int64_t{1})
               .input(f32s({2, 1}, {1, 2}))
               .input(f32s({2, 0}, {}))
               .input(f32s({2, 2}, {3, 4, 5, 6}))
               .run();
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{1, 3, 4, 2, 5, 6}));
  r = KernelRun(ir::Op::Concat)
          .attr("axis", int64_t{0})
          .input(make_tensor<std::string>({1}, {"a"}))
          .input(make_tensor<std::string>({2}, {"b", "c"}))
          .run();
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<std::string>(r.out(0)), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(RefConcat, EveryDtype) {
  for (DType dt : all_dtypes()) {
    const Tensor a = pattern(dt, {1, 2}), b = pattern(dt, {1, 1});
    auto r = KernelRun(ir::Op::Concat).attr("axis", int64_t{1}).input(a).input(b).run();
    ASSERT_TRUE(r.status.is_ok()) << ir::dtype_name(dt) << ": " << r.status.to_string();
    EXPECT_TRUE(same_elem(r.out(0), 0, a, 0) && same_elem(r.out(0), 1, a, 1) && same_elem(r.out(0), 2, b, 0))
        << ir::dtype_name(dt);
  }
}

TEST(RefConcat, R1OtherDimsDiffer) {
  auto r = KernelRun(ir::Op::Concat)
               .attr("axis", int64_t{0})
               .input(f32s({1, 2}, {1, 2}))
               .input(f32s({1, 3}, {1, 2, 3}))
               .run();
  EXPECT_EQ(label_of(r), "concat.R1");
  EXPECT_EQ(r.status.code(), ErrorCode::kRuntimeError);
}

// ---- pad ---------------------------------------------------------------------------------------

KernelResult pad(ir::PadMode mode, Tensor operand, std::vector<int64_t> low, std::vector<int64_t> high,
                 Tensor value) {
  return KernelRun(ir::Op::Pad)
      .attr("mode", ir::EnumValue{mode})
      .input(operand)
      .input(i64s(std::move(low)))
      .input(i64s(std::move(high)))
      .input(value)
      .run();
}
KernelResult pad1(ir::PadMode mode, std::vector<float> v, int64_t low, int64_t high) {
  const int64_t n = static_cast<int64_t>(v.size());
  return pad(mode, f32s({n}, v), {low}, {high}, f32s({}, {-1}));
}

TEST(RefPad, ConstantMode) {
  auto r = pad1(ir::PadMode::Constant, {1, 2}, 1, 2);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{-1, 1, 2, -1, -1}));
  r = pad(ir::PadMode::Constant, f32s({1, 2}, {1, 2}), {1, 0}, {0, 1}, f32s({}, {0}));
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{0, 0, 0, 1, 2, 0}));
  r = pad1(ir::PadMode::Constant, {}, 2, 1);  // an empty dim padded with the value
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{-1, -1, -1}));
}

TEST(RefPad, ReflectModeMirrorsWithoutTheEdge) {
  // numpy.pad([1,2,3], (2,2), 'reflect') = [3,2,1,2,3,2,1]
  auto r = pad1(ir::PadMode::Reflect, {1, 2, 3}, 2, 2);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{3, 2, 1, 2, 3, 2, 1}));
}

TEST(RefPad, EdgeModeRepeatsTheEdge) {
  auto r = pad1(ir::PadMode::Edge, {1, 2, 3}, 2, 1);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{1, 1, 1, 2, 3, 3}));
}

TEST(RefPad, WrapModeIsPeriodicEvenPastTheDim) {
  // numpy.pad([1,2,3], (4,5), 'wrap') = [3,1,2,3,1,2,3,1,2,3,1,2]
  auto r = pad1(ir::PadMode::Wrap, {1, 2, 3}, 4, 5);
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2}));
}

TEST(RefPad, TwoDimsAndStrings) {
  auto r = pad(ir::PadMode::Edge, make_tensor<std::string>({2, 2}, {"a", "b", "c", "d"}), {0, 1}, {1, 0},
               make_tensor<std::string>({}, {"-"}));
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<std::string>(r.out(0)),
            (std::vector<std::string>{"a", "a", "b", "c", "c", "d", "c", "c", "d"}));
  r = pad(ir::PadMode::Constant, f32s({}, {4}), {}, {}, f32s({}, {0}));  // rank 0
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{4}));
}

TEST(RefPad, EveryDtype) {
  for (DType dt : all_dtypes()) {
    const Tensor x = pattern(dt, {2});
    const Tensor v = pattern(dt, {3});
    Tensor value = Tensor::allocate(dt, {});
    if (dt == DType::String)
      value.strings()[0] = v.strings()[2];
    else
      std::memcpy(value.data, static_cast<const uint8_t*>(v.data) + 2 * runtime_elem_bytes(dt),
                  runtime_elem_bytes(dt));
    auto r = pad(ir::PadMode::Constant, x, {1}, {0}, value);
    ASSERT_TRUE(r.status.is_ok()) << ir::dtype_name(dt) << ": " << r.status.to_string();
    EXPECT_TRUE(same_elem(r.out(0), 0, value, 0) && same_elem(r.out(0), 1, x, 0) &&
                same_elem(r.out(0), 2, x, 1))
        << ir::dtype_name(dt);
  }
}

TEST(RefPad, EmptyResultWithLargeDimReadsNothing) {
  // [0,1] padded by 2^39 on the high side of dim 1: an empty [0, 2^39 + 1] result
  auto r = pad(ir::PadMode::Edge, f32s({0, 1}, {}), {0, 0}, {0, int64_t{1} << 39}, f32s({}, {0}));
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{0, (int64_t{1} << 39) + 1}));
}

TEST(RefPad, R1NegativePadding) {
  EXPECT_EQ(label_of(pad1(ir::PadMode::Constant, {1, 2}, -1, 0)), "pad.R1");
  EXPECT_EQ(label_of(pad1(ir::PadMode::Edge, {1, 2}, 0, -2)), "pad.R1");
}

TEST(RefPad, R2ReflectPadNotBelowDim) {
  EXPECT_EQ(label_of(pad1(ir::PadMode::Reflect, {1, 2, 3}, 3, 0)), "pad.R2");
  EXPECT_EQ(label_of(pad1(ir::PadMode::Reflect, {1}, 0, 1)), "pad.R2");
}

TEST(RefPad, R3EdgeOrWrapOfEmptyDim) {
  EXPECT_EQ(label_of(pad1(ir::PadMode::Edge, {}, 1, 0)), "pad.R3");
  EXPECT_EQ(label_of(pad1(ir::PadMode::Wrap, {}, 0, 1)), "pad.R3");
}

// ---- reshape / broadcast for every dtype -------------------------------------------------------

TEST(RefReshape, EveryDtype) {
  for (DType dt : all_dtypes()) {
    const Tensor x = pattern(dt, {2, 3});
    auto r = KernelRun(ir::Op::Reshape).input(x).input(i64s({3, 2})).run();
    ASSERT_TRUE(r.status.is_ok()) << ir::dtype_name(dt) << ": " << r.status.to_string();
    for (int64_t k = 0; k < 6; ++k) EXPECT_TRUE(same_elem(r.out(0), k, x, k)) << ir::dtype_name(dt);
  }
}

TEST(RefBroadcast, EveryDtype) {
  for (DType dt : all_dtypes()) {
    const Tensor x = pattern(dt, {2});
    auto r = broadcast(x, {2, 2}, {0});
    ASSERT_TRUE(r.status.is_ok()) << ir::dtype_name(dt) << ": " << r.status.to_string();
    EXPECT_TRUE(same_elem(r.out(0), 1, x, 0) && same_elem(r.out(0), 2, x, 1)) << ir::dtype_name(dt);
  }
}

// ---- the Example of every page of this family runs and gives its `expect` ----------------------

namespace examples {

bool same_tensor(const Tensor& a, const Tensor& b) {
  if (a.dtype != b.dtype || a.shape != b.shape) return false;
  for (int64_t k = 0; k < a.numel(); ++k)
    if (!same_elem(a, k, b, k)) return false;
  return true;
}

TEST(RefLayout, SpecExamplesRun) {
  for (const char* op :
       {"constant", "iota", "shape_of", "rng", "reshape", "broadcast", "transpose", "slice", "concat", "pad"})
    expect_spec_example(op, same_tensor);
}

}  // namespace examples
}  // namespace
}  // namespace plumb::rt::testing
