// The backend interface (DESIGN.md §6, STYLE.md 2.6). Phases, after XNNPACK and oneDNN:
//   load + verify (ir/)  ->  plan(input shapes) (runtime/plan.h: types, arena offsets)
//   ->  Backend::compile(graph, plan) (choose kernels)  ->  Program::run(buffers) (execute).
// The executor (runtime/executor.h) is the only code that walks a graph; a backend supplies how
// one node runs (NodeRunner) and wraps the executor in its Program. Backends never see ONNX.
// Most users want runtime/session.h, which drives all the phases.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"
#include "runtime/numeric_mode.h"
#include "runtime/value.h"

namespace plumb::rt {

struct Plan;  // runtime/plan.h

// Whether a backend runs a node, and if not, why ("cpu: matmul f8e4m3fn has no oneDNN primitive").
struct Support {
  bool yes = true;
  std::string why_not;
  static Support ok() { return Support{}; }
  static Support no(std::string why) { return Support{false, std::move(why)}; }
};

// An execution stream of a device backend (CUDA); CPU backends take nullptr.
class Stream {
 public:
  virtual ~Stream() = default;
};

// The run-time values of one graph, one slot per ir::ValueId, plus the arena the plan laid out.
// Made once per plan by make_buffer_table (runtime/executor.h) and reused by every run with that
// plan: arena-planned slots keep their tensors (views into `arena`) between runs.
struct BufferTable {
  std::vector<RtValue> values;     // indexed by ValueId
  std::shared_ptr<uint8_t> arena;  // plan.arena_bytes bytes, 64-byte aligned
  int64_t arena_bytes = 0;
  const Plan* plan = nullptr;  // the plan the table was made for

  // True when `p` points into the arena (values there are overwritten by later nodes and runs).
  bool in_arena(const void* p) const {
    const auto* b = static_cast<const uint8_t*>(p);
    return arena && b >= arena.get() && b < arena.get() + arena_bytes;
  }
};

struct CompileOptions {
  NumericMode mode = NumericMode::kNative;
  // `while` iteration guard for tools; 0 = unlimited (the spec imposes no cap).
  int64_t max_while_iterations = 0;
  // Largest tensor the executor allocates at run time for a data-dependent shape (bytes).
  int64_t max_bytes = int64_t{16} << 30;
};

// A graph compiled for one plan: run many times.
class Program {
 public:
  virtual ~Program() = default;
  // Runs the graph on `buffers` (made for the same plan, inputs bound: executor.h bind_inputs);
  // on success the graph outputs are in buffers.values[graph.body.results[k]].
  virtual Status run(BufferTable& buffers, Stream* stream) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;  // "ref" | "cpu" | "cuda"
  virtual Support supports(const ir::Node& node) const = 0;
  // `g` and `plan` must outlive the Program.
  virtual Expected<std::unique_ptr<Program>> compile(const ir::Graph& g, const Plan& plan,
                                                     const CompileOptions& options) = 0;
};

// A row of the backend table (runtime/backend_table.cpp, generated from the plumb_backend()
// lines of runtime/CMakeLists.txt).
struct BackendEntry {
  std::string_view name;
  std::unique_ptr<Backend> (*make)();
};

// The backend called `name`: one built into this library, or one of `extra` (backends that a
// program links in itself, e.g. the tests' backend). Unknown names are InvalidInput; known but
// not built ones ("cpu", "cuda" in a build without them) are Unsupported.
Expected<std::unique_ptr<Backend>> make_backend(std::string_view name,
                                                const std::vector<BackendEntry>& extra = {});
std::vector<std::string> backend_names(const std::vector<BackendEntry>& extra = {});

}  // namespace plumb::rt
