#include "tools/model_session.h"

#include <cstdio>

#include "check/model_inputs.h"
#include "tools/onnx_hooks.h"

namespace plumb::cli {

Expected<int> take_model_arg(const std::vector<std::string>& args, size_t& i, ModelArgs& m) {
  const std::string& a = args[i];
  if (!a.empty() && a[0] != '-') {
    if (!m.model.empty()) return -1;
    m.model = a;
    return 1;
  }
  if (a != "--data" && a != "--input") return 0;
  if (i + 1 >= args.size()) return -1;
  const std::string v = args[++i];
  if (a == "--data") {
    m.data_dir = v;
    return 1;
  }
  const size_t eq = v.find('=');
  if (eq == std::string::npos || eq == 0) return invalid_input("--input needs NAME=FILE, got '" + v + "'");
  m.inputs.emplace_back(v.substr(0, eq), v.substr(eq + 1));
  return 1;
}

Expected<std::unique_ptr<rt::Session>> open_model_session(const ModelArgs& m, rt::SessionOptions opts,
                                                          std::string* file) {
  file->clear();
  if (!m.data_dir.empty() && !m.inputs.empty())
    return invalid_input("give either --data or --input, not both");
  check::InputFiles files{m.data_dir, m.inputs};
  PLUMB_ASSIGN_OR_RETURN(check::LoadedModel loaded, check::load_model(m.model, files, cli_frontend()));
  for (const std::string& name : loaded.specialized)
    std::fprintf(stderr,
                 "plumb: %s: note: lowered for the given value of input '%s' (an attribute-like "
                 "parameter the core needs at build time)\n",
                 m.model.c_str(), name.c_str());
  if (!m.data_dir.empty())  // --data names every input; --input may leave some unbound (run says which)
    PLUMB_RETURN_IF_ERROR(check::have_all_inputs(loaded, files));
  opts.verify = !loaded.verified;
  auto created = rt::Session::create(std::move(loaded.graph), opts);
  *file = m.model;
  if (!created) return created.status();
  for (size_t k = 0; k < loaded.inputs.size(); ++k) {
    if (!loaded.inputs[k]) continue;
    PLUMB_RETURN_IF_ERROR((*created)->set_input(k, std::move(*loaded.inputs[k])));
  }
  return std::move(*created);
}

}  // namespace plumb::cli
