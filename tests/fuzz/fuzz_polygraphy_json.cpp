// libFuzzer target: Polygraphy's saved outputs and inputs (`plumb check --expected x.json`): the
// JSON reader (nesting, escapes, numbers), the RunResults / list-of-dicts walk, base64, and each
// array's .npy bytes. Any crash, sanitizer report, timeout or allocation past -malloc_limit_mb is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "check/onnx/expected.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)plumb::check::parse_polygraphy_json(text).has_value();
  (void)plumb::check::decode_base64(text).has_value();
  return 0;
}
