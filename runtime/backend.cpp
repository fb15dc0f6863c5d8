// The backend registry: a fixed list, no global state.
#include "runtime/backend.h"

#include "runtime/cpu/ref/ref_backend.h"

namespace plumb::rt {

Expected<std::unique_ptr<Backend>> make_backend(std::string_view name) {
  if (name == "ref") return ref::make_ref_backend();
  if (name == "cpu" || name == "cuda")
    return unsupported("backend '" + std::string(name) + "' is not built into this runtime (available: ref)");
  return invalid_input("unknown backend '" + std::string(name) + "' (available: ref)");
}

std::vector<std::string> backend_names() { return {"ref"}; }

}  // namespace plumb::rt
