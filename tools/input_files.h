// Where `plumb run` / `plumb print` find a model's input values and how they read them: the ONNX
// test layout (input_<k>.npy or input_<k>.pb in a --data folder) and .npy / .pb files by name.
// .pb needs the ONNX tools (the hook read_input_pb, weak in cmd_run.cpp, real in tools/onnx).
#pragma once

#include <string>

#include "ir/status.h"
#include "ir/type.h"
#include "runtime/value.h"

namespace plumb::cli {

bool file_exists(const std::string& path);

// input_<k>.npy, else input_<k>.pb, in `dir`; "" when neither exists (or dir is "").
std::string data_input_file(const std::string& dir, size_t k);

// A .pb file (TensorProto / SequenceProto / OptionalProto, read as `declared`) or an .npy file.
Expected<rt::RtValue> read_value(const std::string& file, const ir::Type& declared);

// Defined weak in cmd_run.cpp ("not in this build"), strong in tools/onnx/pb_io.cpp.
Expected<rt::RtValue> read_input_pb(const std::string& path, const ir::Type& declared);

}  // namespace plumb::cli
