// TensorProto <-> Tensor: typed fields, raw data, packing, round trips, malformed tensors.
#include "frontends/onnx/tensor_proto.h"

#include <gtest/gtest.h>

#include "onnx/onnx-data_pb.h"
#include "onnx/onnx_pb.h"

namespace plumb::onnx {
namespace {

using Bytes = std::vector<uint8_t>;

::onnx::TensorProto make(int code, std::vector<int64_t> dims) {
  ::onnx::TensorProto p;
  p.set_name("t");
  p.set_data_type(code);
  for (auto d : dims) p.add_dims(d);
  return p;
}

TEST(TensorProto, FloatDataIsLittleEndian) {
  auto p = make(1, {2});
  p.add_float_data(1.0f);   // 0x3F800000
  p.add_float_data(-2.0f);  // 0xC0000000
  auto t = tensor_from_proto(p);
  ASSERT_TRUE(t) << t.status().to_string();
  EXPECT_EQ(t->dtype, ir::DType::F32);
  EXPECT_EQ(t->bytes(), (Bytes{0, 0, 0x80, 0x3F, 0, 0, 0, 0xC0}));
}

TEST(TensorProto, Int32DataNarrowsToElementWidth) {
  auto p8 = make(3, {2});  // int8
  p8.add_int32_data(-1);
  p8.add_int32_data(5);
  EXPECT_EQ(tensor_from_proto(p8)->bytes(), (Bytes{0xFF, 0x05}));
  auto p16 = make(5, {1});  // int16
  p16.add_int32_data(-2);
  EXPECT_EQ(tensor_from_proto(p16)->bytes(), (Bytes{0xFE, 0xFF}));
  auto h = make(10, {1});  // float16 1.0 = 0x3C00, bit pattern in int32_data
  h.add_int32_data(0x3C00);
  EXPECT_EQ(tensor_from_proto(h)->bytes(), (Bytes{0x00, 0x3C}));
  auto bf = make(16, {1});  // bfloat16 -1.0 = 0xBF80
  bf.add_int32_data(0xBF80);
  EXPECT_EQ(tensor_from_proto(bf)->bytes(), (Bytes{0x80, 0xBF}));
  auto f8 = make(17, {1});  // float8e4m3fn
  f8.add_int32_data(0x38);
  EXPECT_EQ(tensor_from_proto(f8)->bytes(), (Bytes{0x38}));
  auto b = make(9, {3});
  b.add_int32_data(1);
  b.add_int32_data(0);
  b.add_int32_data(1);
  EXPECT_EQ(tensor_from_proto(b)->bytes(), (Bytes{1, 0, 1}));
}

TEST(TensorProto, Int4PackedLowNibbleFirst) {
  // int4 [1, 2, -1]: packed bytes 0x21, 0x0F (one packed byte per int32_data element)
  auto p = make(22, {3});
  p.add_int32_data(0x21);
  p.add_int32_data(0x0F);
  auto t = tensor_from_proto(p);
  ASSERT_TRUE(t) << t.status().to_string();
  EXPECT_EQ(t->dtype, ir::DType::I4);
  EXPECT_EQ(t->bytes(), (Bytes{0x21, 0x0F}));
  // raw_data of 5 uint2 elements takes 2 bytes
  auto r = make(25, {5});
  r.set_raw_data(std::string("\xE4\x01", 2));
  auto u2 = tensor_from_proto(r);
  ASSERT_TRUE(u2) << u2.status().to_string();
  EXPECT_EQ(u2->bytes(), (Bytes{0xE4, 0x01}));
  r.set_raw_data(std::string("\xE4\x01\x00", 3));
  EXPECT_FALSE(tensor_from_proto(r));
}

TEST(TensorProto, WideFields) {
  auto p = make(7, {1});
  p.add_int64_data(-2);
  EXPECT_EQ(tensor_from_proto(p)->bytes(), (Bytes{0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}));
  auto u = make(12, {1});  // uint32 in uint64_data
  u.add_uint64_data(0x01020304);
  EXPECT_EQ(tensor_from_proto(u)->bytes(), (Bytes{4, 3, 2, 1}));
  auto d = make(11, {1});
  d.add_double_data(1.0);  // 0x3FF0000000000000
  EXPECT_EQ(tensor_from_proto(d)->bytes(), (Bytes{0, 0, 0, 0, 0, 0, 0xF0, 0x3F}));
}

TEST(TensorProto, StringsUseLengthPrefix) {
  auto p = make(8, {2});
  p.add_string_data("ab");
  p.add_string_data("");
  auto t = tensor_from_proto(p);
  ASSERT_TRUE(t) << t.status().to_string();
  EXPECT_EQ(t->bytes(), (Bytes{2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0}));
  auto s = t->strings();
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (std::vector<std::string>{"ab", ""}));
}

// read -> write -> read keeps the bytes, for every dtype of spec/dtypes.def.
TEST(TensorProto, RoundTripEveryDtype) {
  int tested = 0;
  for (int code = 0; code <= 30; ++code) {
    auto dt = ir::dtype_from_onnx_code(code);
    if (!dt) continue;
    auto p = make(code, {5});
    if (*dt == ir::DType::String) {
      for (const char* s : {"x", "", "hello", "\xC3\xA9", "z"}) p.add_string_data(s);
    } else {
      std::string raw;
      for (uint64_t i = 0; i < ir::dtype_storage_bytes(*dt, 5); ++i)
        raw.push_back(static_cast<char>(0x11 * (i + 1)));
      p.set_raw_data(raw);
    }
    auto t1 = tensor_from_proto(p);
    ASSERT_TRUE(t1) << code << ": " << t1.status().to_string();
    ::onnx::TensorProto q;
    ASSERT_TRUE(tensor_to_proto(*t1, &q));
    auto t2 = tensor_from_proto(q);
    ASSERT_TRUE(t2) << code << ": " << t2.status().to_string();
    EXPECT_EQ(t1->bytes(), t2->bytes()) << ir::dtype_name(*dt);
    EXPECT_EQ(t2->dims, (std::vector<int64_t>{5}));
    EXPECT_EQ(t2->dtype, *dt);
    ++tested;
  }
  EXPECT_EQ(tested, ir::kNumDTypes);
}

TEST(TensorProto, DimsDataMismatchIsInvalidModel) {
  auto p = make(1, {1000000000000LL});  // claims 4 TB, holds 4 bytes: no allocation, an error
  p.set_raw_data(std::string(4, '\0'));
  auto t = tensor_from_proto(p);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.status().code(), ErrorCode::kInvalidModel);
  EXPECT_NE(t.status().message().find("raw_data has 4"), std::string::npos) << t.status().message();
  auto q = make(1, {3});
  q.add_float_data(1.0f);
  EXPECT_FALSE(tensor_from_proto(q));
  auto none = make(1, {2});
  EXPECT_FALSE(tensor_from_proto(none));
  auto empty = make(1, {0, 7});
  EXPECT_TRUE(tensor_from_proto(empty));  // an empty tensor needs no data
}

TEST(TensorProto, BadDtypeAndDimsAreErrors) {
  auto p = make(99, {1});
  auto t = tensor_from_proto(p);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.status().code(), ErrorCode::kInvalidModel);
  EXPECT_FALSE(tensor_from_proto(make(0, {})));
  EXPECT_EQ(tensor_from_proto(make(14, {})).status().code(), ErrorCode::kUnsupported);
  auto neg = make(1, {-1});
  EXPECT_FALSE(tensor_from_proto(neg));
  auto ovf = make(1, {1LL << 40, 1LL << 40});
  EXPECT_FALSE(tensor_from_proto(ovf));
  auto ext = make(1, {1});
  ext.set_data_location(::onnx::TensorProto_DataLocation_EXTERNAL);
  auto* kv = ext.add_external_data();
  kv->set_key("location");
  kv->set_value("w.bin");
  EXPECT_FALSE(tensor_from_proto(ext));  // no model folder: refused
}

TEST(TensorProto, SparseDensifies) {
  ::onnx::SparseTensorProto sp;
  sp.add_dims(3);
  sp.add_dims(4);
  auto* v = sp.mutable_values();
  v->set_name("s");
  v->set_data_type(1);
  v->add_dims(2);
  v->add_float_data(1.5f);
  v->add_float_data(2.5f);
  auto* ix = sp.mutable_indices();
  ix->set_data_type(7);
  ix->add_dims(2);
  ix->add_int64_data(1);
  ix->add_int64_data(10);
  auto t = sparse_tensor_from_proto(sp);
  ASSERT_TRUE(t) << t.status().to_string();
  EXPECT_EQ(t->dims, (std::vector<int64_t>{3, 4}));
  std::vector<float> f(12);
  ASSERT_EQ(t->size, 48u);
  std::memcpy(f.data(), t->data, 48);
  EXPECT_EQ(f, (std::vector<float>{0, 1.5f, 0, 0, 0, 0, 0, 0, 0, 0, 2.5f, 0}));
  // Coordinate form [NNZ, rank]: (0,1) and (2,2)
  ix->Clear();
  ix->set_data_type(7);
  ix->add_dims(2);
  ix->add_dims(2);
  for (int64_t c : {0, 1, 2, 2}) ix->add_int64_data(c);
  t = sparse_tensor_from_proto(sp);
  ASSERT_TRUE(t) << t.status().to_string();
  std::memcpy(f.data(), t->data, 48);
  EXPECT_EQ(f, (std::vector<float>{0, 1.5f, 0, 0, 0, 0, 0, 0, 0, 0, 2.5f, 0}));
  // Out of range
  ix->set_int64_data(3, 4);
  EXPECT_FALSE(sparse_tensor_from_proto(sp));
}

TEST(DataValue, SequenceOptionalMapRoundTrip) {
  ::onnx::SequenceProto seq;
  seq.set_name("s");
  seq.set_elem_type(1);
  auto* a = seq.add_tensor_values();
  a->set_data_type(7);
  a->add_dims(1);
  a->add_int64_data(42);
  std::string bytes;
  ASSERT_TRUE(seq.SerializeToString(&bytes));
  auto v = parse_data_value(bytes, DataKind::Sequence);
  ASSERT_TRUE(v) << v.status().to_string();
  ASSERT_EQ(v->elems.size(), 1u);
  EXPECT_EQ(v->elems[0].tensor.bytes(), (Bytes{42, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(*guess_data_kind(bytes), DataKind::Sequence);
  // Writing uses raw_data, so compare what reads back, not the protobuf bytes.
  auto again = serialize_data_value(*v);
  ASSERT_TRUE(again);
  auto v2 = parse_data_value(*again, DataKind::Sequence);
  ASSERT_TRUE(v2);
  ASSERT_EQ(v2->elems.size(), 1u);
  EXPECT_EQ(v2->elems[0].tensor.bytes(), v->elems[0].tensor.bytes());
  EXPECT_EQ(v2->elem_type, 1);

  ::onnx::OptionalProto none;
  none.set_name("o");
  none.set_elem_type(1);
  ASSERT_TRUE(none.SerializeToString(&bytes));
  v = parse_data_value(bytes, DataKind::Optional);
  ASSERT_TRUE(v);
  EXPECT_FALSE(v->has_value());
  EXPECT_EQ(*serialize_data_value(*v), bytes);

  ::onnx::MapProto m;
  m.set_name("m");
  m.set_key_type(6);  // int32 keys
  m.add_keys(-3);
  m.add_keys(7);
  m.mutable_values()->set_elem_type(1);
  for (float x : {1.0f, 2.0f}) {
    auto* t = m.mutable_values()->add_tensor_values();
    t->set_data_type(1);
    t->add_float_data(x);
  }
  ASSERT_TRUE(m.SerializeToString(&bytes));
  EXPECT_EQ(*guess_data_kind(bytes), DataKind::Map);
  v = parse_data_value(bytes, DataKind::Map);
  ASSERT_TRUE(v) << v.status().to_string();
  EXPECT_EQ(v->tensor.bytes(), (Bytes{0xFD, 0xFF, 0xFF, 0xFF, 7, 0, 0, 0}));
  auto v3 = parse_data_value(*serialize_data_value(*v), DataKind::Map);
  ASSERT_TRUE(v3);
  EXPECT_EQ(v3->tensor.bytes(), v->tensor.bytes());
  EXPECT_EQ(v3->tensor.dtype, ir::DType::I32);
  ASSERT_EQ(v3->elems.size(), 1u);
  ASSERT_EQ(v3->elems[0].elems.size(), 2u);
  EXPECT_EQ(v3->elems[0].elems[1].tensor.bytes(), (Bytes{0, 0, 0, 0x40}));
}

// fuzz_pb_value's finding: field 2 (a sequence's elem_type) read as INT64_MAX made the container
// test compute elem_type + 2, a signed overflow (UBSan). Such bytes are no container: a tensor.
TEST(DataValueHostile, ElemTypeOfInt64MaxIsNoOverflow) {
  // field 2 varint 0x7fffffffffffffff, then field 3 (length-delimited, empty).
  std::string bytes = {0x10,   '\xff', '\xff', '\xff', '\xff', '\xff',
                       '\xff', '\xff', '\xff', 0x7f,   0x1a,   0x00};
  auto kind = guess_data_kind(bytes);
  ASSERT_TRUE(kind) << kind.status().message();
  EXPECT_EQ(*kind, DataKind::Tensor);
}

TEST(DataValue, TruncatedFileIsInvalidInput) {
  auto p = make(1, {4});
  for (int i = 0; i < 4; ++i) p.add_float_data(1.0f * i);
  std::string bytes;
  ASSERT_TRUE(p.SerializeToString(&bytes));
  EXPECT_EQ(*guess_data_kind(bytes), DataKind::Tensor);
  // Fields are written in number order; the name "t" (field 8, 3 bytes) comes last, so every
  // cut before it truncates dims, data_type or float_data.
  for (size_t cut = 1; cut < bytes.size() - 3; ++cut) {
    auto v = parse_data_value(bytes.substr(0, cut), DataKind::Tensor);
    EXPECT_FALSE(v) << "cut at " << cut;  // either a parse failure or a data-size mismatch
  }
  auto g = read_data_file("/nonexistent/input_0.pb");
  ASSERT_FALSE(g);
  EXPECT_EQ(g.status().place(), "/nonexistent/input_0.pb");
}

}  // namespace
}  // namespace plumb::onnx
