// libFuzzer target: the same bytes as a .npy file and as a .npz archive (zip directory, ZIP64,
// stored and deflated entries, each entry's .npy). Any crash, sanitizer report, timeout or
// allocation past -malloc_limit_mb is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "frontends/onnx/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  (void)plumb::onnx::parse_npy(bytes, "x").has_value();
  (void)plumb::onnx::parse_npz(bytes).has_value();
  return 0;
}
