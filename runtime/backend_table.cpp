// The backend table: one row per backend, generated from runtime/CMakeLists.txt's plumb_backend()
// lines. Each built backend defines plumb::rt::<name>::make_backend() in its folder. No global
// state: the table is constant.
#include <algorithm>

#include "runtime/backend.h"

namespace plumb::rt {

#define PLUMB_BACKEND(name)                \
  namespace name {                         \
  std::unique_ptr<Backend> make_backend(); \
  }
#define PLUMB_BACKEND_NOT_BUILT(name)
#include "runtime/backends.def"
#undef PLUMB_BACKEND
#undef PLUMB_BACKEND_NOT_BUILT

namespace {

constexpr BackendEntry kBuilt[] = {
#define PLUMB_BACKEND(name) {#name, &name::make_backend},
#define PLUMB_BACKEND_NOT_BUILT(name)
#include "runtime/backends.def"
#undef PLUMB_BACKEND
#undef PLUMB_BACKEND_NOT_BUILT
};

// Known names whose folder is missing or whose option is off in this build.
constexpr std::string_view kNotBuilt[] = {
#define PLUMB_BACKEND(name)
#define PLUMB_BACKEND_NOT_BUILT(name) #name,
#include "runtime/backends.def"
#undef PLUMB_BACKEND
#undef PLUMB_BACKEND_NOT_BUILT
    ""};

std::string available(const std::vector<BackendEntry>& extra) {
  std::string s;
  for (const std::string& n : backend_names(extra)) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

std::vector<std::string> backend_names(const std::vector<BackendEntry>& extra) {
  std::vector<std::string> names;
  for (const BackendEntry& e : kBuilt) names.emplace_back(e.name);
  for (const BackendEntry& e : extra) names.emplace_back(e.name);
  return names;
}

Expected<std::unique_ptr<Backend>> make_backend(std::string_view name,
                                                const std::vector<BackendEntry>& extra) {
  const BackendEntry* found = nullptr;
  for (const BackendEntry& e : kBuilt)
    if (!found && e.name == name) found = &e;
  for (const BackendEntry& e : extra)
    if (!found && e.name == name) found = &e;
  if (found) {
    std::unique_ptr<Backend> b = found->make();
    PLUMB_RETURN_IF_ERROR(b->available());
    return b;
  }
  if (!name.empty() && std::find(std::begin(kNotBuilt), std::end(kNotBuilt), name) != std::end(kNotBuilt))
    return unsupported("backend '" + std::string(name) +
                       "' is not built into this runtime (available: " + available(extra) + ")");
  return invalid_input("unknown backend '" + std::string(name) + "' (available: " + available(extra) + ")");
}

}  // namespace plumb::rt
