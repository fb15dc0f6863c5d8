// What `plumb run` and `plumb bench` share: the MODEL [--data DIR | --input NAME=FILE ...]
// arguments, and a session made from them with its inputs bound.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/status.h"
#include "runtime/session.h"

namespace plumb::cli {

struct ModelArgs {
  std::string model, data_dir;
  std::vector<std::pair<std::string, std::string>> inputs;  // --input NAME=FILE
};

// Consumes args[i] (and its value) when it is --data DIR, --input NAME=FILE or the first
// positional argument (MODEL): 1 taken, 0 not ours, -1 a usage error (a missing value, a second
// positional argument), or an InvalidInput error (--input without NAME=FILE).
Expected<int> take_model_arg(const std::vector<std::string>& args, size_t& i, ModelArgs& m);

// Loads m.model (.plumb, or .onnx lowered specialized on the inputs, with a note on stderr for
// each specialized input), creates the session with `opts` and binds the inputs. On an error,
// *file is the file report_error should name ("" when the status names it already).
Expected<std::unique_ptr<rt::Session>> open_model_session(const ModelArgs& m, rt::SessionOptions opts,
                                                          std::string* file);

}  // namespace plumb::cli
