// The ONNX test-data layout (TensorProto / SequenceProto / OptionalProto files) for `plumb run`:
// strong definitions of the hooks tools/cmd_run.cpp declares weak.
#include "frontends/onnx/tensor_proto.h"
#include "tools/onnx/values_io.h"

namespace plumb::cli {

Expected<rt::RtValue> read_input_pb(const std::string& path, const ir::Type& declared) {
  PLUMB_ASSIGN_OR_RETURN(onnx::DataValue v, onnx::read_data_file(path, onnx::data_kind_of(declared)));
  auto r = to_runtime(v, declared);
  if (!r) return onnx::place_in_file(r.status(), path);
  return r;
}

Status write_output_pb(const std::string& path, const rt::RtValue& value, const std::string& name) {
  auto d = to_data_value(value, name);
  if (!d) return onnx::place_in_file(d.status(), path);
  return onnx::write_data_file(path, *d);
}

bool have_pb_io() { return true; }

}  // namespace plumb::cli
