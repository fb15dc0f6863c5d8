// Reading a .plumb file (spec/file_format.md): size and identifier checks, the core version, the
// flatbuffers verifier, a decode that range-checks everything before it allocates, and then
// ir::verify. Nothing a file claims is trusted; errors carry the labels file.F1..F9 (or the
// verifier's graph.Vn / <op>.Cn).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"

namespace plumb::ir {

// Loads and verifies `path`. External weights are resolved next to it.
Expected<Graph> load_file(const std::string& path);

// Loads and verifies a buffer. Inline constants stay in `buffer` (ConstantData::owner keeps it
// alive). External weights are looked up in `base_dir` (the folder of the .plumb file); with an
// empty base_dir a model that has external weights is refused.
Expected<Graph> load_buffer(std::shared_ptr<const std::vector<uint8_t>> buffer,
                            const std::string& base_dir = "");

// As load_buffer, for `size` bytes at `data` that `owner` keeps alive; with a null owner the
// caller keeps them alive and unchanged while the graph, and anything made from it, lives (the C
// API's plumb_model_load_memory: constants used in place).
Expected<Graph> load_memory(const uint8_t* data, uint64_t size, std::shared_ptr<const void> owner,
                            const std::string& base_dir = "");

// As load_buffer, without running ir::verify (for tools and tests that report both stages).
Expected<Graph> decode_buffer(std::shared_ptr<const std::vector<uint8_t>> buffer,
                              const std::string& base_dir = "");

// Limits of the decoder (spec/file_format.md).
constexpr uint64_t kMinFileBytes = 16;
constexpr uint64_t kMaxFileBytes = (uint64_t{1} << 31) - 1;  // flatbuffers' own limit
constexpr int kMaxFlatbufferDepth = 256;
constexpr int kMaxTypeNesting = 32;

}  // namespace plumb::ir
