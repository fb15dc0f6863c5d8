// Writing a core graph as a .plumb file (spec/file_format.md): a flatbuffer (ir/schema/plumb.fbs)
// with file identifier "PLMB", the graph, and the constants in a 64-byte aligned data section or,
// above a size threshold, in an external weights file next to the .plumb file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"

namespace plumb::ir {

struct SaveOptions {
  // Constants of at least this many bytes go to the external weights file; 0 = none (all inline).
  uint64_t external_threshold = 0;
  // The weights file name, relative to the .plumb file's folder (a plain name: no '/', no '..').
  // Empty = the .plumb file's name with ".weights" appended.
  std::string external_name;
};

// The .plumb bytes of `g`, every constant inline. Fails only on limits (a buffer above 2 GiB).
Expected<std::vector<uint8_t>> save_buffer_checked(const Graph& g);
// As save_buffer_checked; an empty vector when the graph does not fit in one flatbuffer.
std::vector<uint8_t> save_buffer(const Graph& g);

// Writes `path` (and the weights file when options ask for one).
Status save_file(const Graph& g, const std::string& path, const SaveOptions& options = {});

}  // namespace plumb::ir
