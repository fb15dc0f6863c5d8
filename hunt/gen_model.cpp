#include "hunt/gen_model.h"

#include <onnx/onnx_pb.h>

#include <onnx/defs/schema.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "hunt/gen_graph.h"
#include "hunt/onnx_proto.h"
#include "hunt/op_sequences.h"
#include "hunt/reduce_values.h"
#include "lowering/onnx/registry.h"

namespace plumb::hunt {

namespace {

bool lowered(const std::string& op, int opset) {
  return lower::default_registry().find("", op, opset) != nullptr;
}

// How often a step with target ops draws one of them (docs/gen.md, "Steering"); the other steps
// draw as without --targets, so that the ops no report lists still appear.
constexpr int kTargetPercent = 60;
// How often a targeted step is tried (undone and drawn again) until its node makes a new path
// whose key, attribute classes included, the report lists; the last try is kept whatever it made.
constexpr int kTargetTries = 4;

// The keys of `model`'s 1- to 3-grams (labels as `plumb coverage --sequences` gives them) that
// the report lists as uncovered.
std::set<std::string> target_hits(const GenTargets& t, const ::onnx::ModelProto& model) {
  SequenceSet set(3);
  add_model(model, "", set);
  std::set<std::string> hits;
  for (const auto& grams : set.grams)
    for (const auto& kv : grams)
      if (t.keys.count(kv.first)) hits.insert(kv.first);
  return hits;
}

// Builds `r` up to kTargetTries times, keeping the first try that adds a listed key.
void build_targeted(const GenTargets& t, const gen::OpRecipe& r, gen::Builder& b, ::onnx::ModelProto* model) {
  const std::set<std::string> before = target_hits(t, *model);
  ::onnx::GraphProto* g = model->mutable_graph();
  for (int attempt = 1;; ++attempt) {
    const ::onnx::GraphProto saved = *g;
    gen::Builder::State state = b.state();
    const bool built = r.build(b, r.op);
    if (attempt == kTargetTries) return;
    if (built)
      for (const std::string& key : target_hits(t, *model))
        if (!before.count(key)) return;
    *g = saved;
    b.restore(std::move(state));
  }
}

// The node that wrote `name` (nullptr for graph inputs and initializers).
const ::onnx::NodeProto* producer(const ::onnx::GraphProto& g, const std::string& name) {
  for (int k = g.node_size() - 1; k >= 0; --k)
    for (const std::string& o : g.node(k).output())
      if (o == name) return &g.node(k);
  return nullptr;
}

// A recipe for an op a report's uncovered grams want next, drawn with their weights: the chain
// ends at the node that wrote the latest value (most recipes read it), and the ops of the nodes
// it read make the 3-gram prefixes. nullptr when the report wants none of the enabled ops.
const gen::OpRecipe* target_recipe(const GenTargets& t, const gen::Builder& b, const ::onnx::GraphProto& g,
                                   gen::Rng& rng) {
  std::string last;
  std::vector<std::string> before;
  if (const ::onnx::NodeProto* p = producer(g, b.pool.back().name)) {
    last = p->op_type();
    for (const std::string& in : p->input())
      if (const ::onnx::NodeProto* q = in.empty() ? nullptr : producer(g, in)) before.push_back(q->op_type());
  }
  const auto ops = target_ops(t, last, before, [&](const std::string& op) { return b.enabled(op); });
  if (ops.empty() || !rng.chance(kTargetPercent)) return nullptr;
  int64_t total = 0;
  for (const auto& o : ops) total += o.second;
  // Weights are small counts (a report's grams), so the modulo's bias is negligible and fixed.
  int64_t w = static_cast<int64_t>(rng.next() % static_cast<uint64_t>(total));
  std::string op = ops.back().first;
  for (const auto& o : ops) {
    if (w < o.second) {
      op = o.first;
      break;
    }
    w -= o.second;
  }
  // The last recipe serving the op: for Sqrt and Erf the plain unary one, not the decomposed
  // LayerNorm or GELU that ends elsewhere.
  const gen::OpRecipe* r = nullptr;
  for (const auto& c : gen::op_recipes())
    if (c.op == op) r = &c;
  return r;
}

// The ops an other-opset model draws besides its own (docs/gen.md, "Ops at other opsets"): those
// whose text is the same at every opset from 7 (Max and Min from 8, where they broadcast; Softmax
// from 13, where it stopped coercing to 2-D), so that the recipes, written for opsets 13 to 17 and
// reading libonnx 1.12's schemas (which stop at 17), build them right at 7 to 28.
bool plain_at(const std::string& op, int opset) {
  static const std::set<std::string> kAlways = {"Abs", "Neg", "Relu",   "Sigmoid",   "Tanh",   "Add",
                                                "Sub", "Mul", "MatMul", "Transpose", "Reshape"};
  if (kAlways.count(op)) return true;
  if (op == "Max" || op == "Min") return opset >= 8;
  return op == "Softmax" && opset >= 13;
}

// The IR version of a model of `opset` (ONNX's versioning table): 8 up to opset 18 (Debian's
// libonnx 1.12 checker takes at most 8), then the version that came with each opset.
int64_t ir_version_for(int opset) {
  if (opset <= 18) return 8;
  if (opset <= 20) return 9;
  if (opset <= 22) return 10;
  if (opset == 23) return 11;
  if (opset <= 25) return 12;
  return 13;
}

// The other-opset recipe model `index` builds, or nullptr for a model of the run's opset.
const gen::OtherOpsetRecipe* other_opset_recipe(const GenOptions& options, uint64_t index) {
  if (options.other_every <= 0) return nullptr;
  const auto every = static_cast<uint64_t>(options.other_every);
  if (index % every != every - 1) return nullptr;
  std::vector<const gen::OtherOpsetRecipe*> asked;
  for (const auto& r : gen::other_opset_recipes())
    if (options.ops.empty() || std::find(options.ops.begin(), options.ops.end(), r.op) != options.ops.end())
      asked.push_back(&r);
  if (asked.empty()) return nullptr;
  return asked[static_cast<size_t>((index / every + options.seed) % asked.size())];
}

}  // namespace

const std::vector<std::string>& gen_supported_ops() {
  static const std::vector<std::string> ops = [] {
    std::vector<std::string> out;
    for (const auto& r : gen::op_recipes()) out.push_back(r.op);
    for (const auto& r : gen::other_opset_recipes()) out.push_back(r.op);
    std::sort(out.begin(), out.end());
    // An op two recipes build (Sqrt, Erf: alone and inside a decomposed LayerNorm or GELU) once.
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }();
  return ops;
}

Expected<GeneratedModel> generate_model(const GenOptions& options, uint64_t index,
                                        ::onnx::ModelProto* model) {
  // The ops to build: those asked for (all when none), each of which must exist at the opset in
  // libonnx's schemas and have a lowering rule there.
  std::set<std::string> enabled;
  for (const auto& r : gen::op_recipes()) {
    const bool asked =
        options.ops.empty() || std::find(options.ops.begin(), options.ops.end(), r.op) != options.ops.end();
    if (!asked) continue;
    const bool exists = ::onnx::OpSchemaRegistry::Schema(r.op, options.opset, "") != nullptr;
    if (exists && lowered(r.op, options.opset)) {
      enabled.insert(r.op);
    } else if (!options.ops.empty()) {
      return invalid_input(std::string(r.op) + (exists ? " has no lowering rule" : " does not exist") +
                           " at opset " + std::to_string(options.opset));
    }
  }
  for (const auto& op : options.ops) {
    const auto& all = gen_supported_ops();
    if (std::find(all.begin(), all.end(), op) == all.end())
      return invalid_input("plumb gen does not build " + op);
  }
  if (options.max_nodes < 1) return invalid_input("--max-nodes must be at least 1");
  // An other-opset model: its op's opset (drawn below), the plain ops asked for besides it.
  const gen::OtherOpsetRecipe* other = other_opset_recipe(options, index);
  if (other) {
    enabled.clear();
    for (const auto& r : gen::op_recipes())
      if (options.ops.empty() || std::find(options.ops.begin(), options.ops.end(), r.op) != options.ops.end())
        enabled.insert(r.op);
  } else if (enabled.empty()) {
    for (const auto& r : gen::other_opset_recipes())
      if (std::find(options.ops.begin(), options.ops.end(), r.op) != options.ops.end())
        return invalid_input("no op to build at opset " + std::to_string(options.opset) + " (" + r.op +
                             " is drawn only in other-opset models: --other-opsets 1 makes every model one)");
    return invalid_input("no op to build");
  }
  // A family first, then an op of it: a family of n ops drawn with weight sqrt(n), so that
  // one-op families (Conv, Cast) do not crowd out the nine Reduce* ops, nor these the rest (the
  // tables are built below, once the model's opset is known).
  gen::Rng seeder{options.seed};
  gen::Rng rng{seeder.next() ^ gen::Rng{index}.next()};
  int model_opset = options.opset;
  if (other) {
    model_opset = other->opsets[static_cast<size_t>(rng.below(static_cast<int>(other->opsets.size())))];
    std::set<std::string> plain;
    for (const std::string& op : enabled)
      if (plain_at(op, model_opset) && lowered(op, model_opset)) plain.insert(op);
    enabled = std::move(plain);
  }
  std::vector<std::string> families;
  std::map<std::string, std::vector<const gen::OpRecipe*>> by_family;
  for (const auto& r : gen::op_recipes()) {
    if (!enabled.count(r.op)) continue;
    if (by_family[r.family].empty()) families.push_back(r.family);
    by_family[r.family].push_back(&r);
  }
  std::vector<int> weights;  // cumulative
  for (const auto& f : families)
    weights.push_back((weights.empty() ? 0 : weights.back()) +
                      static_cast<int>(100 * std::sqrt(static_cast<double>(by_family[f].size()))));
  GeneratedModel out;
  char name[32];
  std::snprintf(name, sizeof name, "model_%06llu", static_cast<unsigned long long>(index));
  out.name = name;

  model->Clear();
  model->set_ir_version(ir_version_for(model_opset));
  model->set_producer_name("plumb gen");
  auto* opset = model->add_opset_import();
  opset->set_domain("");
  opset->set_version(model_opset);
  auto* g = model->mutable_graph();
  g->set_name(out.name);

  gen::Builder b(rng, g, model_opset, enabled);
  std::vector<int64_t> dims;
  if (rng.chance(35)) {
    dims = {rng.in(1, 2), rng.in(1, 4), rng.in(3, 7), rng.in(3, 7)};  // an image batch
  } else {
    dims.resize(static_cast<size_t>(rng.in(1, 4)));
    for (auto& d : dims) d = rng.in(1, 5);
  }
  b.input(dims);
  const int target = 1 + rng.below(options.max_nodes);
  // An other-opset model builds its op once it has `at` nodes (0: first), the plain ops around it.
  const int at = other ? rng.below(target) : 0;
  bool other_built = false;
  for (int tries = 0; b.nodes() < target && tries < 20 * target; ++tries) {
    if (other && !other_built && (b.nodes() >= at || weights.empty())) {
      other_built = other->build(b, other->op);
      continue;
    }
    if (weights.empty()) break;
    if (options.targets) {
      if (const gen::OpRecipe* r = target_recipe(*options.targets, b, *g, rng)) {
        build_targeted(*options.targets, *r, b, model);
        continue;
      }
    }
    const int w = rng.below(weights.back());
    const size_t f =
        static_cast<size_t>(std::upper_bound(weights.begin(), weights.end(), w) - weights.begin());
    const auto& family = by_family[families[f]];
    const gen::OpRecipe* r = family[static_cast<size_t>(rng.below(static_cast<int>(family.size())))];
    r->build(b, r->op);
  }
  for (int tries = 0; other && !other_built && tries < 20; ++tries) other_built = other->build(b, other->op);
  if (other && !other_built) return internal_error(out.name + ": " + other->op + " did not apply");
  if (b.nodes() == 0) return internal_error(out.name + ": no op applied");
  // Every value no node reads (the last one, the parts of a Split left aside) is a graph output.
  for (const auto& v : b.pool) {
    if (b.consumed.count(v.name) || v.name[0] == 'x') continue;
    auto* vi = g->add_output();
    vi->set_name(v.name);
    auto* t = vi->mutable_type()->mutable_tensor_type();
    t->set_elem_type(::onnx::TensorProto::FLOAT);
    auto* shape = t->mutable_shape();
    for (int64_t d : v.dims) shape->add_dim()->set_dim_value(d);
  }
  out.inputs = std::move(b.input_data);
  return out;
}

Status write_generated_model(const std::string& dir, const GenOptions& options, uint64_t index) {
  ::onnx::ModelProto model;
  auto gen = generate_model(options, index, &model);
  if (!gen) return gen.status();
  const std::string folder = dir + "/" + gen->name;
  const std::string data = folder + "/test_data_set_0";
  std::error_code ec;
  std::filesystem::create_directories(data, ec);
  if (ec) return invalid_input(folder + ": cannot create: " + ec.message());
  const std::string model_path = folder + "/model.onnx";
  if (Status st = write_model_proto(model_path, model); !st.is_ok()) return st;
  for (size_t k = 0; k < gen->inputs.size(); ++k) {
    onnx::DataValue v = onnx::DataValue::of_tensor(gen->inputs[k]);
    v.name = gen->inputs[k].name;
    if (Status st = onnx::write_data_file(data + "/input_" + std::to_string(k) + ".pb", v); !st.is_ok())
      return st;
  }
  ValueSources sources;
  sources.model_path = model_path;
  sources.data_dir = data;
  sources.expected_path = "-";
  auto values = read_value_table(model, sources);
  if (!values) return values.status();
  if (!values->computed_unavailable.empty())
    return internal_error(folder + ": ref does not run the generated model: " + values->computed_unavailable);
  for (int k = 0; k < model.graph().output_size(); ++k) {
    const std::string& name = model.graph().output(k).name();
    auto y = values->computed.find(name);
    if (y == values->computed.end())
      return internal_error(folder + ": ref computed no value for output " + name);
    onnx::DataValue v = y->second;
    v.name = name;
    v.tensor.name = name;
    if (Status st = onnx::write_data_file(data + "/output_" + std::to_string(k) + ".pb", v); !st.is_ok())
      return st;
  }
  return Status::ok();
}

}  // namespace plumb::hunt
