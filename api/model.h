// The C API's context (include/plumb.h): a loaded graph, its plan for the current input shapes,
// the arena and the bindings, and the last error. The C functions (api/*.cpp) drive the runtime's
// phases directly (runtime/backend.h: partition once per graph, then plan, schedule, buffer table
// and executor per input shape) instead of going through rt::Session, because the C API plans
// into a caller's arena and binds caller buffers in place.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "include/plumb.h"
#include "ir/graph.h"
#include "ir/status.h"
#include "runtime/backend.h"
#include "runtime/executor.h"
#include "runtime/partition.h"
#include "runtime/plan.h"
#include "runtime/schedule.h"

namespace plumb::capi {

// Storage behind one plumb_tensor_info (the C struct points into it).
struct TensorInfo {
  std::string name;
  ir::DType dtype = ir::DType::F32;
  std::vector<int64_t> dims;  // -1: not known yet
  std::vector<std::string> dim_names;
  std::vector<const char*> dim_name_ptrs;

  void set(const ir::Type& type);  // dtype, dims and names from a (ranked tensor) type
  plumb_tensor_info view() const;
};

// One input shape's plan, schedule, buffers and executor (which refers to the three: destroyed first).
struct Planned {
  std::unique_ptr<rt::Plan> plan;
  std::unique_ptr<rt::Schedule> schedule;
  std::unique_ptr<rt::BufferTable> buffers;
  std::unique_ptr<rt::Executor> executor;
  std::shared_ptr<uint8_t> arena;  // the arena the buffers use (the caller's, or owned)
  size_t arena_request = 0;        // plumb_model_arena_size's answer for this plan
  bool laid_out = false;           // plumb_model_plan was called (buffers and executor exist)
};

}  // namespace plumb::capi

struct plumb_model {
  std::string error;                  // plumb_last_error
  const char* fixed_error = nullptr;  // instead of `error` when making a string failed (no memory)

  std::optional<plumb::ir::Graph> graph;
  std::shared_ptr<const void> model_bytes;  // a copy of an unaligned buffer given to load_memory
  std::unique_ptr<plumb::rt::Backend> backend;
  std::unique_ptr<plumb::rt::Partition> partition;
  std::unique_ptr<plumb::rt::Stream> stream;

  std::vector<plumb::capi::TensorInfo> inputs, outputs;
  std::vector<uint8_t> input_shape_known;  // per input: every dim has a size
  plumb::capi::Planned planned;

  // Bindings (made by plan): one tensor per input, its data the caller's buffer.
  std::vector<plumb::rt::RtValue> input_values;
  std::vector<const plumb::rt::RtValue*> input_ptrs;
  std::vector<uint8_t> input_bound;
  std::vector<void*> output_dst;
  std::vector<size_t> output_dst_bytes;
  bool have_outputs = false;
};

namespace plumb::capi {

plumb_status status_code(ErrorCode code);
// Records `s` as the model's last error and returns its code (PLUMB_OK for ok, clearing it).
plumb_status record(plumb_model* m, const Status& s);

// Runs `body` (returning a Status) with the model's error cleared; turns an exception escaping
// it (std::bad_alloc where exceptions are on) into PLUMB_OUT_OF_MEMORY or PLUMB_INTERNAL_ERROR,
// so nothing but a plumb_status crosses the C boundary.
template <typename Body>
plumb_status guarded(plumb_model* m, Body&& body) {
  if (!m) return PLUMB_INVALID_INPUT;
  m->fixed_error = nullptr;
#if defined(__cpp_exceptions)
  try {
    return record(m, body());
  } catch (const std::bad_alloc&) {
    m->fixed_error = "out of memory";
    return PLUMB_OUT_OF_MEMORY;
  } catch (...) {
    m->fixed_error = "internal error: an exception escaped the runtime";
    return PLUMB_INTERNAL_ERROR;
  }
#else
  return record(m, body());
#endif
}

// Drops the plan (and with it the bindings and outputs).
void drop_plan(plumb_model* m);
Status need_model(const plumb_model* m);                   // a graph is loaded
Status check_index(size_t k, size_t n, const char* what);  // "input #3 does not exist: ..."
// "input 'x'" (the graph's name), or "input #0" when it has none; kind "input" or "output".
std::string io_label(const std::vector<std::string>& names, size_t k, const char* kind);
std::string input_label(const plumb_model* m, size_t k);
std::string output_label(const plumb_model* m, size_t k);

}  // namespace plumb::capi
