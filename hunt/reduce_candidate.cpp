#include "hunt/reduce_candidate.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "frontends/onnx/model.h"
#include "hunt/onnx_proto.h"

namespace plumb::hunt {

namespace {

bool is_constant_node(const ::onnx::NodeProto& n) {
  return n.op_type() == "Constant" && onnx::canonical_domain(n.domain()).empty();
}

// Ops whose result is not a function of their inputs: never treated as constants.
bool nondeterministic(const ::onnx::NodeProto& n) {
  static const std::set<std::string> kRandom = {
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
      "Multinomial",  "Bernoulli",     "Dropout"};
  return kRandom.count(n.op_type()) > 0;
}

// An initializer copied with its external data read in, so the reduced model stands alone.
Expected<::onnx::TensorProto> inlined(const ::onnx::TensorProto& t, const std::string& base_dir) {
  if (t.data_location() != ::onnx::TensorProto::EXTERNAL) return t;
  onnx::ExternalDataContext ext{base_dir, nullptr};
  PLUMB_ASSIGN_OR_RETURN(onnx::Tensor x, onnx::tensor_from_proto(t, &ext));
  ::onnx::TensorProto out;
  PLUMB_RETURN_IF_ERROR(onnx::tensor_to_proto(x, &out));
  out.set_name(t.name());
  return out;
}

}  // namespace

CandidateBuilder::CandidateBuilder(const ::onnx::ModelProto& original, const ValueTable& values,
                                   ValuePolicy policy, std::string base_dir)
    : original_(original), values_(values), policy_(policy), base_dir_(std::move(base_dir)) {
  const ::onnx::GraphProto& g = original.graph();
  std::set<std::string> constant_names;
  for (const auto& t : g.initializer()) constant_names.insert(t.name());
  for (int k = 0; k < g.node_size(); ++k) {
    const ::onnx::NodeProto& n = g.node(k);
    reads_.push_back(names_read(n));
    bool constant = !nondeterministic(n) && onnx::canonical_domain(n.domain()).empty();
    for (const std::string& r : reads_.back()) constant = constant && constant_names.count(r) > 0;
    constant_.push_back(constant);
    for (const std::string& o : n.output()) {
      if (o.empty()) continue;
      producer_.emplace(o, k);
      if (constant) constant_names.insert(o);
    }
  }
  constants_ = constant_tensors(g);
  types_ = value_types(original);
}

std::string CandidateBuilder::describe(size_t node) const {
  const ::onnx::NodeProto& n = original_.graph().node(static_cast<int>(node));
  return (n.name().empty() ? "#" + std::to_string(node) : "'" + n.name() + "'") + " (" + n.op_type() + ")";
}

const onnx::DataValue* CandidateBuilder::cut_value(const std::string& name) const {
  auto find = [&](const std::map<std::string, onnx::DataValue>& m) -> const onnx::DataValue* {
    auto it = m.find(name);
    return it == m.end() ? nullptr : &it->second;
  };
  if (policy_ == ValuePolicy::kExpectedOnly) return find(values_.expected);
  if (const onnx::DataValue* v = find(values_.computed)) return v;
  if (const onnx::DataValue* v = find(values_.expected)) return v;
  return find(values_.synthesized);
}

const onnx::DataValue* CandidateBuilder::expected_value(const std::string& name) const {
  auto it = values_.expected.find(name);
  if (it != values_.expected.end()) return &it->second;
  if (policy_ == ValuePolicy::kExpectedOnly) return nullptr;
  it = values_.computed.find(name);
  return it == values_.computed.end() ? nullptr : &it->second;
}

CandidateBuilder::Cut CandidateBuilder::cut_of(const std::string& name, int producer) const {
  if (is_constant_node(original_.graph().node(producer)) && constants_.count(name)) return Cut::kInitializer;
  const onnx::DataValue* v = cut_value(name);
  if (!v) return Cut::kKeepProducer;
  // A constant's value as an initializer (ref's folding is what the lowering does with it anyway);
  // under kExpectedOnly, expected values are fed as inputs whatever they are.
  if (policy_ == ValuePolicy::kComputed && constant_[producer] && v->kind == onnx::DataValue::Kind::Tensor &&
      values_.computed.count(name))
    return Cut::kInitializer;
  return Cut::kInput;
}

std::vector<size_t> CandidateBuilder::closure(const std::vector<size_t>& nodes) const {
  std::vector<bool> in(reads_.size(), false);
  std::vector<size_t> work;
  for (size_t k : nodes)
    if (k < in.size() && !in[k]) in[k] = true, work.push_back(k);
  while (!work.empty()) {
    const size_t k = work.back();
    work.pop_back();
    for (const std::string& r : reads_[k]) {
      auto p = producer_.find(r);
      if (p == producer_.end() || in[p->second]) continue;
      if (cut_of(r, p->second) == Cut::kKeepProducer) {
        in[p->second] = true;
        work.push_back(static_cast<size_t>(p->second));
      }
    }
  }
  std::vector<size_t> out;
  for (size_t k = 0; k < in.size(); ++k)
    if (in[k]) out.push_back(k);
  return out;
}

Expected<Candidate> CandidateBuilder::build(const std::vector<size_t>& nodes) const {
  const ::onnx::GraphProto& og = original_.graph();
  Candidate c;
  c.nodes = closure(nodes);
  std::vector<bool> in(reads_.size(), false);
  for (size_t k : c.nodes) in[k] = true;

  ::onnx::ModelProto& m = c.model;
  m.set_ir_version(std::max<int64_t>(original_.ir_version(), 4));  // initializers need not be inputs
  *m.mutable_opset_import() = original_.opset_import();
  *m.mutable_functions() = original_.functions();
  m.set_producer_name("plumb reduce");
  ::onnx::GraphProto& g = *m.mutable_graph();
  g.set_name(og.name().empty() ? "reduced" : og.name());

  std::set<std::string> read, produced;
  for (size_t k : c.nodes) {
    *g.add_node() = og.node(static_cast<int>(k));
    read.insert(reads_[k].begin(), reads_[k].end());
    for (const std::string& o : og.node(static_cast<int>(k)).output())
      if (!o.empty()) produced.insert(o);
  }

  // Graph inputs: the original's that are read, then the cut tensors in their producers' order.
  auto add_input = [&](const std::string& name, const onnx::DataValue& v) -> Status {
    auto declared = types_.find(name);
    auto type = type_of_value(v, declared == types_.end() ? nullptr : &declared->second);
    if (!type) return invalid_input("no type for the value of '" + name + "'");
    ::onnx::ValueInfoProto* vi = g.add_input();
    vi->set_name(name);
    *vi->mutable_type() = *type;
    c.inputs.push_back(v);
    c.inputs.back().name = name;
    return Status::ok();
  };
  for (const ::onnx::ValueInfoProto& i : og.input()) {
    auto v = values_.inputs.find(i.name());
    if (read.count(i.name()) && v != values_.inputs.end())
      PLUMB_RETURN_IF_ERROR(add_input(i.name(), v->second));
  }
  for (const ::onnx::TensorProto& t : og.initializer())
    if (read.count(t.name())) {
      PLUMB_ASSIGN_OR_RETURN(*g.add_initializer(), inlined(t, base_dir_));
    }
  std::vector<std::pair<int, std::string>> cuts;
  for (const std::string& r : read) {
    auto p = producer_.find(r);
    if (p != producer_.end() && !in[p->second]) cuts.emplace_back(p->second, r);
  }
  std::sort(cuts.begin(), cuts.end());
  for (const auto& [p, name] : cuts) {
    const Cut how = cut_of(name, p);
    if (how == Cut::kInitializer) {
      ::onnx::TensorProto* t = g.add_initializer();
      auto cst = constants_.find(name);
      const onnx::Tensor& value =
          is_constant_node(og.node(p)) && cst != constants_.end() ? cst->second : cut_value(name)->tensor;
      PLUMB_RETURN_IF_ERROR(onnx::tensor_to_proto(value, t));
      t->set_name(name);
    } else {
      PLUMB_RETURN_IF_ERROR(add_input(name, *cut_value(name)));
    }
  }

  // Outputs: what the original returned or a left-out node reads, that has a type (and, under
  // kExpectedOnly, an expected value to compare with).
  std::set<std::string> wanted;
  for (const auto& o : og.output()) wanted.insert(o.name());
  for (size_t k = 0; k < reads_.size(); ++k)
    if (!in[k]) wanted.insert(reads_[k].begin(), reads_[k].end());
  std::set<std::string> is_output;
  for (size_t k : c.nodes)
    for (const std::string& o : og.node(static_cast<int>(k)).output()) {
      if (o.empty() || !wanted.count(o) || is_output.count(o)) continue;
      const onnx::DataValue* e = expected_value(o);
      if (!e && policy_ == ValuePolicy::kExpectedOnly) continue;
      auto declared = types_.find(o);
      std::optional<::onnx::TypeProto> type;
      if (e) type = type_of_value(*e, declared == types_.end() ? nullptr : &declared->second);
      if (!type && declared != types_.end()) type = declared->second;
      if (!type) continue;
      ::onnx::ValueInfoProto* vi = g.add_output();
      vi->set_name(o);
      *vi->mutable_type() = *type;
      c.expected.push_back(e ? std::optional<onnx::DataValue>(*e) : std::nullopt);
      if (e) c.expected.back()->name = o;
      is_output.insert(o);
    }
  if (g.output_size() == 0)
    return invalid_input("the reduced model would have no output with a value to compare");
  if (policy_ == ValuePolicy::kExpectedOnly)
    for (const std::string& name : produced)
      if (!is_output.count(name))
        if (const onnx::DataValue* e = expected_value(name)) {
          c.intermediates.push_back(*e);
          c.intermediates.back().name = name;
        }
  for (const ::onnx::ValueInfoProto& vi : og.value_info())
    if (produced.count(vi.name()) && !is_output.count(vi.name())) *g.add_value_info() = vi;
  return c;
}

Status write_candidate(const std::string& dir, const Candidate& c) {
  const std::string data = dir + "/test_data_set_0";
  std::error_code ec;
  std::filesystem::remove_all(data, ec);
  std::filesystem::create_directories(data, ec);
  if (ec) return invalid_input("cannot create the folder: " + ec.message()).with_place(data);
  PLUMB_RETURN_IF_ERROR(write_model_proto(dir + "/model.onnx", c.model));
  for (size_t k = 0; k < c.inputs.size(); ++k)
    PLUMB_RETURN_IF_ERROR(onnx::write_data_file(data + "/input_" + std::to_string(k) + ".pb", c.inputs[k]));
  for (size_t k = 0; k < c.expected.size(); ++k)
    if (c.expected[k])
      PLUMB_RETURN_IF_ERROR(
          onnx::write_data_file(data + "/output_" + std::to_string(k) + ".pb", *c.expected[k]));
  for (size_t k = 0; k < c.intermediates.size(); ++k)
    PLUMB_RETURN_IF_ERROR(
        onnx::write_data_file(data + "/expected_" + std::to_string(k) + ".pb", c.intermediates[k]));
  return Status::ok();
}

}  // namespace plumb::hunt
