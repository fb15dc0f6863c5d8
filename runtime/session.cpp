#include "runtime/session.h"

#include <algorithm>
#include <cstring>

#include "ir/verify.h"
#include "runtime/node_error.h"

namespace plumb::rt {
namespace {

Tensor deep_copy(const Tensor& t) {
  Tensor c = Tensor::allocate(t.dtype, t.shape);
  if (t.dtype == ir::DType::String) {
    for (int64_t i = 0; i < t.numel(); ++i) c.strings()[i] = t.strings()[i];
  } else if (t.nbytes() > 0) {
    std::memcpy(c.data, t.data, static_cast<size_t>(t.nbytes()));
  }
  return c;
}

// The plan's input types equal the inputs' run-time types (without building ir::Type values: a
// run with unchanged shapes allocates nothing here).
bool same_types(const Plan& plan, const std::vector<RtValue>& inputs) {
  if (plan.input_types.size() != inputs.size()) return false;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const ir::Type& want = plan.input_types[k];
    if (!inputs[k].is_tensor() || !want.is_tensor()) {
      if (want != type_of(inputs[k])) return false;
      continue;
    }
    const Tensor& t = inputs[k].tensor();
    if (t.dtype != want.dtype || !want.ranked || t.shape.size() != want.shape.size()) return false;
    for (size_t d = 0; d < t.shape.size(); ++d)
      if (want.shape[d].size != t.shape[d] || !want.shape[d].sym.empty()) return false;
  }
  return true;
}

}  // namespace

Expected<std::unique_ptr<Session>> Session::create(ir::Graph graph, SessionOptions options) {
  return create(std::make_shared<const ir::Graph>(std::move(graph)), std::move(options));
}

Expected<std::unique_ptr<Session>> Session::create(std::shared_ptr<const ir::Graph> graph,
                                                   SessionOptions options) {
  if (!graph) return invalid_input("Session::create: no graph");
  if (options.verify) PLUMB_RETURN_IF_ERROR(ir::verify(*graph));
  std::unique_ptr<Session> s(new Session());
  PLUMB_ASSIGN_OR_RETURN(s->backend_, make_backend(options.backend, options.extra_backends));
  s->graph_ = std::move(graph);
  if (options.mode == NumericMode::kPrecise) {
    PLUMB_ASSIGN_OR_RETURN(ir::Graph p, make_precise_graph(*s->graph_));
    s->precise_ = std::make_unique<ir::Graph>(std::move(p));
  }
  PLUMB_ASSIGN_OR_RETURN(Partition part, partition_graph(s->exec_graph(), *s->backend_, options.mode,
                                                         std::max(1, options.threads)));
  s->partition_ = std::make_unique<Partition>(std::move(part));
  PLUMB_ASSIGN_OR_RETURN(s->stream_, s->backend_->make_stream());
  s->options_ = std::move(options);
  s->inputs_.resize(s->num_inputs());
  s->input_set_.assign(s->num_inputs(), 0);
  return s;
}

std::string Session::input_name(size_t k) const {
  return k < graph_->input_names.size() ? graph_->input_names[k] : std::string();
}
std::string Session::output_name(size_t k) const {
  return k < graph_->output_names.size() ? graph_->output_names[k] : std::string();
}

Expected<size_t> Session::input_index(std::string_view name) const {
  for (size_t k = 0; k < graph_->input_names.size() && k < num_inputs(); ++k)
    if (graph_->input_names[k] == name) return k;
  std::string names;
  for (size_t k = 0; k < graph_->input_names.size(); ++k) names += (k ? ", " : "") + graph_->input_names[k];
  return invalid_input("the graph has no input named '" + std::string(name) + "' (inputs: " + names + ")");
}

Status Session::set_input(size_t k, RtValue value) {
  if (k >= num_inputs())
    return invalid_input(strfmt("input #%zu does not exist: the graph has %zu inputs", k, num_inputs()));
  inputs_[k] = std::move(value);
  input_set_[k] = 1;
  return Status::ok();
}

Status Session::set_input(std::string_view name, RtValue value) {
  PLUMB_ASSIGN_OR_RETURN(const size_t k, input_index(name));
  return set_input(k, std::move(value));
}

Status Session::run() {
  have_outputs_ = false;
  for (size_t k = 0; k < num_inputs(); ++k) {
    if (!input_set_[k]) {
      const std::string n = input_name(k);
      return invalid_input(n.empty() ? strfmt("input #%zu is not set", k) : "input '" + n + "' is not set");
    }
    if (inputs_[k].is_tensor()) {
      const Tensor& t = inputs_[k].tensor();
      bool empty = false;
      for (int64_t d : t.shape) {
        if (d < 0) return invalid_input(strfmt("input #%zu has a negative dimension", k));
        empty = empty || d == 0;
      }
      if (!t.data && !empty) return invalid_input(strfmt("input #%zu has a shape but no data", k));
    }
  }
  PLUMB_RETURN_IF_ERROR(plan_for_inputs());
  Planned& p = plans_.front();
  input_ptrs_.resize(inputs_.size());
  for (size_t k = 0; k < inputs_.size(); ++k) input_ptrs_[k] = &inputs_[k];
  PLUMB_RETURN_IF_ERROR(bind_inputs(exec_graph(), *p.plan, input_ptrs_, *p.buffers));
  PLUMB_RETURN_IF_ERROR(p.executor->run(*p.buffers, stream_.get()));
  have_outputs_ = true;
  return Status::ok();
}

Status Session::plan_for_inputs() {
  for (size_t i = 0; i < plans_.size(); ++i)
    if (same_types(*plans_[i].plan, inputs_)) {
      std::rotate(plans_.begin(), plans_.begin() + static_cast<std::ptrdiff_t>(i),
                  plans_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      return Status::ok();
    }
  std::vector<ir::Type> types;
  for (const RtValue& v : inputs_) types.push_back(type_of(v));
  PLUMB_RETURN_IF_ERROR(check_inputs(*graph_, types));
  // Make room first: the evicted entry's arenas are freed before the new ones are allocated.
  const size_t keep = static_cast<size_t>(std::max(1, options_.max_plans));
  while (plans_.size() >= keep) plans_.pop_back();
  PlanOptions po;
  po.mode = options_.mode;
  po.max_bytes = options_.max_bytes;
  po.constants = &partition_->constants;
  po.memory = options_.memory.get();
  const int64_t refused_before = options_.memory ? options_.memory->refusals() : 0;
  Expected<Plan> made = make_plan(exec_graph(), types, po);
  if (!made && options_.memory && !plans_.empty() && options_.memory->refusals() > refused_before) {
    // The budget may have refused because of the plans kept for other shapes: free them, retry.
    plans_.clear();
    made = make_plan(exec_graph(), types, po);
  }
  if (!made) return made.status();
  Planned p;
  p.plan = std::make_unique<Plan>(std::move(*made));
  PLUMB_ASSIGN_OR_RETURN(Schedule sc, make_schedule(exec_graph(), *p.plan, *partition_, options_.max_bytes,
                                                    std::max(1, options_.threads)));
  p.schedule = std::make_unique<Schedule>(std::move(sc));
  if (options_.on_schedule)
    options_.on_schedule(describe_schedule(exec_graph(), *p.plan, *partition_, *p.schedule));
  PLUMB_ASSIGN_OR_RETURN(BufferTable b, make_buffer_table(exec_graph(), *p.plan, *p.schedule, *partition_,
                                                          /*host_arena=*/{}, options_.memory));
  p.buffers = std::make_unique<BufferTable>(std::move(b));
  ExecOptions eo;
  eo.mode = options_.mode;
  eo.max_bytes = options_.max_bytes;
  eo.max_while_iterations = options_.max_while_iterations;
  eo.threads = std::max(1, options_.threads);
  eo.on_node = options_.on_node;
  eo.memory = options_.memory;
  p.executor = std::make_unique<Executor>(exec_graph(), *p.plan, *p.schedule, backend_->allocator(), eo);
  plans_.insert(plans_.begin(), std::move(p));
  ++plans_made_;
  return Status::ok();
}

const RtValue& Session::output(size_t k) const {
  static const RtValue kNone;  // immutable
  if (!have_outputs_ || k >= num_outputs()) return kNone;
  return plans_.front().buffers->values[exec_graph().body.results[k]];
}

Expected<std::vector<RtValue>> Session::copy_outputs() const {
  std::vector<RtValue> out;
  for (size_t k = 0; k < num_outputs(); ++k) {
    const RtValue& v = output(k);
    if (v.is_tensor() && !plans_.empty() && plans_.front().buffers->in_arena(v.tensor().data)) {
      const Tensor& t = v.tensor();
      const std::string name = output_name(k);
      const std::string what =
          "a copy of " + (name.empty() ? strfmt("output #%zu", k) : "output '" + name + "'");
      auto c = allocate_charged(options_.memory, t.dtype, t.shape, what.c_str());
      if (!c) {  // placed at the node that computes the output
        const int64_t def = plans_.front().plan->values[exec_graph().body.results[k]].def;
        return def < 0 ? c.status()
                       : c.status().with_place(top_level_place(exec_graph(), static_cast<size_t>(def)));
      }
      if (t.dtype == ir::DType::String)
        for (int64_t i = 0; i < t.numel(); ++i) c->strings()[i] = t.strings()[i];
      else if (t.nbytes() > 0)
        std::memcpy(c->data, t.data, static_cast<size_t>(t.nbytes()));
      out.emplace_back(std::move(*c));
    } else {
      out.push_back(v);
    }
  }
  return out;
}

std::vector<RtValue> Session::outputs() const {
  std::vector<RtValue> out;
  for (size_t k = 0; k < num_outputs(); ++k) {
    const RtValue& v = output(k);
    if (v.is_tensor() && !plans_.empty() && plans_.front().buffers->in_arena(v.tensor().data))
      out.emplace_back(deep_copy(v.tensor()));
    else
      out.push_back(v);
  }
  return out;
}

}  // namespace plumb::rt
