// save -> load -> print round trips (spec/file_format.md): graphs built by hand and parsed from the
// text form, every constant dtype, regions, symbolic dims, provenance, external weights.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "ir/builder.h"
#include "ir/load.h"
#include "ir/save.h"
#include "ir/schema/plumb_generated.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "tests/ir/graph_fixtures.h"

namespace plumb::ir {
namespace {

std::shared_ptr<const std::vector<uint8_t>> share(std::vector<uint8_t> v) {
  return std::make_shared<const std::vector<uint8_t>>(std::move(v));
}

std::string temp_dir() {
  char tmpl[] = "/tmp/plumb_save_load_XXXXXX";
  const char* d = mkdtemp(tmpl);
  return d ? d : "/tmp";
}

// A verified graph with an if and a while, provenance, symbolic dims and onnx names.
Graph control_flow_graph() {
  const char* text = R"(plumb 1
producer "save_load_test"
func @main(%x: f32[2,N], %p: bool[], %n: i64[]) -> (f32[2,N], i64[] as "count") {
  %c = constant {value = dense<f32[]>[1.5]} : f32[]
  %r = if %p {
    then () {
      %e = unary %x {kind = exp} : f32[2,N] loc("Exp_0", Exp, 13)
      yield %e
    }
    else () {
      %ng = unary %x {kind = neg} : f32[2,N] loc("Neg_0", Neg, 13, "neg")
      yield %ng
    }
  } : f32[2,N] loc("If_0", If, 19)
  %w = while %n {
    cond (%k: i64[]) {
      %t = compare %k, %k {kind = lt} : bool[]
      yield %t
    }
    body (%k: i64[]) {
      yield %k
    }
  } : i64[]
  return %r, %w
}
)";
  auto g = parse_graph(text);
  EXPECT_TRUE(g.has_value()) << g.status().to_string();
  return g ? std::move(g).value() : Graph();
}

TEST(SaveLoad, ParsedControlFlowGraphRoundTrips) {
  Graph g = control_flow_graph();
  ASSERT_TRUE(verify(g).is_ok()) << verify(g).to_string();
  auto bytes = save_buffer_checked(g);
  ASSERT_TRUE(bytes.has_value());
  auto loaded = load_buffer(share(*bytes));
  ASSERT_TRUE(loaded.has_value()) << loaded.status().to_string();
  EXPECT_EQ(print_graph(*loaded), print_graph(g));
  EXPECT_EQ(loaded->producer, "save_load_test");
  EXPECT_EQ(loaded->output_names, (std::vector<std::string>{"r", "count"}));
  EXPECT_EQ(loaded->body.nodes[1].prov.node_name, "If_0");
  EXPECT_EQ(loaded->body.nodes[1].regions[1].nodes[0].prov.step, "neg");
}

TEST(SaveLoad, BuiltGraphRoundTrips) {
  Graph g;
  Builder b(g);
  b.set_provenance({"Add_3", "Add", 14, ""});
  const ValueId x = b.input(Type::tensor(DType::F32, {Dim(2), Dim::symbolic("B")}), "x");
  const ValueId c = b.const_floats(DType::F32, {2, 1}, {0.5, -2});
  const ValueId bc = b.broadcast(c, b.shape_of(x), {0, 1});
  const ValueId y = b.binary(BinaryKind::Add, x, bc);
  b.output(y, "y");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  ASSERT_TRUE(verify(g).is_ok()) << verify(g).to_string();
  auto loaded = load_buffer(share(save_buffer(g)));
  ASSERT_TRUE(loaded.has_value()) << loaded.status().to_string();
  EXPECT_EQ(print_graph(*loaded), print_graph(g));
  EXPECT_EQ(loaded->values.size(), g.values.size());
  for (size_t i = 0; i < g.values.size(); ++i) {
    EXPECT_EQ(loaded->values[i].type, g.values[i].type);
    EXPECT_EQ(loaded->values[i].onnx_name, g.values[i].onnx_name);
  }
}

TEST(SaveLoad, ConstantsAreAlignedAndZeroCopy) {
  Graph g = control_flow_graph();
  auto buf = share(save_buffer(g));
  ASSERT_FALSE(buf->empty());
  const fb::Model* m = fb::GetModel(buf->data());
  ASSERT_NE(m->data(), nullptr);
  EXPECT_EQ((m->data()->data() - buf->data()) % 64, 0);
  auto loaded = load_buffer(buf);
  ASSERT_TRUE(loaded.has_value()) << loaded.status().to_string();
  const ConstantData& c = loaded->constants[0];
  EXPECT_GE(c.data, buf->data());
  EXPECT_LT(c.data, buf->data() + buf->size());
  EXPECT_EQ((c.data - buf->data()) % 64, 0);
  float v;
  std::memcpy(&v, c.data, 4);
  EXPECT_EQ(v, 1.5f);
}

// Every dtype as a constant (sub-byte packed, strings), symbolic and unranked types, containers,
// every attribute kind ops.def uses: decoded (not verified: the ops are used loosely here).
const std::string kAllDtypes = R"(plumb 1
func @main(%x: f32[2,N], %s: string[*], %p: bool[]) -> (f32[2,N]) {
)" + std::string(testing::kEveryDtypeConstant) +
                               R"(  %str = constant {value = dense<string[2]>["a\tb\x01", ""]} : string[2]
  %e = constant {value = dense<f32[0,3]>[]} : f32[0,3]
  %m = string %s {kind = regex_full_match, pattern = "a.*\\d", maxsplit = -1} : bool[*]
  %q = sequence {kind = empty, axis = 0, elem = f32[*]} : seq<f32[*]>
  %o = optional {kind = none, elem = map<string,opt<i64[?,"batch size"]>>} : opt<map<string,opt<i64[?,"batch size"]>>>
  %cast = cast %x {to = f16, saturate = true, round = nearest_even} : f16[2,N]
  %t = transpose %x {perm = [1, 0]} : f32[N,2] loc("T", Transpose, 1)
  return %x
}
)";

TEST(SaveLoad, EveryDtypeAndAttributeKindRoundTrips) {
  auto g = parse_graph(kAllDtypes);
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  auto buf = share(save_buffer(*g));
  auto loaded = decode_buffer(buf);
  ASSERT_TRUE(loaded.has_value()) << loaded.status().to_string();
  EXPECT_EQ(print_graph(*loaded), print_graph(*g));
  ASSERT_EQ(loaded->constants.size(), g->constants.size());
  for (size_t i = 0; i < g->constants.size(); ++i) {
    const ConstantData& a = g->constants[i];
    const ConstantData& b = loaded->constants[i];
    EXPECT_EQ(a.type, b.type);
    ASSERT_EQ(a.size, b.size);
    if (a.size) {
      EXPECT_EQ(std::memcmp(a.data, b.data, a.size), 0) << "constant " << i;
    }
    if (b.size) {
      EXPECT_EQ((b.data - buf->data()) % 64, 0);
    }
  }
}

TEST(SaveLoad, ExternalWeightsRoundTrip) {
  Graph g = control_flow_graph();
  Builder b(g);
  (void)b;
  const std::string dir = temp_dir();
  SaveOptions opt;
  opt.external_threshold = 1;  // every non-empty constant goes out
  ASSERT_TRUE(save_file(g, dir + "/m.plumb", opt).is_ok());
  std::ifstream w(dir + "/m.plumb.weights", std::ios::binary);
  ASSERT_TRUE(w.good());
  auto loaded = load_file(dir + "/m.plumb");
  ASSERT_TRUE(loaded.has_value()) << loaded.status().to_string();
  EXPECT_EQ(print_graph(*loaded), print_graph(g));
  float v;
  std::memcpy(&v, loaded->constants[0].data, 4);
  EXPECT_EQ(v, 1.5f);
  // The weights file truncated: the constant's bytes are outside it (file.F8).
  std::fclose(std::fopen((dir + "/m.plumb.weights").c_str(), "wb"));
  auto truncated = load_file(dir + "/m.plumb");
  ASSERT_FALSE(truncated.has_value());
  EXPECT_EQ(truncated.status().label(), "file.F8");
  // A symlink that leaves the model's folder is refused.
  const std::string outside = temp_dir() + "/w";
  ASSERT_TRUE(save_file(g, dir + "/m.plumb", opt).is_ok());
  std::rename((dir + "/m.plumb.weights").c_str(), outside.c_str());
  ASSERT_EQ(symlink(outside.c_str(), (dir + "/m.plumb.weights").c_str()), 0);
  auto escaped = load_file(dir + "/m.plumb");
  ASSERT_FALSE(escaped.has_value());
  EXPECT_EQ(escaped.status().label(), "file.F8");
  EXPECT_NE(escaped.status().message().find("outside"), std::string::npos) << escaped.status().to_string();
  // Without a folder (load_buffer), external weights cannot be found.
  std::ifstream f(dir + "/m.plumb", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto no_dir = load_buffer(share(bytes));
  ASSERT_FALSE(no_dir.has_value());
  EXPECT_EQ(no_dir.status().label(), "file.F8");
}

TEST(SaveLoad, TextSurvivesSaveLoadPrint) {
  Graph g = control_flow_graph();
  const std::string text = print_graph(g);
  auto again = parse_graph(text);
  ASSERT_TRUE(again.has_value());
  auto loaded = load_buffer(share(save_buffer(*again)));
  ASSERT_TRUE(loaded.has_value()) << loaded.status().to_string();
  EXPECT_EQ(print_graph(*loaded), text);
}

}  // namespace
}  // namespace plumb::ir
