#include "hunt/gen_model.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>

#include "hunt/onnx_proto.h"
#include "hunt/reduce_values.h"

namespace plumb::hunt {

namespace {

// splitmix64: a fixed, platform-independent stream (std:: distributions are not specified
// bit-exactly, and the bytes of a run must not depend on the standard library).
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
  // A float in [-1, 1) with 24 significant bits: exact in float32.
  float unit() { return static_cast<float>(static_cast<double>(next() >> 40) / (1 << 23) - 1.0); }
};

bool is_binary(const std::string& op) {
  return op == "Add" || op == "Sub" || op == "Mul" || op == "Max" || op == "Min";
}

void set_float_tensor_type(::onnx::ValueInfoProto* vi, const std::string& name,
                           const std::vector<int64_t>& dims) {
  vi->set_name(name);
  auto* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(::onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

}  // namespace

const std::vector<std::string>& gen_supported_ops() {
  static const std::vector<std::string> ops = {"Abs", "Add",  "Max", "Min",     "Mul",
                                               "Neg", "Relu", "Sub", "Sigmoid", "Tanh"};
  return ops;
}

Expected<GeneratedModel> generate_model(const GenOptions& options, uint64_t index,
                                        ::onnx::ModelProto* model) {
  std::vector<std::string> ops = options.ops.empty() ? gen_supported_ops() : options.ops;
  for (const auto& op : ops) {
    bool known = false;
    for (const auto& s : gen_supported_ops()) known = known || s == op;
    if (!known) return invalid_input("plumb gen does not build " + op + " yet");
  }
  if (options.max_nodes < 1) return invalid_input("--max-nodes must be at least 1");
  Rng seeder{options.seed};
  Rng rng{seeder.next() ^ Rng{index}.next()};

  GeneratedModel out;
  char name[32];
  std::snprintf(name, sizeof name, "model_%06llu", static_cast<unsigned long long>(index));
  out.name = name;

  std::vector<int64_t> dims(1 + rng.below(3));
  for (auto& d : dims) d = 1 + rng.below(4);

  model->Clear();
  model->set_ir_version(8);
  model->set_producer_name("plumb gen");
  auto* opset = model->add_opset_import();
  opset->set_domain("");
  opset->set_version(options.opset);
  auto* g = model->mutable_graph();
  g->set_name(out.name);

  std::vector<std::string> pool;
  for (int k = 0; k < 2; ++k) {
    const std::string in = "x" + std::to_string(k);
    set_float_tensor_type(g->add_input(), in, dims);
    pool.push_back(in);
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    std::vector<uint8_t> bytes(static_cast<size_t>(n) * sizeof(float));
    for (int64_t e = 0; e < n; ++e) {
      const float v = rng.unit();
      std::memcpy(bytes.data() + e * sizeof(float), &v, sizeof v);
    }
    out.inputs.push_back(onnx::Tensor::owned(in, ir::DType::F32, dims, std::move(bytes)));
  }
  const int nodes = 1 + rng.below(options.max_nodes);
  for (int k = 0; k < nodes; ++k) {
    const std::string& op = ops[static_cast<size_t>(rng.below(static_cast<int>(ops.size())))];
    auto* node = g->add_node();
    node->set_op_type(op);
    node->set_name("n" + std::to_string(k));
    // The last value joins every chain, so that the output depends on the latest node.
    node->add_input(pool.back());
    if (is_binary(op)) node->add_input(pool[static_cast<size_t>(rng.below(static_cast<int>(pool.size())))]);
    const std::string y = k + 1 == nodes ? "y" : "v" + std::to_string(k);
    node->add_output(y);
    pool.push_back(y);
  }
  set_float_tensor_type(g->add_output(), "y", dims);
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
  auto y = values->computed.find("y");
  if (y == values->computed.end()) return internal_error(folder + ": ref computed no value for output y");
  onnx::DataValue v = y->second;
  v.name = "y";
  v.tensor.name = "y";
  return onnx::write_data_file(data + "/output_0.pb", v);
}

}  // namespace plumb::hunt
