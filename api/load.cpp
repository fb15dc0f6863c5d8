// plumb.h: the model's life (create, destroy, last error) and loading (memory or file, always
// verified), then the per-graph phase: the ref backend's partition, constants decoded once.
#include <cstdint>
#include <cstring>
#include <new>

#include "api/model.h"
#include "ir/load.h"

namespace plumb::capi {
namespace {

// The C API binds dense numeric (or bool) tensors only.
Status check_bindable(const ir::Type& t, const std::string& what) {
  if (!t.is_tensor() || !t.ranked || t.dtype == ir::DType::String)
    return unsupported(what + " is " + ir::type_to_string(t) +
                       ": the C API binds ranked tensors of numeric or bool type only");
  return Status::ok();
}

// Back to an empty model (before a new load).
void unload(plumb_model* m) {
  drop_plan(m);
  m->partition.reset();
  m->stream.reset();
  m->backend.reset();
  m->graph.reset();
  m->model_bytes.reset();
  m->inputs.clear();
  m->outputs.clear();
  m->input_shape_known.clear();
}

// The loaded graph becomes the model's: checks its inputs and outputs, partitions it for ref.
Status adopt_graph(plumb_model* m, ir::Graph g) {
  for (size_t k = 0; k < g.body.params.size(); ++k)
    PLUMB_RETURN_IF_ERROR(check_bindable(g.type_of(g.body.params[k]), io_label(g.input_names, k, "input")));
  for (size_t k = 0; k < g.body.results.size(); ++k)
    PLUMB_RETURN_IF_ERROR(
        check_bindable(g.type_of(g.body.results[k]), io_label(g.output_names, k, "output")));
  m->graph = std::move(g);
  const ir::Graph& graph = *m->graph;
  PLUMB_ASSIGN_OR_RETURN(m->backend, rt::make_backend("ref"));
  PLUMB_ASSIGN_OR_RETURN(rt::Partition part,
                         rt::partition_graph(graph, *m->backend, rt::NumericMode::kNative));
  m->partition = std::make_unique<rt::Partition>(std::move(part));
  PLUMB_ASSIGN_OR_RETURN(m->stream, m->backend->make_stream());
  const size_t ni = graph.body.params.size(), no = graph.body.results.size();
  m->inputs.resize(ni);
  m->outputs.resize(no);
  m->input_shape_known.assign(ni, 0);
  for (size_t k = 0; k < ni; ++k) {
    m->inputs[k].name = k < graph.input_names.size() ? graph.input_names[k] : "";
    m->inputs[k].set(graph.type_of(graph.body.params[k]));
    m->input_shape_known[k] = ir::shape_is_static(graph.type_of(graph.body.params[k]).shape);
  }
  for (size_t k = 0; k < no; ++k) {
    m->outputs[k].name = k < graph.output_names.size() ? graph.output_names[k] : "";
    m->outputs[k].set(graph.type_of(graph.body.results[k]));
  }
  return Status::ok();
}

Status adopt(plumb_model* m, ir::Graph g) {
  Status s = adopt_graph(m, std::move(g));
  if (!s.is_ok()) unload(m);
  return s;
}

Status load_memory(plumb_model* m, const void* data, size_t size) {
  unload(m);
  if (!data && size) return invalid_input("no model bytes (data is NULL)");
  const auto* bytes = static_cast<const uint8_t*>(data);
  if (reinterpret_cast<uintptr_t>(data) % PLUMB_MODEL_ALIGN != 0) {
    // Constants are read in place at their natural alignment: copy an unaligned buffer first.
    auto* copy = static_cast<uint8_t*>(::operator new[](size, std::align_val_t(64), std::nothrow));
    if (!copy && size) return runtime_error("", strfmt("cannot allocate %zu bytes for the model", size));
    if (size) std::memcpy(copy, data, size);
    m->model_bytes = std::shared_ptr<const void>(
        copy, [](const void* p) { ::operator delete[](const_cast<void*>(p), std::align_val_t(64)); });
    bytes = copy;
  }
  PLUMB_ASSIGN_OR_RETURN(ir::Graph g, ir::load_memory(bytes, size, m->model_bytes));
  return adopt(m, std::move(g));
}

Status load_file(plumb_model* m, const char* path) {
  unload(m);
  if (!path) return invalid_input("no path (NULL)");
  Expected<ir::Graph> g = ir::load_file(path);
  if (!g) {
    const Status& s = g.status();
    return Status(s.code(), s.message(), s.label(),
                  s.place().empty() ? std::string(path) : path + (": " + s.place()));
  }
  return adopt(m, std::move(*g));
}

}  // namespace

plumb_status status_code(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return PLUMB_OK;
    case ErrorCode::kInvalidModel: return PLUMB_INVALID_MODEL;
    case ErrorCode::kInvalidInput: return PLUMB_INVALID_INPUT;
    case ErrorCode::kUnsupported: return PLUMB_UNSUPPORTED;
    case ErrorCode::kRuntimeError: return PLUMB_RUNTIME_ERROR;
    case ErrorCode::kInternal: return PLUMB_INTERNAL_ERROR;
  }
  return PLUMB_INTERNAL_ERROR;
}

plumb_status record(plumb_model* m, const Status& s) {
  if (s.is_ok()) {
    m->error.clear();
  } else {
    m->error = s.to_string();
    for (char& c : m->error)
      if (c == '\n' || c == '\r') c = ' ';  // one line
  }
  return status_code(s.code());
}

Status need_model(const plumb_model* m) {
  if (!m->graph) return invalid_input("no model is loaded");
  return Status::ok();
}

Status check_index(size_t k, size_t n, const char* what) {
  if (k >= n) return invalid_input(strfmt("%s #%zu does not exist: the model has %zu", what, k, n));
  return Status::ok();
}

std::string io_label(const std::vector<std::string>& names, size_t k, const char* kind) {
  if (k < names.size() && !names[k].empty()) return std::string(kind) + " '" + names[k] + "'";
  return std::string(kind) + " #" + std::to_string(k);
}

std::string input_label(const plumb_model* m, size_t k) {
  return io_label(m->graph->input_names, k, "input");
}
std::string output_label(const plumb_model* m, size_t k) {
  return io_label(m->graph->output_names, k, "output");
}

}  // namespace plumb::capi

using plumb::capi::guarded;

extern "C" {

plumb_model* plumb_model_create(void) { return new (std::nothrow) plumb_model(); }

void plumb_model_destroy(plumb_model* model) { delete model; }

const char* plumb_last_error(const plumb_model* model) {
  if (!model) return "no model (NULL)";
  return model->fixed_error ? model->fixed_error : model->error.c_str();
}

plumb_status plumb_model_load_memory(plumb_model* model, const void* data, size_t size) {
  return guarded(model, [&] { return plumb::capi::load_memory(model, data, size); });
}

plumb_status plumb_model_load_file(plumb_model* model, const char* path) {
  return guarded(model, [&] { return plumb::capi::load_file(model, path); });
}

}  // extern "C"
