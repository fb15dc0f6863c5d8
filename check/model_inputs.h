// One loader of a model and its input values for `plumb run`, `plumb print` and `plumb check`
// (and anything embedding check): which file feeds which graph input (the ONNX test layout
// input_<k>.npy / input_<k>.pb in a --data folder, or NAME=FILE / #k=FILE), how a value file is
// read (.npy here; .pb through the ONNX frontend), and, for an .onnx model, lowering specialized
// on the input values that the model uses as attribute-like parameters (spec/onnx-rulings.md R1).
//
// The ONNX frontend is reached through `Frontend` (check/onnx/frontend.h gives the real one), so
// this file builds in the tiny configuration, where .onnx models and .pb values are refused with
// an Unsupported error naming the file.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"
#include "ir/type.h"
#include "runtime/value.h"

namespace plumb::check {

// Reads the value a caller will feed to graph input k (declared `type`), or nullopt when it has none.
using InputReader = std::function<Expected<std::optional<rt::RtValue>>(size_t k, const std::string& name,
                                                                       const ir::Type& type)>;

// What the build has of the ONNX frontend; an empty member means "not in this build".
struct Frontend {
  // .onnx -> core graph, lowered knowing the input values `read` returns (called once per graph
  // input, in order); `specialized` receives the inputs the graph was specialized on.
  std::function<Expected<ir::Graph>(const std::string& path, const InputReader& read,
                                    std::vector<std::string>* specialized)>
      lower_onnx;
  // A TensorProto / SequenceProto / OptionalProto file, read as `declared`.
  std::function<Expected<rt::RtValue>(const std::string& path, const ir::Type& declared)> read_pb;
};

// Where input values come from. `data_dir` and `named` may be combined: a named file wins.
struct InputFiles {
  std::string data_dir;                                    // input_<k>.npy, else input_<k>.pb
  std::vector<std::pair<std::string, std::string>> named;  // (graph input name or "#k", file)
  bool empty() const { return data_dir.empty() && named.empty(); }
};

struct LoadedModel {
  ir::Graph graph;
  bool verified = false;  // ir::verify passed on `graph` (a .plumb file's loader verifies it)
  // One entry per graph input (graph.body.params), nullopt where no file gives it.
  std::vector<std::optional<rt::RtValue>> inputs;
  std::vector<std::string> input_files;  // the file each input came from ("" for none)
  // Graph inputs whose value the lowering specialized the graph on (ruling R1): the graph, and
  // any verdict on it, holds for these values only.
  std::vector<std::string> specialized;
};

// Loads MODEL (.plumb, or .onnx through `fe`) and reads every input that `files` gives. Errors
// name the file (Status::with_place). A NAME in `files.named` that is no graph input is an error.
Expected<LoadedModel> load_model(const std::string& model, const InputFiles& files, const Frontend& fe);

// An error naming the data folder and the input when a graph input has no value.
Status have_all_inputs(const LoadedModel& m, const InputFiles& files);
// The inputs of `m` as a list to feed (have_all_inputs first).
Expected<std::vector<rt::RtValue>> all_inputs(const LoadedModel& m, const InputFiles& files);

// `s` with `file` in front of its place (unless the place names the file already).
Status in_file(const Status& s, const std::string& file);

bool file_exists(const std::string& path);
bool ends_with(const std::string& s, const std::string& suffix);

// input_<k>.npy, else input_<k>.pb, in `dir`; "" when neither exists (or dir is "").
std::string data_input_file(const std::string& dir, size_t k);

// A .pb file (through fe.read_pb) or an .npy file, read as `declared`.
Expected<rt::RtValue> read_value(const std::string& file, const ir::Type& declared, const Frontend& fe);

}  // namespace plumb::check
