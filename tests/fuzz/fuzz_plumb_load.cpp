// libFuzzer target: a .plumb file's bytes through the loader (size and identifier checks, the
// flatbuffers verifier, the range-checked decode) and ir::verify. Any crash, sanitizer report,
// timeout or allocation past -malloc_limit_mb is a finding: a hostile file must give an error.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "ir/load.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto buffer = std::make_shared<const std::vector<uint8_t>>(data, data + size);
  // No base_dir: a model naming external weights is refused, so the fuzzer never reads the disk.
  auto graph = plumb::ir::load_buffer(buffer);
  (void)graph.has_value();
  return 0;
}
