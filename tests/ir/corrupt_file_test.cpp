// Hostile .plumb files (spec/file_format.md file.F1..F9): every truncation, every single-bit flip,
// and hand-made bad files are refused with an error Status (or, for flips that leave a valid model,
// load and verify); nothing crashes, hangs or allocates without bound. Runs under ASan in CI.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <iterator>

#include "ir/load.h"
#include "ir/save.h"
#include "ir/schema/plumb_generated.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "tests/ir/graph_fixtures.h"

namespace plumb::ir {
namespace {

namespace fbs = flatbuffers;

std::shared_ptr<const std::vector<uint8_t>> share(std::vector<uint8_t> v) {
  return std::make_shared<const std::vector<uint8_t>>(std::move(v));
}

const char* kSmall = R"(plumb 1
func @main(%x: f32[2], %p: bool[]) -> (f32[2]) {
  %c = constant {value = dense<f32[2]>[1, 2]} : f32[2]
  %r = if %p {
    then () {
      %a = binary %x, %c {kind = add} : f32[2] loc("Add_0", Add, 14)
      yield %a
    }
    else () {
      yield %x
    }
  } : f32[2]
  return %r
}
)";

std::vector<uint8_t> small_model() {
  auto g = parse_graph(kSmall);
  EXPECT_TRUE(g.has_value()) << g.status().to_string();
  EXPECT_TRUE(verify(*g).is_ok()) << verify(*g).to_string();
  return save_buffer(*g);
}

// Loads `bytes`; a success must be a verified graph that prints. Returns the Status.
Status try_load(std::vector<uint8_t> bytes) {
  auto g = load_buffer(share(std::move(bytes)));
  if (!g) {
    EXPECT_FALSE(g.status().message().empty());
    return g.status();
  }
  EXPECT_TRUE(verify(*g).is_ok());
  EXPECT_FALSE(print_graph(*g).empty());
  return Status::ok();
}

TEST(CorruptFile, ValidSmallModelLoads) {
  auto bytes = small_model();
  ASSERT_FALSE(bytes.empty());
  EXPECT_TRUE(try_load(bytes).is_ok());
}

TEST(CorruptFile, EveryTruncationIsRejected) {
  const auto bytes = small_model();
  auto full = parse_graph(kSmall);
  ASSERT_TRUE(full.has_value());
  const std::string expected = print_graph(*full);
  // Everything up to the end of the data section (the last thing in the file) is needed; after it
  // there is only the padding that makes the file a multiple of 64 bytes.
  const fb::Model* m = fb::GetModel(bytes.data());
  const size_t needed = static_cast<size_t>(m->data()->data() + m->data()->size() - bytes.data());
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto g = load_buffer(share(std::vector<uint8_t>(bytes.begin(), bytes.begin() + n)));
    if (n < needed) {
      EXPECT_FALSE(g.has_value()) << "truncated at " << n;
    } else {
      ASSERT_TRUE(g.has_value()) << "truncated in the final padding at " << n;
      EXPECT_EQ(print_graph(*g), expected);
    }
  }
}

TEST(CorruptFile, EveryBitFlipIsRejectedOrLoadsVerified) {
  const auto bytes = small_model();
  int rejected = 0, loaded = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      auto copy = bytes;
      copy[i] ^= static_cast<uint8_t>(1u << bit);
      (try_load(std::move(copy)).is_ok() ? loaded : rejected)++;
    }
  }
  EXPECT_GT(rejected, 0);
  EXPECT_GT(loaded, 0);  // flips in padding and constant data leave a valid model
}

TEST(CorruptFile, NewerCoreVersionIsRefusedFirst) {
  auto g = parse_graph(kSmall);
  ASSERT_TRUE(g.has_value());
  g->core_version = 99;
  auto r = load_buffer(share(save_buffer(*g)));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.status().message(), "core version 99 is newer than this runtime's 1");
  EXPECT_EQ(r.status().label(), "file.F3");
}

TEST(CorruptFile, TooShortAndWrongIdentifier) {
  auto r = load_buffer(share({1, 2, 3}));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.status().label(), "file.F1");
  auto bytes = small_model();
  bytes[4] = 'X';
  r = load_buffer(share(bytes));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.status().label(), "file.F2");
}

Graph one_node_graph() {
  Graph g;
  const ValueId x = g.add_value(Type::tensor(DType::F32, {Dim(2)}), "x");
  const ValueId y = g.add_value(Type::tensor(DType::F32, {Dim(2)}), "y");
  testing::set_neg_body(g, x, y, "x");
  return g;
}

std::string load_label(const Graph& g) {
  auto r = load_buffer(share(save_buffer(g)));
  return r ? std::string("ok") : r.status().label();
}

TEST(CorruptFile, BadCodesAndIdsAreRejected) {
  ASSERT_EQ(load_label(one_node_graph()), "ok");
  Graph g = one_node_graph();
  g.body.nodes[0].op = static_cast<Op>(200);
  EXPECT_EQ(load_label(g), "file.F5");
  g = one_node_graph();
  g.values[1].type.dtype = static_cast<DType>(99);
  EXPECT_EQ(load_label(g), "file.F5");
  g = one_node_graph();
  g.body.nodes[0].attrs[0].value = static_cast<DType>(77);
  g.body.nodes[0].attrs[0].name = "kind";
  EXPECT_NE(load_label(g), "ok");
  g = one_node_graph();
  g.body.nodes[0].attrs[0].name = "bogus";
  EXPECT_EQ(load_label(g), "file.F5");
  g = one_node_graph();
  g.body.nodes[0].attrs[0].value = EnumValue{1000};
  EXPECT_EQ(load_label(g), "unary.attrs");
  g = one_node_graph();
  g.body.nodes[0].inputs = {999};  // dangling
  EXPECT_EQ(load_label(g), "file.F6");
  g = one_node_graph();
  g.body.results = {12345};
  EXPECT_EQ(load_label(g), "file.F6");
  g = one_node_graph();
  g.body.nodes[0].inputs = {1};  // its own result: a cycle
  EXPECT_NE(load_label(g), "ok");
  g = one_node_graph();
  g.body.nodes.push_back(g.body.nodes[0]);  // defined twice
  EXPECT_NE(load_label(g), "ok");
}

TEST(CorruptFile, AbsurdDimsAreRejected) {
  Graph g = one_node_graph();
  g.values[0].type = Type::tensor(DType::F32, {Dim(int64_t{1} << 62), Dim(int64_t{1} << 62)});
  g.values[1].type = g.values[0].type;
  EXPECT_NE(load_label(g), "ok");
  g = one_node_graph();
  g.values[0].type.shape[0].size = -7;
  EXPECT_EQ(load_label(g), "file.F5");
  g = one_node_graph();
  ConstantData c;
  c.type = Type::tensor(DType::F32, {Dim(int64_t{1} << 62)});
  g.constants.push_back(c);  // zero bytes for 2^62 floats
  EXPECT_NE(load_label(g), "ok");
}

TEST(CorruptFile, HugeVectorCountIsRejected) {
  auto bytes = small_model();
  const fb::Model* m = fb::GetModel(bytes.data());
  const auto* values = m->graph()->values();
  ASSERT_NE(values, nullptr);
  const size_t at = reinterpret_cast<const uint8_t*>(values) - bytes.data();
  for (uint32_t claim : {0x7fffffffu, 0xffffffffu, 1000000u}) {
    auto copy = bytes;
    std::memcpy(copy.data() + at, &claim, 4);
    auto r = load_buffer(share(copy));
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.status().label(), "file.F4");
  }
}

// A model written with the raw flatbuffers API, for what plumb's saver never writes.
struct RawModel {
  fb::AttrValue attr_type = fb::AttrValue::EnumAttr;
  uint64_t const_offset = 0, const_size = 8, data_len = 8;
  bool external = false;
  const char* external_name = nullptr;
  int node_copies = 1;  // the same Node table referenced this many times
  int input_count = 1;  // operands of that node (all value 0)
  bool with_attr = true;
};

std::vector<uint8_t> raw_model(const RawModel& p) {
  fbs::FlatBufferBuilder fbb;
  fbs::Offset<fbs::Vector<uint8_t>> data = 0;
  if (p.data_len) {
    std::vector<uint8_t> bytes(p.data_len, 0);
    fbb.PreAlign(bytes.size(), 64);  // as ir/save.cpp does
    data = fbb.CreateVector(bytes);
  }
  auto type = [&](int64_t n) {
    std::vector<fbs::Offset<fb::Dim>> dims{fb::CreateDim(fbb, n)};
    return fb::CreateType(fbb, fb::TypeKind::Tensor, fb::DType::F32, true, fbb.CreateVector(dims));
  };
  std::vector<fbs::Offset<fb::Value>> values{fb::CreateValue(fbb, type(2)), fb::CreateValue(fbb, type(2))};
  auto values_vec = fbb.CreateVector(values);
  auto attr = fb::CreateAttr(fbb, fbb.CreateString("kind"), p.attr_type, fb::CreateEnumAttr(fbb, 0).Union());
  std::vector<uint32_t> inputs(p.input_count, 0), outputs{1};
  auto node = fb::CreateNode(fbb, fb::Opcode::Unary, fbb.CreateVector(inputs), fbb.CreateVector(outputs),
                             p.with_attr ? fbb.CreateVector(std::vector<fbs::Offset<fb::Attr>>{attr}) : 0);
  std::vector<fbs::Offset<fb::Node>> nodes(p.node_copies, node);
  std::vector<uint32_t> params{0}, results{1};
  auto body =
      fb::CreateRegion(fbb, fbb.CreateVector(params), fbb.CreateVector(nodes), fbb.CreateVector(results));
  auto graph = fb::CreateGraph(fbb, values_vec, body, fbb.CreateVectorOfStrings({"x"}),
                               fbb.CreateVectorOfStrings({"y"}));
  std::vector<fbs::Offset<fb::Constant>> constants{
      fb::CreateConstant(fbb, type(2), p.const_offset, p.const_size, p.external)};
  auto constants_vec = fbb.CreateVector(constants);
  auto ext = p.external_name ? fbb.CreateString(p.external_name) : 0;
  fb::ModelBuilder mb(fbb);
  mb.add_core_version(1);
  mb.add_graph(graph);
  mb.add_constants(constants_vec);
  if (p.data_len) mb.add_data(data);
  mb.add_external_data(ext);
  fb::FinishModelBuffer(fbb, mb.Finish());
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

std::string raw_label(const RawModel& p) {
  auto r = load_buffer(share(raw_model(p)), "/tmp");
  return r ? std::string("ok") : r.status().label();
}

TEST(CorruptFile, RawModelsAreChecked) {
  EXPECT_EQ(raw_label({}), "ok");
  RawModel p;
  p.attr_type = static_cast<fb::AttrValue>(42);
  EXPECT_EQ(raw_label(p), "file.F5");
  p = {};
  p.attr_type = fb::AttrValue::NONE;
  EXPECT_EQ(raw_label(p), "file.F5");
  p = {};
  p.attr_type = fb::AttrValue::IntAttr;  // the union type does not match the table: still decoded safely
  EXPECT_NE(raw_label(p), "ok");
  p = {};
  p.const_offset = 64;  // past the 8-byte data section
  EXPECT_EQ(raw_label(p), "file.F7");
  p = {};
  p.const_size = uint64_t{1} << 63;
  EXPECT_EQ(raw_label(p), "file.F7");
  p = {};
  p.const_offset = 4;
  p.const_size = 4;
  EXPECT_EQ(raw_label(p), "file.F7");  // not 64-byte aligned
  for (const char* name : {"../w", "/etc/passwd", "a/../../w", ""}) {
    p = {};
    p.external = true;
    p.external_name = name;
    EXPECT_EQ(raw_label(p), "file.F8") << name;
  }
  p = {};
  p.external = true;
  EXPECT_EQ(raw_label(p), "file.F8");  // no weights file named
}

TEST(CorruptFile, SharedTablesCannotAmplifyDecoding) {
  RawModel p;
  p.node_copies = 5000;
  p.input_count = 4000;
  p.with_attr = false;  // one table per node reference: the flatbuffers verifier lets it through
  auto r = load_buffer(share(raw_model(p)));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.status().label(), "file.F9");
  p.with_attr = true;  // three tables per reference: above the verifier's table limit
  r = load_buffer(share(raw_model(p)));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.status().label(), "file.F4");
}

// Found by tests/fuzz/fuzz_plumb_load: an IntsAttr whose [long] values sit 4-byte aligned. The
// flatbuffers verifier accepts it (it checks only the length field's alignment); reading the
// values was undefined behaviour (UBSan: misaligned load). Now refused as malformed.
TEST(CorruptFile, MisalignedEightByteVectorIsRejected) {
  std::ifstream f(
      std::string(PLUMB_SOURCE_DIR) + "/tests/fuzz/regressions/plumb_load_misaligned_ints_attr.plumb",
      std::ios::binary);
  ASSERT_TRUE(f);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto r = load_buffer(share(std::move(bytes)));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.status().label(), "file.F4");
  EXPECT_NE(r.status().message().find("aligned"), std::string::npos) << r.status().message();
}

// flatbuffers aligns no empty vector (its builder pads only for a non-empty one), so an empty
// [long] (a scalar broadcast's dims) can sit 4-byte aligned in a file plumb itself wrote. It holds
// nothing to read and must load (CI: the alignment check above refused real exports for it).
TEST(CorruptFile, EmptyEightByteVectorLoadsWhereverItLies) {
  const char* text = R"(plumb 1
func @main(%x: f32[], %s: i64[2]) -> (f32[?, ?]) {
  %b = broadcast %x, %s {dims = []} : f32[?, ?]
  %c = broadcast %x, %s {dims = []} : f32[?, ?]
  %d = binary %b, %c {kind = add} : f32[?, ?]
  return %d
}
)";
  auto g = parse_graph(text);
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  // Two empty vectors written one after the other: at least one lies 4 bytes off 8.
  auto r = load_buffer(share(save_buffer(*g)));
  ASSERT_TRUE(r.has_value()) << r.status().to_string();
}

}  // namespace
}  // namespace plumb::ir
