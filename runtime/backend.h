// The backend interface (DESIGN.md §6, STYLE.md 2.6; docs/backends.md). Phases, after XNNPACK
// (create / reshape / setup / run), oneDNN (primitive descriptor / primitive / execute) and ONNX
// Runtime's execution providers (GetCapability / Compile):
//   Backend::partition(graph, mode)   once per graph: the spans of the top-level body the backend
//                                     claims (a node, a fused chain, an if/while with its regions)
//                                     and, for what it leaves, why not;
//   Backend::prepare(graph, claims)   once per graph: validate, prepack constants (PreparedGraph);
//   PreparedGraph::compile(span,plan) once per input shape: choose kernels, say the scratch size
//                                     (CompiledSpan), or decline this shape with a reason;
//   CompiledSpan::run(args, stream)   every run: the span's buffers bound, no allocation.
// The executor (runtime/schedule.h, runtime/executor.h) is the only code that walks a graph: it
// turns the claims and a plan into a schedule of steps, runs what no backend claimed with the
// `ref` kernels (the fallback), and makes the host<->device copies at span borders. Backends
// never see ONNX. Most users want runtime/session.h, which drives all the phases.
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

// Whether a backend runs something, and if not, why ("cpu: matmul f8e4m3fn has no oneDNN
// primitive"). The reason is printed by PLUMB_VERBOSE=dispatch.
struct Support {
  bool yes = true;
  std::string why_not;
  static Support ok() { return Support{}; }
  static Support no(std::string why) { return Support{false, std::move(why)}; }
};

// An execution stream of a device backend (a CUDA stream); host backends have none (nullptr).
class Stream {
 public:
  virtual ~Stream() = default;
};

// A backend's memory. Host backends use host_allocator(); a device backend returns its own, whose
// tensors carry Device::kDevice, and which the executor uses for the span borders' copies.
class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual Device device() const = 0;
  // `bytes` bytes (> 0), 64-byte aligned, freed when the last owner lets go; zero-filled.
  virtual Expected<std::shared_ptr<uint8_t>> allocate(int64_t bytes) = 0;
  // Copies `bytes` bytes from host memory into this allocator's memory, and back.
  virtual Status copy_from_host(const void* host_src, void* dst, int64_t bytes, Stream* stream) = 0;
  virtual Status copy_to_host(const void* src, void* host_dst, int64_t bytes, Stream* stream) = 0;
};

// Plain host memory (::operator new, 64-byte aligned; copies are memcpy). Stateless.
Allocator& host_allocator();

// A copy of the host tensor `host` (not a string tensor) in `alloc`'s memory.
Expected<Tensor> upload(const Tensor& host, Allocator& alloc, Stream* stream);

// Nodes [begin, end) of the graph's top-level body, in order.
struct NodeSpan {
  uint32_t begin = 0;
  uint32_t end = 0;
  bool operator==(const NodeSpan& o) const { return begin == o.begin && end == o.end; }
};

// One answer of partition: `span` claimed (support.yes), or declined with a reason.
struct Claim {
  NodeSpan span;
  Support support;
};

// What compile and run see of one claimed span under one plan. Known values (constants and
// values folded by the planner) count as inputs even when a constant node lies inside the span;
// values that the span's nodes define and nothing after it reads are the backend's own (no
// buffer is planned for them: keep them in scratch, or fuse them away).
struct SpanSignature {
  NodeSpan span;
  std::vector<ir::ValueId> inputs;   // read by the span, defined before it (or known)
  std::vector<ir::ValueId> outputs;  // defined by the span, read after it or graph results
};

// One run's buffers of a span, in the backend's memory (Allocator::device()): inputs and outputs
// in SpanSignature order, outputs preallocated with their planned shapes; `scratch` holds
// CompiledSpan::scratch_bytes() bytes reserved for this span (other steps reuse them).
struct SpanArgs {
  std::vector<const RtValue*> inputs;
  std::vector<RtValue*> outputs;
  uint8_t* scratch = nullptr;
};

// A span compiled for one plan: run many times, without allocating.
class CompiledSpan {
 public:
  virtual ~CompiledSpan() = default;
  virtual int64_t scratch_bytes() const { return 0; }
  // An error from one node of the span goes through rt::node_error (runtime/node_error.h), so the
  // message is the one ref gives; an unplaced error is placed at the span's first node.
  virtual Status run(const SpanArgs& args, Stream* stream) = 0;
};

// compile's answer: a program, or (program null) the span declined for this plan: its nodes
// fall back to ref, and `support` says why.
struct CompiledOrDeclined {
  std::unique_ptr<CompiledSpan> program;
  Support support;
};

struct PrepareOptions {
  NumericMode mode = NumericMode::kNative;
  // Every known value the claimed spans read, decoded once per graph (indexed by ValueId; the
  // others are empty): what a backend prepacks.
  const std::vector<RtValue>* constants = nullptr;
  // Threads the backend may use (SessionOptions::threads, at least 1).
  int threads = 1;
};

// A graph prepared by one backend for its claims: compiled per plan.
class PreparedGraph {
 public:
  virtual ~PreparedGraph() = default;
  // `claim` indexes the claimed spans given to prepare; `plan` has the resolved types.
  virtual Expected<CompiledOrDeclined> compile(size_t claim, const SpanSignature& sig, const Plan& plan) = 0;
};

// A value whose local error on a backend may exceed the core op model's (spec/numerics.md
// "Backends' declared error"): by `width` u|value| more (u: the unit roundoff of the value's ONNX
// dtype), uniform, as check/bound.h models each op's rounding.
struct DeclaredError {
  ir::ValueId value = ir::kNoValue;
  double width = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;  // "ref" | "cpu" | "cuda"
  virtual Allocator& allocator() { return host_allocator(); }
  // Whether this machine can run the backend (a device backend without its device: one line
  // saying why, e.g. "cuda: no CUDA device: ..."); make_backend returns this error instead of
  // the backend, so every command fails once, before any work.
  virtual Status available() const { return Status::ok(); }
  virtual Expected<std::unique_ptr<Stream>> make_stream() { return std::unique_ptr<Stream>(); }
  // Claims spans of g.body (sorted, disjoint); nodes in no claim, and declined claims, run on
  // ref. `g` is the graph that runs (the f64 one in precise mode).
  virtual std::vector<Claim> partition(const ir::Graph& g, NumericMode mode) const = 0;
  // `claimed`: the spans of partition that the executor accepted (it refuses, with a reason,
  // spans that hold host-only nodes). `g` must outlive the PreparedGraph.
  virtual Expected<std::unique_ptr<PreparedGraph>> prepare(const ir::Graph& g,
                                                           const std::vector<NodeSpan>& claimed,
                                                           const PrepareOptions& options) = 0;
  // The fast paths this backend would take on g whose error spec/numerics.md declares beyond the
  // core ops' (plumb check --backend widens its noise model there by exactly that); none by default.
  virtual std::vector<DeclaredError> declared_error(const ir::Graph&, NumericMode) const { return {}; }
};

// A row of the backend table (runtime/backend_table.cpp, generated from the plumb_backend()
// lines of runtime/CMakeLists.txt).
struct BackendEntry {
  std::string_view name;
  std::unique_ptr<Backend> (*make)();
};

// The backend called `name`: one built into this library, or one of `extra` (backends that a
// program links in itself, e.g. the tests' backend). Unknown names are InvalidInput; known but
// not built ones ("cpu", "cuda" in a build without them) are Unsupported, and so are built ones
// that this machine cannot run (Backend::available).
Expected<std::unique_ptr<Backend>> make_backend(std::string_view name,
                                                const std::vector<BackendEntry>& extra = {});
std::vector<std::string> backend_names(const std::vector<BackendEntry>& extra = {});

}  // namespace plumb::rt
