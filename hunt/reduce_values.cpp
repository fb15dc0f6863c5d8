#include "hunt/reduce_values.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <set>

#include "check/eval.h"
#include "check/model_inputs.h"
#include "check/onnx/expected.h"
#include "check/onnx/frontend.h"
#include "check/onnx/values_io.h"
#include "frontends/onnx/npy.h"
#include "hunt/onnx_proto.h"
#include "runtime/session.h"

namespace plumb::hunt {

namespace {

onnx::DataKind kind_of(const ::onnx::TypeProto& t) {
  switch (t.value_case()) {
    case ::onnx::TypeProto::kSequenceType: return onnx::DataKind::Sequence;
    case ::onnx::TypeProto::kOptionalType: return onnx::DataKind::Optional;
    case ::onnx::TypeProto::kMapType: return onnx::DataKind::Map;
    default: return onnx::DataKind::Tensor;
  }
}

Expected<onnx::DataValue> read_input(const std::string& file, const ::onnx::ValueInfoProto& decl) {
  if (check::ends_with(file, ".npy")) {
    PLUMB_ASSIGN_OR_RETURN(onnx::Tensor t, onnx::read_npy(file));
    return onnx::DataValue::of_tensor(std::move(t));
  }
  return onnx::read_data_file(file, kind_of(decl.type()));
}

// ref's value of every top-level ONNX tensor the lowered graph computes, and of every graph output.
Expected<std::map<std::string, onnx::DataValue>> run_on_ref(const std::string& model_path,
                                                            const std::string& data_dir, int threads) {
  const check::InputFiles files{data_dir, {}};
  PLUMB_ASSIGN_OR_RETURN(check::LoadedModel lm, check::load_model(model_path, files, check::onnx_frontend()));
  PLUMB_ASSIGN_OR_RETURN(std::vector<rt::RtValue> inputs, check::all_inputs(lm, files));
  std::set<ir::ValueId> produced;
  for (const ir::Node& n : lm.graph.body.nodes) produced.insert(n.outputs.begin(), n.outputs.end());
  std::vector<ir::ValueId> named;
  std::set<std::string> seen;
  for (ir::ValueId v : produced)
    if (const std::string& name = lm.graph.values[v].onnx_name; !name.empty() && seen.insert(name).second)
      named.push_back(v);
  rt::SessionOptions o;
  o.threads = threads;
  PLUMB_ASSIGN_OR_RETURN(std::unique_ptr<rt::Session> s,
                         rt::Session::create(check::with_results(lm.graph, named), o));
  for (size_t k = 0; k < inputs.size() && k < s->num_inputs(); ++k)
    PLUMB_RETURN_IF_ERROR(s->set_input(k, inputs[k]));
  PLUMB_RETURN_IF_ERROR(s->run());
  const std::vector<rt::RtValue> out = s->outputs();
  const size_t base = lm.graph.body.results.size();
  std::map<std::string, onnx::DataValue> values;
  for (size_t k = 0; k < named.size(); ++k) {
    const std::string& name = lm.graph.values[named[k]].onnx_name;
    PLUMB_ASSIGN_OR_RETURN(onnx::DataValue d, check::to_data_value(out[base + k], name));
    values.emplace(name, std::move(d));
  }
  // A graph output that the lowering made an alias of another value (Clip without bounds, an
  // Identity) has no node of its own: its value is the graph result of its position.
  for (size_t k = 0; k < base && k < lm.graph.output_names.size(); ++k) {
    const std::string& name = lm.graph.output_names[k];
    if (name.empty() || values.count(name)) continue;
    PLUMB_ASSIGN_OR_RETURN(onnx::DataValue d, check::to_data_value(out[k], name));
    values.emplace(name, std::move(d));
  }
  return values;
}

// A stand-in value of a static numeric tensor type (nullopt for others or above 2^24 elements).
std::optional<onnx::DataValue> stand_in(const std::string& name, const ::onnx::TypeProto& type,
                                        uint64_t& seed) {
  auto info = tensor_type_info(type);
  if (!info || !info->rank_known) return std::nullopt;
  auto dt = ir::dtype_from_onnx_code(info->elem_type);
  if (!dt || ir::dtype_bits(*dt) < 8 || ir::is_string(*dt)) return std::nullopt;
  int64_t n = 1;
  for (int64_t d : info->dims) {
    if (d < 0 || (d > 0 && n > (int64_t{1} << 24) / d)) return std::nullopt;
    n *= d;
  }
  const size_t width = static_cast<size_t>(ir::dtype_bits(*dt) / 8);
  std::vector<uint8_t> bytes(static_cast<size_t>(n) * width, 0);
  if (*dt == ir::DType::F32 || *dt == ir::DType::F64) {
    for (int64_t k = 0; k < n; ++k) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;  // Knuth's MMIX LCG
      const double u = static_cast<double>(seed >> 11) / 9007199254740992.0 * 2.0 - 1.0;
      if (*dt == ir::DType::F32) {
        const float f = static_cast<float>(u);
        std::memcpy(&bytes[static_cast<size_t>(k) * 4], &f, 4);
      } else {
        std::memcpy(&bytes[static_cast<size_t>(k) * 8], &u, 8);
      }
    }
  }
  onnx::DataValue v =
      onnx::DataValue::of_tensor(onnx::Tensor::owned(name, *dt, info->dims, std::move(bytes)));
  v.name = name;
  return v;
}

}  // namespace

Expected<ValueTable> read_value_table(const ::onnx::ModelProto& model, const ValueSources& src) {
  ValueTable t;
  const ::onnx::GraphProto& g = model.graph();
  std::set<std::string> initializers;
  for (const auto& i : g.initializer()) initializers.insert(i.name());
  size_t k = 0;
  for (const ::onnx::ValueInfoProto& in : g.input()) {
    if (initializers.count(in.name())) continue;
    const std::string file = check::data_input_file(src.data_dir, k++);
    if (file.empty())
      return invalid_input(strfmt("no input_%zu.pb or input_%zu.npy for graph input '", k - 1, k - 1) +
                           in.name() + "'")
          .with_place(src.data_dir);
    PLUMB_ASSIGN_OR_RETURN(onnx::DataValue v, read_input(file, in));
    v.name = in.name();
    t.inputs.emplace(in.name(), std::move(v));
  }
  const std::string expected = src.expected_path.empty() ? src.data_dir : src.expected_path;
  if (expected != "-") {
    auto values = check::read_expected(expected);
    if (!values) return check::in_file(values.status(), expected);
    for (check::ExpectedValue& e : *values) {
      std::string name = e.name;
      if (e.output >= 0 && e.output < g.output_size()) name = g.output(e.output).name();
      if (name.empty() || t.inputs.count(name)) continue;
      e.value.name = name;
      t.expected.emplace(name, std::move(e.value));
    }
  }
  if (src.compute) {
    auto computed = run_on_ref(src.model_path, src.data_dir, src.threads);
    if (computed) {
      t.computed = std::move(*computed);
    } else {
      t.computed_unavailable = computed.status().to_string();
      const std::map<std::string, ::onnx::TypeProto> types = value_types(model);
      uint64_t seed = 1;
      for (const ::onnx::NodeProto& n : g.node())
        for (const std::string& o : n.output())
          if (auto type = types.find(o); !o.empty() && type != types.end())
            if (auto v = stand_in(o, type->second, seed)) t.synthesized.emplace(o, std::move(*v));
    }
  }
  return t;
}

}  // namespace plumb::hunt
