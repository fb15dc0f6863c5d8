// plumb.h: binding the caller's buffers and running (no allocation for a static-shaped plan).
#include <cstring>

#include "api/model.h"

namespace plumb::capi {
namespace {

Status need_layout(const plumb_model* m) {
  PLUMB_RETURN_IF_ERROR(need_model(m));
  if (!m->planned.laid_out) return invalid_input("the model is not planned (plumb_model_plan)");
  return Status::ok();
}

Status bind_input(plumb_model* m, size_t k, const void* data, size_t bytes) {
  PLUMB_RETURN_IF_ERROR(need_layout(m));
  PLUMB_RETURN_IF_ERROR(check_index(k, m->inputs.size(), "input"));
  rt::Tensor& t = m->input_values[k].tensor();
  const size_t want = static_cast<size_t>(t.nbytes());
  const std::string what = input_label(m, k);
  if (bytes != want)
    return invalid_input(strfmt("%s is %s: %zu bytes, the buffer has %zu", what.c_str(),
                                ir::type_to_string(rt::type_of(m->input_values[k])).c_str(), want, bytes));
  if (!data && want) return invalid_input(what + ": data is NULL");
  const auto align = static_cast<uintptr_t>(rt::runtime_elem_bytes(t.dtype));
  if (align > 1 && reinterpret_cast<uintptr_t>(data) % align != 0)
    return invalid_input(strfmt("%s: the buffer is not aligned to its element size (%u bytes)", what.c_str(),
                                static_cast<unsigned>(align)));
  t.data = const_cast<void*>(data);  // read only: kernels never write their operands
  m->input_bound[k] = 1;
  return Status::ok();
}

Status bind_output(plumb_model* m, size_t k, void* data, size_t bytes) {
  PLUMB_RETURN_IF_ERROR(need_layout(m));
  PLUMB_RETURN_IF_ERROR(check_index(k, m->outputs.size(), "output"));
  const ir::Type& planned = m->planned.plan->values[m->graph->body.results[k]].type;
  if (data && ir::shape_is_static(planned.shape)) {
    PLUMB_ASSIGN_OR_RETURN(const int64_t need, rt::tensor_bytes(planned, INT64_MAX));
    if (bytes < static_cast<size_t>(need))
      return invalid_input(strfmt("%s is %s: %lld bytes, the buffer has %zu", output_label(m, k).c_str(),
                                  ir::type_to_string(planned).c_str(), (long long)need, bytes));
  }
  m->output_dst[k] = data;
  m->output_dst_bytes[k] = data ? bytes : 0;
  return Status::ok();
}

Status run(plumb_model* m) {
  PLUMB_RETURN_IF_ERROR(need_layout(m));
  m->have_outputs = false;
  for (size_t k = 0; k < m->inputs.size(); ++k)
    if (!m->input_bound[k]) return invalid_input(input_label(m, k) + " is not bound");
  const ir::Graph& g = *m->graph;
  Planned& p = m->planned;
  PLUMB_RETURN_IF_ERROR(rt::bind_inputs(g, *p.plan, m->input_ptrs, *p.buffers));
  PLUMB_RETURN_IF_ERROR(p.executor->run(*p.buffers, m->stream.get()));
  for (size_t k = 0; k < m->outputs.size(); ++k) {
    if (!m->output_dst[k]) continue;
    const rt::Tensor& t = p.buffers->values[g.body.results[k]].tensor();
    const size_t bytes = static_cast<size_t>(t.nbytes());
    if (bytes > m->output_dst_bytes[k])
      return invalid_input(
          strfmt("%s is %s: %zu bytes, the buffer has %zu", output_label(m, k).c_str(),
                 ir::type_to_string(rt::type_of(p.buffers->values[g.body.results[k]])).c_str(), bytes,
                 m->output_dst_bytes[k]));
    if (bytes) std::memcpy(m->output_dst[k], t.data, bytes);
  }
  m->have_outputs = true;
  return Status::ok();
}

Status output_data(plumb_model* m, size_t k, const void** data, size_t* bytes) {
  PLUMB_RETURN_IF_ERROR(need_model(m));
  PLUMB_RETURN_IF_ERROR(check_index(k, m->outputs.size(), "output"));
  if (!data || !bytes) return invalid_input("data or bytes is NULL");
  if (!m->have_outputs) return invalid_input("no outputs: the model has not run since it was planned");
  const rt::Tensor& t = m->planned.buffers->values[m->graph->body.results[k]].tensor();
  *data = t.data;
  *bytes = static_cast<size_t>(t.nbytes());
  return Status::ok();
}

}  // namespace
}  // namespace plumb::capi

using plumb::capi::guarded;

extern "C" {

plumb_status plumb_model_bind_input(plumb_model* model, size_t k, const void* data, size_t bytes) {
  return guarded(model, [&] { return plumb::capi::bind_input(model, k, data, bytes); });
}

plumb_status plumb_model_bind_output(plumb_model* model, size_t k, void* data, size_t bytes) {
  return guarded(model, [&] { return plumb::capi::bind_output(model, k, data, bytes); });
}

plumb_status plumb_model_run(plumb_model* model) {
  return guarded(model, [&] { return plumb::capi::run(model); });
}

plumb_status plumb_model_output_data(plumb_model* model, size_t k, const void** data, size_t* bytes) {
  return guarded(model, [&] { return plumb::capi::output_data(model, k, data, bytes); });
}

}  // extern "C"
