// libFuzzer target: the same bytes as an ONNX test-data file (input_N.pb / output_N.pb): the kind
// guessed from the wire format, then read as a TensorProto, SequenceProto, OptionalProto and
// MapProto in turn (nested containers, raw_data against dims, typed fields, strings). Any crash,
// sanitizer report, timeout or allocation past -malloc_limit_mb is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontends/onnx/tensor_proto.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using plumb::onnx::DataKind;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  (void)plumb::onnx::guess_data_kind(bytes).has_value();
  for (DataKind kind : {DataKind::Tensor, DataKind::Sequence, DataKind::Optional, DataKind::Map})
    (void)plumb::onnx::parse_data_value(bytes, kind).has_value();
  return 0;
}
