// Attribute defaults are written in each rule (STYLE 2.3); this black-box test cross-checks them
// against libonnx 1.12's schemas. For every schema (op, since-version) that has a rule and
// attributes with a default value, a one-node model is lowered twice per such attribute: once
// without it and once with it set to the schema's default. The two core graphs must print the
// same (or both lowerings fail with the same error); a difference is a wrong default in the rule.
#include <gtest/gtest.h>
#include <onnx/defs/attr_proto_util.h>
#include <onnx/defs/schema.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frontends/onnx/model.h"
#include "ir/text.h"
#include "lowering/onnx/driver.h"
#include "lowering/onnx/registry.h"
#include "runtime/ref_evaluator.h"
#include "tests/lowering/one_node.h"

namespace plumb::lower {
namespace {

namespace px = ::onnx;  // libonnx's protobuf and schema types
using Ints = std::vector<int64_t>;

// One input of the test node: an element type ("float", "int64"; empty leaves the input out), a
// static shape, and for an initializer its values.
struct In {
  std::string type;
  Ints shape;
  std::optional<std::vector<double>> values;  // set: given as an initializer
};
In x(Ints shape, std::string type = "float") { return In{std::move(type), std::move(shape), std::nullopt}; }
In c(Ints shape, std::vector<double> values, std::string type = "int64") {
  return In{std::move(type), std::move(shape), std::move(values)};
}
const In kOmitted{};

// Where the generic choice (every required input a float tensor of shape [1, 2, 3, 3], required
// attributes 1 / 1.0 / [1, 1]) does not make a lowerable node.
struct Override {
  std::vector<In> inputs = {};                 // empty: the generic inputs
  std::vector<px::AttributeProto> attrs = {};  // required (or needed) attributes
  int outputs = 0;                             // 0: the schema's required outputs
};
template <typename T>
px::AttributeProto a(const std::string& name, T v) {
  return px::MakeAttribute(name, v);
}

const Ints k4{1, 2, 3, 3};

std::map<std::string, Override> overrides() {
  const std::vector<double> axes1{1};
  std::map<std::string, Override> o;
  // Pools and convolutions: NCHW input, 2x2 kernels.
  for (const char* op : {"AveragePool", "MaxPool", "LpPool"})
    o[op] = {{x(k4)}, {a("kernel_shape", Ints{2, 2})}};
  o["Conv"] = {{x(k4), x({2, 2, 2, 2})}};
  o["ConvTranspose"] = {{x(k4), x({2, 2, 2, 2})}};
  o["ConvInteger"] = {{x(k4, "uint8"), x({2, 2, 2, 2}, "uint8")}};
  o["QLinearConv"] = {{x(k4, "uint8"), c({}, {1}, "float"), c({}, {0}, "uint8"), x({2, 2, 2, 2}, "uint8"),
                       c({}, {1}, "float"), c({}, {0}, "uint8"), c({}, {1}, "float"), c({}, {0}, "uint8")}};
  o["MaxRoiPool"] = {{x(k4), x({1, 5})}, {a("pooled_shape", Ints{2, 2})}};
  o["RoiAlign"] = {{x(k4), x({1, 4}), x({1}, "int64")}};
  // Normalizations: per-channel parameters.
  o["BatchNormalization"] = {{x(k4), x({2}), x({2}), x({2}), x({2})}};
  o["InstanceNormalization"] = {{x(k4), x({2}), x({2})}};
  o["LayerNormalization"] = {{x(k4), x({3})}};
  // Matrix products.
  o["Gemm"] = {{x({3, 3}), x({3, 3}), x({3, 3})}};
  // Indexing: integer indices in range.
  o["Gather"] = {{x(k4), x({2}, "int64")}};
  o["GatherElements"] = {{x(k4), x(k4, "int64")}};
  o["GatherND"] = {{x(k4), x({1, 2, 1}, "int64")}};
  o["Scatter"] = {{x(k4), x(k4, "int64"), x(k4)}};
  o["ScatterElements"] = {{x(k4), x(k4, "int64"), x(k4)}};
  o["ScatterND"] = {{x(k4), x({1, 1}, "int64"), x({1, 2, 3, 3})}};
  o["OneHot"] = {{x({3}, "int64"), c({}, {4}), c({2}, {0, 1}, "float")}};
  o["TopK"] = {{x(k4), c({1}, {2})}};
  o["TopK-1"] = {{x(k4)}, {a("k", int64_t{2})}};
  o["CumSum"] = {{x(k4), c({}, {1})}};
  o["Trilu"] = {{x(k4)}};
  o["ReverseSequence"] = {{x({3, 2, 4}), x({2}, "int64")}};
  o["Unique"] = {{x({6})}};
  // Shapes and constant parameters.
  o["Reshape"] = {{x(k4), c({2}, {2, 9})}};
  o["Pad"] = {{x(k4), c({8}, {0, 0, 1, 1, 0, 0, 1, 1})}};
  o["Pad-1"] = {{x(k4)}, {a("paddings", Ints{0, 0, 1, 1, 0, 0, 1, 1})}};
  o["Pad-2"] = {{x(k4)}, {a("pads", Ints{0, 0, 1, 1, 0, 0, 1, 1})}};
  o["Split"] = {{x({2, 2, 3, 3})}, {}, 2};
  o["Upsample"] = {{x(k4), c({4}, {1, 1, 2, 2}, "float")}};
  o["Upsample-1"] = {{x(k4)}, {a("height_scale", 2.0f), a("width_scale", 2.0f)}};
  o["Upsample-7"] = {{x(k4)}, {a("scales", std::vector<float>{1, 1, 2, 2})}};
  o["Resize"] = {{x(k4), c({0}, {}, "float"), c({4}, {1, 1, 2, 2}, "float")}};
  o["Resize-10"] = {{x(k4), c({4}, {1, 1, 2, 2}, "float")}};
  o["Shape"] = {{x(k4)}};
  o["DepthToSpace"] = {{x({1, 4, 2, 2})}, {a("blocksize", int64_t{2})}};
  o["EyeLike"] = {{x({3, 3})}};
  o["MeanVarianceNormalization"] = {{x(k4)}};
  o["GridSample"] = {{x(k4), x({1, 2, 2, 2})}};
  o["NonMaxSuppression"] = {{x({1, 3, 4}), x({1, 1, 3})}};
  // Reductions take their axes as an input from opset 18 (ReduceSum from 13); none given reduces all.
  o["Mod"] = {{x(k4, "int64"), x(k4, "int64")}};
  o["Dropout"] = {{x(k4)}};
  o["Clip-6"] = {{x(k4)}};
  o["Multinomial"] = {{x({2, 3})}};
  o["RandomNormal"] = {{}, {a("shape", Ints{2, 3}), a("seed", 1.0f)}};
  o["RandomUniform"] = {{}, {a("shape", Ints{2, 3}), a("seed", 1.0f)}};
  o["RandomNormalLike"] = {{x(k4)}, {a("seed", 1.0f)}};
  o["RandomUniformLike"] = {{x(k4)}, {a("seed", 1.0f)}};
  o["Multinomial"].attrs = {a("seed", 1.0f)};
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"}) o[op] = {{c({}, {8})}};
  o["MelWeightMatrix"] = {
      {c({}, {4}), c({}, {16}), c({}, {8000}), c({}, {100}, "float"), c({}, {3000}, "float")}};
  o["DFT"] = {{x({1, 8, 1})}};
  o["STFT"] = {{x({1, 16, 1}), c({}, {4}), x({8}), c({}, {8})}};
  // Losses: class indices as labels.
  o["NegativeLogLikelihoodLoss"] = {{x({2, 3}), x({2}, "int64")}};
  o["SoftmaxCrossEntropyLoss"] = {{x({2, 3}), x({2}, "int64")}};
  // Recurrent layers: X [seq, batch, input], W [dirs, gates*hidden, input], R [dirs, gates*hidden, hidden].
  o["RNN"] = {{x({2, 1, 3}), x({1, 4, 3}), x({1, 4, 4})}, {a("hidden_size", int64_t{4})}};
  o["GRU"] = {{x({2, 1, 3}), x({1, 12, 3}), x({1, 12, 4})}, {a("hidden_size", int64_t{4})}};
  o["LSTM"] = {{x({2, 1, 3}), x({1, 16, 3}), x({1, 16, 4})}, {a("hidden_size", int64_t{4})}};
  // Quantization: per-tensor scale and zero point.
  o["QuantizeLinear"] = {{x(k4), c({}, {0.5}, "float"), c({}, {0}, "uint8")}};
  o["DequantizeLinear"] = {{x(k4, "uint8"), c({}, {0.5}, "float"), c({}, {0}, "uint8")}};
  // Sequences and strings.
  o["StringNormalizer"] = {{x({3}, "string")}};
  // ai.onnx.ml.
  o["LinearClassifier"] = {
      {x({2, 3})}, {a("coefficients", std::vector<float>(6, 0.5f)), a("classlabels_ints", Ints{0, 1})}};
  o["LinearRegressor"] = {{x({2, 3})}, {a("coefficients", std::vector<float>(3, 0.5f))}};
  o["Normalizer"] = {{x({2, 3})}};
  o["Binarizer"] = {{x({2, 3})}};
  o["Imputer"] = {{x({2, 3})}, {a("imputed_value_floats", std::vector<float>{0.0f})}};
  o["OneHotEncoder"] = {{x({2, 3}, "int64")}, {a("cats_int64s", Ints{0, 1, 2})}};
  o["LabelEncoder"] = {{x({3}, "int64")}, {a("keys_int64s", Ints{1, 2}), a("values_int64s", Ints{3, 4})}};
  o["LabelEncoder-1"] = {{x({3}, "int64")}, {a("classes_strings", std::vector<std::string>{"a", "b"})}};
  o["CategoryMapper"] = {
      {x({3}, "int64")},
      {a("cats_int64s", Ints{1, 2}), a("cats_strings", std::vector<std::string>{"a", "b"})}};
  o["SVMRegressor"] = {
      {x({2, 3})},
      {a("coefficients", std::vector<float>{1, 1}), a("support_vectors", std::vector<float>(6, 1)),
       a("rho", std::vector<float>{0}), a("n_supports", int64_t{2})}};
  o["SVMClassifier"] = {{x({2, 3})},
                        {a("coefficients", std::vector<float>(6, 0.5f)), a("rho", std::vector<float>{0}),
                         a("classlabels_ints", Ints{0, 1})}};
  // One tree of one leaf.
  const std::vector<px::AttributeProto> leaf{a("nodes_treeids", Ints{0}),
                                             a("nodes_nodeids", Ints{0}),
                                             a("nodes_featureids", Ints{0}),
                                             a("nodes_values", std::vector<float>{0}),
                                             a("nodes_modes", std::vector<std::string>{"LEAF"}),
                                             a("nodes_truenodeids", Ints{0}),
                                             a("nodes_falsenodeids", Ints{0})};
  o["TreeEnsembleRegressor"] = {{x({2, 3})}, leaf};
  for (const auto& t : {a("target_treeids", Ints{0}), a("target_nodeids", Ints{0}), a("target_ids", Ints{0}),
                        a("target_weights", std::vector<float>{1}), a("n_targets", int64_t{1})})
    o["TreeEnsembleRegressor"].attrs.push_back(t);
  o["TreeEnsembleClassifier"] = {{x({2, 3})}, leaf};
  for (const auto& t : {a("class_treeids", Ints{0}), a("class_nodeids", Ints{0}), a("class_ids", Ints{0}),
                        a("class_weights", std::vector<float>{1}), a("classlabels_int64s", Ints{0, 1})})
    o["TreeEnsembleClassifier"].attrs.push_back(t);
  // ai.onnx.preview.training optimizers: R, T, then one tensor per group.
  o["Adagrad"] = {{c({}, {0.1}, "float"), c({}, {0}), x({3}), x({3}), x({3})}, {}, 2};
  o["Adam"] = {{c({}, {0.1}, "float"), c({}, {0}), x({3}), x({3}), x({3}), x({3})}, {}, 3};
  return o;
}

std::string element_type(const px::OpSchema& s, const std::string& type_str) {
  std::string t = type_str;
  for (const auto& tc : s.typeConstraintParams()) {
    if (tc.type_param_str != type_str) continue;
    t.clear();
    for (const std::string& allowed : tc.allowed_type_strs)
      if (allowed == "tensor(float)" || (t.empty() && allowed.rfind("tensor(", 0) == 0)) t = allowed;
  }
  if (t.rfind("tensor(", 0) != 0) return {};  // a sequence, map or optional: not built here
  return t.substr(7, t.size() - 8);
}

// The generic inputs: each required (and each variadic, once) as a float tensor of shape k4.
std::optional<std::vector<In>> generic_inputs(const px::OpSchema& s) {
  std::vector<In> ins;
  for (const auto& p : s.inputs()) {
    if (p.GetOption() == px::OpSchema::Optional) {
      ins.push_back(kOmitted);
      continue;
    }
    const std::string t = element_type(s, p.GetTypeStr());
    if (t.empty()) return std::nullopt;
    const int copies = p.GetOption() == px::OpSchema::Variadic ? std::max(1, p.GetMinArity()) : 1;
    for (int k = 0; k < copies; ++k) ins.push_back(x(k4, t));
  }
  while (!ins.empty() && ins.back().type.empty()) ins.pop_back();
  return ins;
}

// "float" -> TensorProto::FLOAT (the schema's spelling, upper-cased, is the enum's).
int32_t elem_type(std::string type) {
  for (char& ch : type) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  px::TensorProto_DataType dt = px::TensorProto::UNDEFINED;
  px::TensorProto_DataType_Parse(type, &dt);
  return dt;
}

px::TensorProto initializer(const std::string& name, const In& in) {
  px::TensorProto t;
  t.set_name(name);
  const int32_t dt = elem_type(in.type);
  t.set_data_type(dt);
  for (int64_t d : in.shape) t.add_dims(d);
  for (double v : *in.values) {
    switch (dt) {
      case px::TensorProto::FLOAT: t.add_float_data(static_cast<float>(v)); break;
      case px::TensorProto::DOUBLE: t.add_double_data(v); break;
      case px::TensorProto::INT64: t.add_int64_data(static_cast<int64_t>(v)); break;
      default: t.add_int32_data(static_cast<int32_t>(v)); break;  // int32 and narrower, bool
    }
  }
  return t;
}

std::string one_node_model(const px::OpSchema& s, const std::string& domain, const std::vector<In>& ins,
                           const std::vector<px::AttributeProto>& attrs, int outputs) {
  px::ModelProto m;
  m.set_ir_version(8);
  auto* onnx_import = m.add_opset_import();
  onnx_import->set_domain("");
  onnx_import->set_version(domain.empty() ? s.SinceVersion() : 17);
  if (!domain.empty()) {
    auto* imp = m.add_opset_import();
    imp->set_domain(domain);
    imp->set_version(s.SinceVersion());
  }
  px::GraphProto* g = m.mutable_graph();
  g->set_name("g");
  px::NodeProto* n = g->add_node();
  n->set_name("n0");
  n->set_op_type(s.Name());
  n->set_domain(domain);
  for (const auto& attr : attrs) *n->add_attribute() = attr;
  for (size_t i = 0; i < ins.size(); ++i) {
    const std::string name = ins[i].type.empty() ? "" : "i" + std::to_string(i);
    n->add_input(name);
    if (name.empty()) continue;
    if (ins[i].values) {
      *g->add_initializer() = initializer(name, ins[i]);
      continue;
    }
    auto* vi = g->add_input();
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem_type(ins[i].type));
    for (int64_t d : ins[i].shape) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  for (int k = 0; k < outputs; ++k) {
    n->add_output("o" + std::to_string(k));
    g->add_output()->set_name("o" + std::to_string(k));
  }
  return m.SerializeAsString();
}

// The printed core graph, or "error: ..." when parsing or lowering fails.
std::string lowered(const std::string& bytes) {
  auto m = onnx::parse_model(bytes, "/nonexistent");
  if (!m.has_value()) return "error: " + m.status().to_string();
  auto g = lower_model(*m, rt::RefEvaluator());
  if (!g.has_value()) return "error: " + g.status().to_string();
  return ir::print_graph(*g);
}

bool failed(const std::string& printed) { return printed.rfind("error: ", 0) == 0; }

// Pairs whose difference is the schema's fault, not the rule's.
const std::map<std::string, std::string> kSchemaFaults = {
    {"GRU-1.direction",
     "libonnx 1.12's GRU-1 schema spells its default 'foward' (GRU-3 fixed it to 'forward'); the rule "
     "reads an absent direction as forward and refuses the misspelling"},
};

TEST(LowerRegistry, DefaultsMatchOnnxSchema) {
  const auto table = overrides();
  int compared = 0, schemas_checked = 0;
  std::map<std::string, int> skipped;  // reason -> (op, attribute) pairs
  std::map<std::string, std::vector<std::string>> skipped_pairs;
  for (const px::OpSchema& s : px::OpSchemaRegistry::get_all_schemas_with_history()) {
    const std::string domain = onnx::canonical_domain(s.domain());
    if (!domain.empty() && domain != "ai.onnx.ml" && domain != "ai.onnx.preview.training") continue;
    std::vector<const px::OpSchema::Attribute*> defaulted;
    for (const auto& [name, attr] : s.attributes())
      if (attr.default_value.type() != px::AttributeProto::UNDEFINED) defaulted.push_back(&attr);
    if (defaulted.empty()) continue;
    const std::string id =
        (domain.empty() ? "" : domain + ".") + s.Name() + "-" + std::to_string(s.SinceVersion());
    auto skip = [&](const std::string& why, const std::string& pair) {
      ++skipped[why];
      skipped_pairs[why].push_back(pair);
    };
    if (!default_registry().find(domain, s.Name(), s.SinceVersion())) {
      for (const auto* attr : defaulted) skip("no rule", id + "." + attr->name);
      continue;
    }
    // The override for this exact version, else for the op.
    const Override* o = nullptr;
    if (auto it = table.find(s.Name() + "-" + std::to_string(s.SinceVersion())); it != table.end())
      o = &it->second;
    else if (auto it2 = table.find(s.Name()); it2 != table.end())
      o = &it2->second;
    std::vector<In> ins;
    if (o && !o->inputs.empty()) {
      ins = o->inputs;
    } else if (auto g = generic_inputs(s)) {
      ins = *g;
    } else {
      for (const auto* attr : defaulted) skip("an input is not a tensor", id + "." + attr->name);
      continue;
    }
    std::vector<px::AttributeProto> base = o ? o->attrs : std::vector<px::AttributeProto>{};
    for (const auto& [name, attr] : s.attributes()) {
      if (!attr.required) continue;
      bool given = false;
      for (const auto& b : base) given |= b.name() == name;
      if (given) continue;
      if (attr.type == px::AttributeProto::INT) base.push_back(a(name, int64_t{1}));
      if (attr.type == px::AttributeProto::FLOAT) base.push_back(a(name, 1.0f));
      if (attr.type == px::AttributeProto::INTS) base.push_back(a(name, Ints{1, 1}));
    }
    int outputs = o && o->outputs ? o->outputs : 0;
    if (!outputs)
      for (const auto& p : s.outputs()) outputs += p.GetOption() == px::OpSchema::Optional ? 0 : 1;
    ++schemas_checked;
    for (const auto* attr : defaulted) {
      std::vector<px::AttributeProto> without, with_default = base;
      for (const auto& b : base)
        if (b.name() != attr->name) without.push_back(b);
      with_default.erase(std::remove_if(with_default.begin(), with_default.end(),
                                        [&](const px::AttributeProto& b) { return b.name() == attr->name; }),
                         with_default.end());
      px::AttributeProto d = attr->default_value;
      d.set_name(attr->name);
      with_default.push_back(d);
      const std::string omitted = lowered(one_node_model(s, domain, ins, without, outputs));
      const std::string explicit_default = lowered(one_node_model(s, domain, ins, with_default, outputs));
      const std::string pair = id + "." + attr->name;
      if (auto fault = kSchemaFaults.find(pair); fault != kSchemaFaults.end()) {
        skip("the schema's default is wrong", pair + " (" + fault->second + ")");
        continue;
      }
      if (!failed(omitted) && !failed(explicit_default)) ++compared;
      if (failed(omitted) && failed(explicit_default) && omitted == explicit_default)
        skip("both lowerings fail alike", pair + " (" + omitted.substr(7) + ")");
      EXPECT_EQ(omitted, explicit_default) << pair << ": the rule's default differs from the ONNX schema's";
    }
  }
  int total_skipped = 0;
  std::cout << "[ defaults ] " << schemas_checked << " schemas with a rule; " << compared
            << " (op, attribute) pairs compared with both lowerings succeeding\n";
  for (const auto& [why, n] : skipped) {
    total_skipped += n;
    std::cout << "[ defaults ] skipped " << n << ": " << why << "\n";
    if (std::getenv("PLUMB_VERBOSE_DEFAULTS"))
      for (const std::string& p : skipped_pairs[why]) std::cout << "    " << p << "\n";
  }
  // A floor, so that a change which makes lowerings fail alike cannot hollow the check out unseen.
  EXPECT_GE(compared, 378);
  RecordProperty("compared", compared);
  RecordProperty("skipped", total_skipped);
}

// The defaults the cross-check above corrected, by their values (computed with numpy).
namespace behaviour {
using testing::ExpectNear;
using testing::FloatAttr;
using testing::NodeInput;
using testing::RunOneNode;
using testing::Values;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kFloatMax = 3.4028234663852886e+38;

// Selu-1's schema defaults are alpha 1.6732f, gamma 1.0507f (not Selu-6's 1.67326319f, 1.05070102f).
TEST(LowerRegistry, Selu1SchemaDefaults) {
  auto out = RunOneNode("Selu", 1, {NodeInput{{2}, {-1.0, 2.0}}}, {}, 1);
  ASSERT_EQ(out.size(), 1u);
  ExpectNear(Values(out[0]), {-1.1112875938415527, 2.1013998985290527}, 0.0);
}

// Clip-6's bounds default to the float range, so infinities clamp to it; Clip-1 has no defaults.
TEST(LowerRegistry, Clip6DefaultBoundsClampInfinities) {
  auto out6 = RunOneNode("Clip", 6, {NodeInput{{3}, {kInf, -kInf, 1.0}}}, {}, 1);
  ASSERT_EQ(out6.size(), 1u);
  EXPECT_EQ(Values(out6[0]), (std::vector<double>{kFloatMax, -kFloatMax, 1.0}));
  auto out6_max = RunOneNode("Clip", 6, {NodeInput{{3}, {kInf, -kInf, 1.0}}}, {FloatAttr("max", 0.5f)}, 1);
  ASSERT_EQ(out6_max.size(), 1u);
  EXPECT_EQ(Values(out6_max[0]), (std::vector<double>{0.5, -kFloatMax, 0.5}));
  auto out1 = RunOneNode("Clip", 1, {NodeInput{{3}, {kInf, -kInf, 1.0}}}, {}, 1);
  ASSERT_EQ(out1.size(), 1u);
  EXPECT_EQ(Values(out1[0]), (std::vector<double>{kInf, -kInf, 1.0}));
}

// A forward RNN given the schema's default activations ["Tanh", "Tanh"] runs as with ["Tanh"]; a
// third entry is still refused.
TEST(LowerRegistry, RnnForwardTakesTheSchemaDefaultActivations) {
  auto strings = [](std::vector<std::string> v) {
    onnx::OnnxAttribute a;
    a.name = "activations";
    a.type = onnx::AttrType::Strings;
    a.strings = std::move(v);
    return a;
  };
  // X [seq 1, batch 1, input 1], W [1, hidden 1, 1] = 0.5, R = 0: Y = tanh(0.5 * x).
  const std::vector<NodeInput> in{NodeInput{{1, 1, 1}, {2.0}}, NodeInput{{1, 1, 1}, {0.5}},
                                  NodeInput{{1, 1, 1}, {0.0}}};
  const std::vector<onnx::OnnxAttribute> base{testing::IntAttr("hidden_size", 1)};
  for (const auto& acts : {std::vector<std::string>{"Tanh"}, std::vector<std::string>{"Tanh", "Tanh"}}) {
    auto attrs = base;
    attrs.push_back(strings(acts));
    auto out = RunOneNode("RNN", 14, in, attrs, 1);
    ASSERT_EQ(out.size(), 1u);
    ExpectNear(Values(out[0]), {0.7615941559557649}, 1e-7);
  }
  auto attrs = base;
  attrs.push_back(strings({"Tanh", "Tanh", "Tanh"}));
  auto bad = lower_model(testing::OneNodeModel("RNN", 14, in, attrs, 1), rt::RefEvaluator());
  EXPECT_FALSE(bad.has_value());
}
// Pad-1 reads its pads from `paddings` (same layout as Pad-2's `pads`), constant 0 by default.
TEST(LowerRegistry, Pad1Paddings) {
  auto out =
      RunOneNode("Pad", 1, {NodeInput{{1, 2}, {1.0, 2.0}}}, {testing::IntsAttr("paddings", {1, 0, 0, 1})}, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().shape, (testing::Ints{2, 3}));
  EXPECT_EQ(Values(out[0]), (std::vector<double>{0, 0, 0, 1, 2, 0}));
}
// Tile-1: `tiles` copies along `axis` (scalar tensors; float per its schema, int64 accepted too).
TEST(LowerRegistry, Tile1RepeatsAlongOneAxis) {
  for (ir::DType dt : {ir::DType::F32, ir::DType::I64}) {
    auto out = RunOneNode(
        "Tile", 1,
        {NodeInput{{2, 2}, {1, 2, 3, 4}}, NodeInput{{}, {3}, dt, true}, NodeInput{{}, {-1}, dt, true}}, {},
        1);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].tensor().shape, (testing::Ints{2, 6}));
    EXPECT_EQ(Values(out[0]), (std::vector<double>{1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4}));
  }
}
}  // namespace behaviour

}  // namespace
}  // namespace plumb::lower
