// ModelProto -> OnnxModel: attributes, subgraphs, opsets, functions, external data, errors.
#include "frontends/onnx/model.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "onnx/onnx_pb.h"

namespace plumb::onnx {
namespace {

::onnx::ModelProto tiny_model(int64_t ir = 8, int64_t opset = 17) {
  ::onnx::ModelProto m;
  m.set_ir_version(ir);
  m.set_producer_name("test");
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* x = g->add_input();
  x->set_name("x");
  auto* tt = x->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(1);
  tt->mutable_shape()->add_dim()->set_dim_param("N");
  tt->mutable_shape()->add_dim()->set_dim_value(3);
  tt->mutable_shape()->add_dim();  // unknown
  auto* y = g->add_output();
  y->set_name("y");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(1);
  auto* n = g->add_node();
  n->set_name("relu");
  n->set_op_type("Relu");
  n->add_input("x");
  n->add_output("y");
  return m;
}

std::string serialize(const ::onnx::ModelProto& m) {
  std::string s;
  EXPECT_TRUE(m.SerializeToString(&s));
  return s;
}

TEST(OnnxModel, ReadsGraphAndSymbolicDims) {
  auto m = parse_model(serialize(tiny_model()));
  ASSERT_TRUE(m) << m.status().to_string();
  EXPECT_EQ(m->ir_version, 8);
  EXPECT_EQ(m->opset(""), 17);
  EXPECT_EQ(m->opset("ai.onnx"), 17);
  ASSERT_EQ(m->graph.inputs.size(), 1u);
  ASSERT_TRUE(m->graph.inputs[0].type);
  const ir::Type& t = *m->graph.inputs[0].type;
  EXPECT_EQ(t.dtype, ir::DType::F32);
  ASSERT_EQ(t.shape.size(), 3u);
  EXPECT_EQ(t.shape[0], ir::Dim::symbolic("N"));
  EXPECT_EQ(t.shape[1], ir::Dim(3));
  EXPECT_EQ(t.shape[2], ir::Dim::symbolic());
  EXPECT_FALSE(m->graph.outputs[0].type->ranked);  // no shape given
  ASSERT_EQ(m->graph.nodes.size(), 1u);
  EXPECT_EQ(m->graph.nodes[0].op_type, "Relu");
  EXPECT_EQ(m->graph.nodes[0].inputs, (std::vector<std::string>{"x"}));
}

TEST(OnnxModel, AttributesOfEveryKind) {
  auto pm = tiny_model();
  auto* n = pm.mutable_graph()->mutable_node(0);
  auto add = [&](const char* name, ::onnx::AttributeProto_AttributeType t) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(t);
    return a;
  };
  add("f", ::onnx::AttributeProto::FLOAT)->set_f(0.5f);
  add("i", ::onnx::AttributeProto::INT)->set_i(-7);
  add("s", ::onnx::AttributeProto::STRING)->set_s("abc");
  auto* t = add("t", ::onnx::AttributeProto::TENSOR)->mutable_t();
  t->set_data_type(7);
  t->add_int64_data(9);
  auto* g = add("g", ::onnx::AttributeProto::GRAPH)->mutable_g();
  g->set_name("body");
  auto* bn = g->add_node();
  bn->set_op_type("Identity");
  bn->add_input("x");
  bn->add_output("z");
  auto* fs = add("fs", ::onnx::AttributeProto::FLOATS);
  fs->add_floats(1.0f);
  fs->add_floats(2.0f);
  auto* is = add("is", ::onnx::AttributeProto::INTS);
  is->add_ints(3);
  auto* ss = add("ss", ::onnx::AttributeProto::STRINGS);
  ss->add_strings("u");
  auto* ts = add("ts", ::onnx::AttributeProto::TENSORS);
  ts->add_tensors()->set_data_type(1);
  ts->mutable_tensors(0)->add_float_data(4.0f);
  auto* gs = add("gs", ::onnx::AttributeProto::GRAPHS);
  gs->add_graphs()->set_name("a");
  gs->add_graphs()->set_name("b");
  auto* sp = add("sp", ::onnx::AttributeProto::SPARSE_TENSOR)->mutable_sparse_tensor();
  sp->add_dims(3);
  sp->mutable_values()->set_data_type(6);
  sp->mutable_values()->add_dims(1);
  sp->mutable_values()->add_int32_data(5);
  sp->mutable_indices()->set_data_type(7);
  sp->mutable_indices()->add_dims(1);
  sp->mutable_indices()->add_int64_data(2);
  auto* tp = add("tp", ::onnx::AttributeProto::TYPE_PROTO)->mutable_tp();
  tp->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(7);
  auto* tps = add("tps", ::onnx::AttributeProto::TYPE_PROTOS);
  tps->add_type_protos()->mutable_tensor_type()->set_elem_type(10);

  auto m = parse_model(serialize(pm));
  ASSERT_TRUE(m) << m.status().to_string();
  const OnnxNode& node = m->graph.nodes[0];
  EXPECT_EQ(*node.attr_float("f", 0), 0.5f);
  EXPECT_EQ(*node.attr_int("i", 0), -7);
  EXPECT_EQ(*node.attr_int("missing", 11), 11);
  EXPECT_FALSE(node.attr_int("f", 0));  // wrong kind: an error, not a silent default
  EXPECT_EQ(*node.attr_string("s", ""), "abc");
  EXPECT_EQ(node.attr("t")->t.bytes(), (std::vector<uint8_t>{9, 0, 0, 0, 0, 0, 0, 0}));
  ASSERT_TRUE(node.attr("g")->g);
  EXPECT_EQ(node.attr("g")->g->name, "body");
  EXPECT_EQ(node.attr("g")->g->nodes[0].op_type, "Identity");
  EXPECT_EQ(*node.attr_floats("fs", {}), (std::vector<float>{1.0f, 2.0f}));
  EXPECT_EQ(*node.attr_ints("is", {}), (std::vector<int64_t>{3}));
  EXPECT_EQ(node.attr("ss")->strings, (std::vector<std::string>{"u"}));
  EXPECT_EQ(node.attr("ts")->tensors.size(), 1u);
  ASSERT_EQ(node.attr("gs")->graphs.size(), 2u);
  EXPECT_EQ(node.attr("gs")->graphs[1]->name, "b");
  EXPECT_EQ(node.attr("sp")->t.bytes(), (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0}));
  ASSERT_TRUE(node.attr("tp")->tp);
  EXPECT_EQ(ir::type_to_string(*node.attr("tp")->tp),
            ir::type_to_string(ir::Type::sequence(ir::Type::unranked_tensor(ir::DType::I64))));
  ASSERT_EQ(node.attr("tps")->type_protos.size(), 1u);
  EXPECT_EQ(node.attr("tps")->type_protos[0]->dtype, ir::DType::F16);
}

TEST(OnnxModel, SparseInitializerIsDensified) {
  auto pm = tiny_model();
  auto* sp = pm.mutable_graph()->add_sparse_initializer();
  sp->add_dims(2);
  sp->add_dims(2);
  sp->mutable_values()->set_name("w");
  sp->mutable_values()->set_data_type(7);
  sp->mutable_values()->add_dims(1);
  sp->mutable_values()->add_int64_data(-1);
  sp->mutable_indices()->set_data_type(7);
  sp->mutable_indices()->add_dims(1);
  sp->mutable_indices()->add_int64_data(3);
  auto m = parse_model(serialize(pm));
  ASSERT_TRUE(m) << m.status().to_string();
  const Tensor* w = m->graph.initializer("w");
  ASSERT_NE(w, nullptr);
  std::vector<uint8_t> expect(32, 0);
  std::memset(expect.data() + 24, 0xFF, 8);
  EXPECT_EQ(w->bytes(), expect);
  EXPECT_EQ(w->dims, (std::vector<int64_t>{2, 2}));
}

TEST(OnnxModel, VersionsOutOfRangeAreUnsupported) {
  auto m = parse_model(serialize(tiny_model(14)));
  ASSERT_FALSE(m);
  EXPECT_EQ(m.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(m.status().message().find("IR version 14"), std::string::npos);
  m = parse_model(serialize(tiny_model(2)));
  EXPECT_EQ(m.status().code(), ErrorCode::kUnsupported);
  m = parse_model(serialize(tiny_model(8, 29)));
  ASSERT_FALSE(m);
  EXPECT_EQ(m.status().code(), ErrorCode::kUnsupported);
  EXPECT_NE(m.status().message().find("ai.onnx version 29"), std::string::npos) << m.status().message();
  EXPECT_TRUE(parse_model(serialize(tiny_model(13, 28))));
  EXPECT_TRUE(parse_model(serialize(tiny_model(3, 1))));
  auto pm = tiny_model();
  auto* ml = pm.add_opset_import();
  ml->set_domain("ai.onnx.ml");
  ml->set_version(99);
  EXPECT_EQ(parse_model(serialize(pm)).status().code(), ErrorCode::kUnsupported);
  pm.mutable_opset_import(1)->set_version(3);
  m = parse_model(serialize(pm));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->opset("ai.onnx.ml"), 3);
  EXPECT_EQ(m->opset("ai.onnx.preview.training"), 0);
}

TEST(OnnxModel, MalformedProtobufIsInvalidModel) {
  const std::string good = serialize(tiny_model());
  int failures = 0;
  for (size_t cut = 1; cut < good.size(); ++cut) {
    auto m = parse_model(good.substr(0, cut));  // never a crash; most cuts are errors
    if (!m) {
      EXPECT_EQ(m.status().code(), ErrorCode::kInvalidModel) << m.status().to_string();
      ++failures;
    }
  }
  EXPECT_GT(failures, 0);
  auto g = parse_model(std::string("\xff\xff\xff\xff garbage", 12));
  ASSERT_FALSE(g);
  EXPECT_EQ(g.status().code(), ErrorCode::kInvalidModel);
  EXPECT_FALSE(load_model("/tmp"));  // a folder, not a file
  auto f = load_model("/nonexistent/model.onnx");
  ASSERT_FALSE(f);
  EXPECT_EQ(f.status().place(), "/nonexistent/model.onnx");
}

TEST(OnnxModel, InitializerDimsDataMismatchNamesTheTensor) {
  auto pm = tiny_model();
  auto* w = pm.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(1);
  w->add_dims(4);
  w->add_float_data(1.0f);
  auto m = parse_model(serialize(pm));
  ASSERT_FALSE(m);
  EXPECT_EQ(m.status().code(), ErrorCode::kInvalidModel);
  EXPECT_NE(m.status().to_string().find("initializer 'w'"), std::string::npos) << m.status().to_string();
}

// Issue 23's hostile models (tests/cli/hostile.sh): a name defined twice was once taken silently, the
// later definition winning; now each is an error naming the graph and the name.
std::string definition_error(const ::onnx::ModelProto& pm) {
  auto m = parse_model(serialize(pm));
  if (m) return "loaded";
  EXPECT_EQ(m.status().code(), ErrorCode::kInvalidModel);
  return m.status().to_string();
}

TEST(OnnxModelHostile, NamesAreDefinedOnce) {
  auto pm = tiny_model();
  *pm.mutable_graph()->add_node() = pm.graph().node(0);  // a second Relu writing y
  EXPECT_EQ(definition_error(pm),
            "graph 'g': node 'relu' (Relu): output 'y' is already defined by node 'relu' (Relu)");

  pm = tiny_model();
  *pm.mutable_graph()->add_input() = pm.graph().input(0);
  EXPECT_EQ(definition_error(pm), "graph 'g': input 'x' is declared twice");

  pm = tiny_model();
  pm.mutable_graph()->mutable_node(0)->set_output(0, "x");
  EXPECT_EQ(definition_error(pm),
            "graph 'g': node 'relu' (Relu): output 'x' is already defined by graph input 'x'");

  pm = tiny_model();
  pm.mutable_graph()->mutable_input(0)->set_name("");
  EXPECT_EQ(definition_error(pm), "graph 'g': input #0 has an empty name");

  pm = tiny_model();
  for (int i = 0; i < 2; ++i) {
    auto* w = pm.mutable_graph()->add_initializer();
    w->set_name("w");
    w->set_data_type(1);
    w->add_float_data(1.0f);
  }
  EXPECT_EQ(definition_error(pm), "graph 'g': initializer 'w' is given twice");

  // IR < 4 lists an initializer among the inputs too: still one definition.
  pm = tiny_model(3, 9);
  auto* w = pm.mutable_graph()->add_initializer();
  w->set_name("x");
  w->set_data_type(1);
  w->add_dims(1);
  w->add_float_data(1.0f);
  EXPECT_EQ(definition_error(pm), "loaded");
}

TEST(OnnxModelHostile, NamesAndStringsAreUtf8) {
  auto pm = tiny_model();
  pm.mutable_graph()->mutable_node(0)->set_name("\xff\xfe");
  EXPECT_EQ(definition_error(pm), "node #0: the node's name is not valid UTF-8");

  pm = tiny_model();
  pm.mutable_graph()->mutable_node(0)->set_output(0, "y\xc0\xaf");  // an overlong '/'
  EXPECT_EQ(definition_error(pm), "node 'relu' (Relu): the node's output 0 is not valid UTF-8");

  pm = tiny_model();
  pm.mutable_graph()->mutable_input(0)->set_name("x\xed\xa0\x80");  // a surrogate
  EXPECT_NE(definition_error(pm).find("name is not valid UTF-8"), std::string::npos);

  pm = tiny_model();
  auto* s = pm.mutable_graph()->add_initializer();
  s->set_name("s");
  s->set_data_type(8);  // string
  s->add_dims(2);
  s->add_string_data("caf\xc3\xa9");  // valid: U+00E9
  s->add_string_data("caf\xc3");      // cut short
  EXPECT_EQ(definition_error(pm),
            "graph 'g': initializer 's': tensor 's': string element 1 is not valid UTF-8");
}

// Appends a length-delimited field to a serialized message (fields newer than libonnx 1.12).
void append_len_field(std::string& msg, int number, const std::string& payload) {
  uint64_t tag = (static_cast<uint64_t>(number) << 3) | 2;
  for (uint64_t v : {tag, static_cast<uint64_t>(payload.size())}) {
    while (v >= 0x80) {
      msg.push_back(static_cast<char>((v & 0x7F) | 0x80));
      v >>= 7;
    }
    msg.push_back(static_cast<char>(v));
  }
  msg += payload;
}

TEST(OnnxModel, LocalFunctionsKeepAttributeDefaultsAndOverload) {
  ::onnx::FunctionProto f;
  f.set_name("MyRelu");
  f.set_domain("local");
  f.add_input("a");
  f.add_output("b");
  f.add_attribute("alpha");
  auto* op = f.add_opset_import();
  op->set_domain("");
  op->set_version(17);
  auto* n = f.add_node();
  n->set_op_type("LeakyRelu");
  n->add_input("a");
  n->add_output("b");
  auto* ref = n->add_attribute();
  ref->set_name("alpha");
  ref->set_type(::onnx::AttributeProto::FLOAT);
  ref->set_ref_attr_name("beta");
  std::string fbytes;
  ASSERT_TRUE(f.SerializeToString(&fbytes));
  ::onnx::AttributeProto dflt;
  dflt.set_name("beta");
  dflt.set_type(::onnx::AttributeProto::FLOAT);
  dflt.set_f(0.25f);
  std::string abytes;
  ASSERT_TRUE(dflt.SerializeToString(&abytes));
  append_len_field(fbytes, 11, abytes);  // FunctionProto.attribute_proto (IR 9)
  append_len_field(fbytes, 13, "v2");    // FunctionProto.overload (IR 10)

  auto pm = tiny_model(10);
  pm.add_functions()->ParseFromString(fbytes);
  auto* call = pm.mutable_graph()->mutable_node(0);
  call->set_op_type("MyRelu");
  call->set_domain("local");
  auto* lo = pm.add_opset_import();
  lo->set_domain("local");
  lo->set_version(1);
  auto m = parse_model(serialize(pm));
  ASSERT_TRUE(m) << m.status().to_string();
  ASSERT_EQ(m->functions().size(), 1u);
  const OnnxFunction* fn = m->function("local", "MyRelu", "v2");
  ASSERT_NE(fn, nullptr);
  EXPECT_EQ(fn->attributes, (std::vector<std::string>{"alpha"}));
  ASSERT_EQ(fn->attribute_defaults.size(), 1u);
  EXPECT_EQ(fn->attribute_defaults[0].name, "beta");
  EXPECT_EQ(fn->attribute_defaults[0].f, 0.25f);
  EXPECT_EQ(fn->nodes[0].attr("alpha")->ref_attr_name, "beta");
  EXPECT_EQ(fn->opsets.at(""), 17);
  EXPECT_EQ(m->function("local", "MyRelu"), nullptr);  // other overload
}

// The function index: found by (canonical domain, name, overload), a second definition refused.
TEST(OnnxModel, FunctionIndexFindsEachOnceAndRefusesADuplicate) {
  OnnxModel m;
  for (int i = 0; i < 1000; ++i) {
    OnnxFunction f;
    f.domain = "local";
    f.name = "f" + std::to_string(i);
    ASSERT_TRUE(m.add_function(f));
  }
  OnnxFunction onnx_domain;
  onnx_domain.name = "f0";  // domain "" is ai.onnx: another key than local.f0
  ASSERT_TRUE(m.add_function(onnx_domain));
  EXPECT_EQ(m.functions().size(), 1001u);
  ASSERT_NE(m.function("local", "f999"), nullptr);
  EXPECT_EQ(m.function("local", "f999")->name, "f999");
  EXPECT_EQ(m.function("ai.onnx", "f0"), &m.functions().back());
  EXPECT_EQ(m.function("local", "f1000"), nullptr);
  EXPECT_EQ(m.function("local", "f1", "v2"), nullptr);
  OnnxFunction again;
  again.domain = "local";
  again.name = "f7";
  Status s = m.add_function(again);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("'local.f7' is defined twice"), std::string::npos) << s.to_string();
  EXPECT_EQ(m.functions().size(), 1001u);
}

TEST(OnnxModel, ReadsTestDataSetInOrder) {
  const std::string dir = std::string(PLUMB_SHARED_DIR) + "/onnx-backend-node/test_add";
  auto m = load_model(dir + "/model.onnx");
  if (!m) GTEST_SKIP() << "no backend-node suite";
  auto in = read_test_data_set(dir + "/test_data_set_0", m->graph, false);
  ASSERT_TRUE(in) << in.status().to_string();
  ASSERT_EQ(in->size(), 2u);
  EXPECT_EQ((*in)[0].tensor.dims, (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ((*in)[0].tensor.dtype, ir::DType::F32);
  auto out = read_test_data_set(dir + "/test_data_set_0", m->graph, true);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->size(), 1u);
}

// --- external data ---------------------------------------------------------------------------

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/plumb_onnx_test_XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  void write(const std::string& name, const std::string& bytes) const {
    std::ofstream(path + "/" + name, std::ios::binary) << bytes;
  }
};

::onnx::ModelProto external_model(const std::string& location, const std::string& offset,
                                  const std::string& length) {
  auto pm = tiny_model();
  auto* w = pm.mutable_graph()->add_initializer();
  w->set_name("w");
  w->set_data_type(1);
  w->add_dims(2);
  w->set_data_location(::onnx::TensorProto_DataLocation_EXTERNAL);
  auto kv = [&](const char* k, const std::string& v) {
    if (v.empty()) return;
    auto* e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  kv("location", location);
  kv("offset", offset);
  kv("length", length);
  return pm;
}

TEST(OnnxModelExternalData, LoadsRelativeFile) {
  TempDir d;
  // 4 bytes of padding, then 1.0f and -2.0f
  d.write("w.bin", std::string("PAD!\x00\x00\x80\x3f\x00\x00\x00\xc0", 12));
  d.write("model.onnx", serialize(external_model("w.bin", "4", "8")));
  auto m = load_model(d.path + "/model.onnx");
  ASSERT_TRUE(m) << m.status().to_string();
  const Tensor* w = m->graph.initializer("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->bytes(), (std::vector<uint8_t>{0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0}));
  auto c = w->to_constant();
  EXPECT_EQ(c.size, 8u);
  EXPECT_EQ(c.type, ir::Type::tensor(ir::DType::F32, ir::static_shape({2})));
  // Without a length, the rest of the file is the tensor.
  d.write("model2.onnx", serialize(external_model("w.bin", "4", "")));
  EXPECT_TRUE(load_model(d.path + "/model2.onnx"));
}

TEST(OnnxModelExternalData, RejectsEscapesAndBadRanges) {
  TempDir d, outside;
  outside.write("secret.bin", std::string(8, '\x01'));
  d.write("w.bin", std::string(8, '\0'));
  mkdir((d.path + "/sub").c_str(), 0755);
  ASSERT_EQ(symlink((outside.path + "/secret.bin").c_str(), (d.path + "/link.bin").c_str()), 0);
  struct Case {
    const char* location;
    const char* offset;
    const char* length;
    const char* says;
  } cases[] = {
      {"../x.bin", "", "", "'..'"},         {"sub/../../x.bin", "", "", "'..'"},
      {"/etc/passwd", "", "", "absolute"},  {"link.bin", "", "", "outside"},
      {"missing.bin", "", "", "not found"}, {"w.bin", "9", "", "past the end"},
      {"w.bin", "4", "8", "past the end"},  {"w.bin", "0", "4", "8 bytes needed"},
      {"w.bin", "x1", "", "not a decimal"},
  };
  for (const auto& c : cases) {
    d.write("model.onnx", serialize(external_model(c.location, c.offset, c.length)));
    auto m = load_model(d.path + "/model.onnx");
    ASSERT_FALSE(m) << c.location;
    EXPECT_EQ(m.status().code(), ErrorCode::kInvalidModel) << c.location;
    EXPECT_NE(m.status().message().find(c.says), std::string::npos)
        << c.location << ": " << m.status().to_string();
    EXPECT_EQ(m.status().place().rfind(d.path + "/model.onnx", 0), 0u) << m.status().place();
  }
}

// A model whose external weights lie past 2 GiB loads without reading them into one protobuf:
// the file is sparse (no disk used) and mapped, not read.
TEST(OnnxModelExternalData, LoadsPastTwoGiB) {
  TempDir d;
  const std::string file = d.path + "/big.bin";
  const int fd = open(file.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  const off_t offset = (off_t{1} << 31) + 4096;
  const float vals[2] = {3.0f, -1.0f};
  ASSERT_EQ(pwrite(fd, vals, 8, offset), 8);
  ASSERT_EQ(ftruncate(fd, offset + 4096), 0);
  close(fd);
  auto pm = external_model("big.bin", std::to_string(offset), "8");
  // A second, 2 GiB tensor over the sparse head of the file.
  auto* w2 = pm.mutable_graph()->add_initializer();
  w2->set_name("w2");
  w2->set_data_type(2);
  w2->add_dims(int64_t{1} << 31);
  w2->set_data_location(::onnx::TensorProto_DataLocation_EXTERNAL);
  auto* e = w2->add_external_data();
  e->set_key("location");
  e->set_value("big.bin");
  e = w2->add_external_data();
  e->set_key("length");
  e->set_value(std::to_string(int64_t{1} << 31));
  d.write("model.onnx", serialize(pm));
  auto m = load_model(d.path + "/model.onnx");
  ASSERT_TRUE(m) << m.status().to_string();
  const Tensor* w = m->graph.initializer("w");
  ASSERT_NE(w, nullptr);
  float got[2];
  std::memcpy(got, w->data, 8);
  EXPECT_EQ(got[0], 3.0f);
  EXPECT_EQ(got[1], -1.0f);
  EXPECT_EQ(m->graph.initializer("w2")->size, uint64_t{1} << 31);
}

}  // namespace
}  // namespace plumb::onnx
