// plumb.h: planning for the current input shapes, into the caller's arena or an owned one.
#include <cstring>

#include "api/model.h"

namespace plumb::capi {
namespace {

constexpr size_t kArenaAlign = PLUMB_ARENA_ALIGN;

// Plan and schedule for the current input shapes (kept until a shape changes).
Status make_plan_for_shapes(plumb_model* m) {
  PLUMB_RETURN_IF_ERROR(need_model(m));
  Planned& p = m->planned;
  if (p.plan) return Status::ok();
  const ir::Graph& g = *m->graph;
  std::vector<ir::Type> types;
  for (size_t k = 0; k < m->inputs.size(); ++k) {
    const ir::Type& declared = g.type_of(g.body.params[k]);
    if (!m->input_shape_known[k])
      return invalid_input(input_label(m, k) + " is " + ir::type_to_string(declared) +
                           ": set its shape first (plumb_model_set_input_shape)");
    types.push_back(ir::Type::tensor(declared.dtype, ir::static_shape(m->inputs[k].dims)));
  }
  PLUMB_RETURN_IF_ERROR(rt::check_inputs(g, types));
  rt::PlanOptions po;
  po.constants = &m->partition->constants;
  PLUMB_ASSIGN_OR_RETURN(rt::Plan plan, rt::make_plan(g, types, po));
  auto owned_plan = std::make_unique<rt::Plan>(std::move(plan));
  PLUMB_ASSIGN_OR_RETURN(rt::Schedule sc, rt::make_schedule(g, *owned_plan, *m->partition, po.max_bytes));
  p.plan = std::move(owned_plan);
  p.schedule = std::make_unique<rt::Schedule>(std::move(sc));
  const int64_t bytes = p.schedule->host_arena_bytes;
  p.arena_request = bytes > 0 ? static_cast<size_t>(bytes) + kArenaAlign - 1 : 0;
  return Status::ok();
}

Status arena_size(plumb_model* m, size_t* bytes) {
  if (!bytes) return invalid_input("bytes is NULL");
  PLUMB_RETURN_IF_ERROR(make_plan_for_shapes(m));
  *bytes = m->planned.arena_request;
  return Status::ok();
}

Status lay_out(plumb_model* m, void* arena, size_t arena_bytes) {
  PLUMB_RETURN_IF_ERROR(make_plan_for_shapes(m));
  Planned& p = m->planned;
  // A new layout: the bindings and the buffers of the last one go.
  p.executor.reset();
  p.buffers.reset();
  p.arena.reset();
  p.laid_out = false;
  m->have_outputs = false;
  const ir::Graph& g = *m->graph;
  const int64_t need = p.schedule->host_arena_bytes;
  if (arena && need > 0) {
    if (arena_bytes < p.arena_request)
      return invalid_input(strfmt("the arena has %zu bytes, this plan needs %zu (plumb_model_arena_size)",
                                  arena_bytes, p.arena_request));
    const uintptr_t at = reinterpret_cast<uintptr_t>(arena);
    auto* aligned = static_cast<uint8_t*>(arena) + (kArenaAlign - at % kArenaAlign) % kArenaAlign;
    std::memset(aligned, 0, static_cast<size_t>(need));  // as the library's own arenas are
    p.arena = std::shared_ptr<uint8_t>(std::shared_ptr<uint8_t>(), aligned);  // not owned
  } else if (need > 0) {
    PLUMB_ASSIGN_OR_RETURN(p.arena, rt::host_allocator().allocate(need));
  }
  PLUMB_ASSIGN_OR_RETURN(rt::BufferTable b,
                         rt::make_buffer_table(g, *p.plan, *p.schedule, *m->partition, p.arena));
  p.buffers = std::make_unique<rt::BufferTable>(std::move(b));
  p.executor =
      std::make_unique<rt::Executor>(g, *p.plan, *p.schedule, m->backend->allocator(), rt::ExecOptions{});
  // Everything a run needs is made now, so that runs allocate nothing: the input tensors (their
  // shapes; data bound later), the slots bind_inputs copies them into, the executor's call records.
  const size_t ni = m->inputs.size(), no = m->outputs.size();
  m->input_values.assign(ni, rt::RtValue{});
  m->input_ptrs.assign(ni, nullptr);
  m->input_bound.assign(ni, 0);
  for (size_t k = 0; k < ni; ++k) {
    rt::Tensor t;
    t.dtype = g.type_of(g.body.params[k]).dtype;
    t.shape = m->inputs[k].dims;
    m->input_values[k] = std::move(t);
    m->input_ptrs[k] = &m->input_values[k];
    p.buffers->values[g.body.params[k]] = m->input_values[k];
  }
  m->output_dst.assign(no, nullptr);
  m->output_dst_bytes.assign(no, 0);
  p.executor->bind(*p.buffers);
  p.laid_out = true;
  return Status::ok();
}

}  // namespace

void drop_plan(plumb_model* m) {
  Planned& p = m->planned;
  p.executor.reset();  // refers to the others
  p.buffers.reset();
  p.arena.reset();
  p.schedule.reset();
  p.plan.reset();
  p.arena_request = 0;
  p.laid_out = false;
  m->input_values.clear();
  m->input_ptrs.clear();
  m->input_bound.clear();
  m->output_dst.clear();
  m->output_dst_bytes.clear();
  m->have_outputs = false;
}

}  // namespace plumb::capi

using plumb::capi::guarded;

extern "C" {

plumb_status plumb_model_arena_size(plumb_model* model, size_t* bytes) {
  return guarded(model, [&] { return plumb::capi::arena_size(model, bytes); });
}

plumb_status plumb_model_plan(plumb_model* model, void* arena, size_t arena_bytes) {
  return guarded(model, [&] { return plumb::capi::lay_out(model, arena, arena_bytes); });
}

}  // extern "C"
