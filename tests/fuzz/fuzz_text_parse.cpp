// libFuzzer target: the text form parser (ir/text.h), and on success the printer and a second
// parse of its output. A finding is a crash, sanitizer report, timeout or unbounded allocation.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ir/text.h"
#include "ir/verify.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto graph = plumb::ir::parse_graph(text);
  if (!graph) return 0;
  // Round trip only what the loader would accept: the printer is given verified graphs.
  if (!plumb::ir::verify(*graph).is_ok()) return 0;
  auto again = plumb::ir::parse_graph(plumb::ir::print_graph(*graph));
  (void)again.has_value();
  return 0;
}
