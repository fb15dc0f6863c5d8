// libFuzzer target: a serialized ModelProto through the ONNX loader (protobuf parse, conversion of
// graphs, attributes, initializers and functions), the lowering onto the core op set (constant
// folding included) and ir::verify. Any crash, sanitizer report, timeout or allocation past
// -malloc_limit_mb is a finding: a hostile model must give an error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontends/onnx/model.h"
#include "lowering/onnx/driver.h"
#include "runtime/ref_evaluator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  // No base_dir: a model naming external data is refused, so the fuzzer never reads the disk.
  auto model = plumb::onnx::parse_model(bytes);
  if (!model) return 0;
  auto graph = plumb::lower::lower_model(*model, plumb::rt::RefEvaluator());  // verifies the result
  (void)graph.has_value();
  return 0;
}
