// Expected values for `plumb check` (DESIGN.md §7): where they come from and what they are named.
//
// An expected folder (or a single file given to --expected) may hold, in any mix:
//   *.pb    TensorProto / SequenceProto / OptionalProto, identified by its `name` field;
//           output_<k>.pb is graph output k (its name may be empty); input_<k>.pb is skipped
//   *.npy   one tensor, named by the file's stem, or by names.json in the folder:
//           {"<file>.npy" or "<stem>": "<ONNX tensor name>"} for names a file name cannot hold
//           (a names.json that is not such a mapping is ignored, with a note); as for .pb,
//           output_<k>.npy is graph output k and input_<k>.npy is skipped unless names.json names them
//   *.npz   numpy.savez / savez_compressed archives: one tensor per entry, by entry name
//   *.json  Polygraphy's saved outputs (`polygraphy run --save-outputs`, a RunResults: the first
//           runner's first iteration) or saved inputs (a list of {name: array}: the first dict)
// Names are ONNX tensor names (intermediate activations dumped from the source framework, or
// another runtime's outputs).
#pragma once

#include <string>
#include <vector>

#include "frontends/onnx/tensor_proto.h"
#include "ir/status.h"

namespace plumb::check {

struct ExpectedValue {
  std::string source;  // file (and archive entry) it came from, for messages
  std::string name;    // ONNX tensor name ("" for an unnamed output_<k>.pb)
  int output = -1;     // graph output index, for output_<k>.pb
  onnx::DataValue value;
};

constexpr const char* kNamesFile = "names.json";

// Reads every expected value of a folder (files in name order) or of one file. Files or mapping
// entries that were not read as expected values (and why) go to `ignored` when given.
Expected<std::vector<ExpectedValue>> read_expected(const std::string& path,
                                                   std::vector<std::string>* ignored = nullptr);

// Polygraphy's JSON (polygraphy/json/serde.py, comparator/struct.py): arrays are
// {"array": base64(np.save bytes), "polygraphy_class": "ndarray"}, wrapped in
// {"values": ..., "polygraphy_class": "LazyArray"} by newer versions; a RunResults is
// {"lst": [[runner, [IterationResult{"outputs": {name: array}}, ...]], ...]}.
Expected<std::vector<onnx::Tensor>> parse_polygraphy_json(const std::string& text);

// Standard base64 (RFC 4648, '=' padding, whitespace ignored); nullopt-like error when invalid.
Expected<std::string> decode_base64(const std::string& text);

}  // namespace plumb::check
