#include "check/onnx/frontend.h"

#include "check/onnx/values_io.h"
#include "frontends/onnx/model.h"
#include "frontends/onnx/tensor_proto.h"
#include "ir/graph.h"
#include "lowering/onnx/driver.h"
#include "runtime/ref_evaluator.h"

namespace plumb::check {

namespace {

// The file-format bytes of a runtime tensor, for the dtypes whose runtime layout is the file
// layout (every dtype a model uses as an axes/pads/shape parameter); nullopt for the others.
std::optional<onnx::Tensor> to_file_tensor(const std::string& name, const rt::Tensor& t) {
  if (t.dtype == ir::DType::String || rt::runtime_elem_bytes(t.dtype) * 8 != ir::dtype_bits(t.dtype))
    return std::nullopt;
  const auto* p = static_cast<const uint8_t*>(t.data);
  return onnx::Tensor::owned(name, t.dtype, t.shape, std::vector<uint8_t>(p, p + t.nbytes()));
}

Expected<ir::Graph> lower_onnx_specialized(const std::string& path, const InputReader& read,
                                           std::vector<std::string>* specialized) {
  PLUMB_ASSIGN_OR_RETURN(onnx::OnnxModel model, onnx::load_model(path));
  lower::LowerOptions options;
  const std::vector<const onnx::OnnxValueInfo*> inputs = model.graph.real_inputs();
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!inputs[k]->type) continue;  // lowering reports the untyped input
    PLUMB_ASSIGN_OR_RETURN(std::optional<rt::RtValue> v, read(k, inputs[k]->name, *inputs[k]->type));
    if (!v || !v->is_tensor()) continue;
    if (auto t = to_file_tensor(inputs[k]->name, v->tensor())) options.input_values[inputs[k]->name] = *t;
  }
  PLUMB_ASSIGN_OR_RETURN(lower::Lowered l,
                         lower::lower_model_specialized(model, rt::RefEvaluator(), options));
  if (specialized) *specialized = l.specialized_inputs;
  return std::move(l.graph);
}

Expected<rt::RtValue> read_pb(const std::string& path, const ir::Type& declared) {
  PLUMB_ASSIGN_OR_RETURN(onnx::DataValue v, onnx::read_data_file(path, onnx::data_kind_of(declared)));
  auto r = to_runtime(v, declared);
  if (!r) return onnx::place_in_file(r.status(), path);
  return r;
}

}  // namespace

Frontend onnx_frontend() { return Frontend{lower_onnx_specialized, read_pb}; }

Status write_pb(const std::string& path, const rt::RtValue& value, const std::string& name) {
  auto d = to_data_value(value, name);
  if (!d) return onnx::place_in_file(d.status(), path);
  return onnx::write_data_file(path, *d);
}

}  // namespace plumb::check
