#include "runtime/executor.h"

#include <cstring>
#include <new>
#include <type_traits>

#include "ir/attrs.h"
#include "ir/infer.h"
#include "runtime/cpu/ref/dispatch.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/node_error.h"

namespace plumb::rt {
namespace {

bool is_static_tensor(const ir::Type& t) { return t.is_tensor() && t.ranked && ir::shape_is_static(t.shape); }

// Pre-order index of `target` in `nodes` (counting from `base`), or -1.
int64_t find_preorder(const std::vector<ir::Node>& nodes, const ir::Node* target, int64_t& counter) {
  for (const ir::Node& n : nodes) {
    if (&n == target) return counter;
    ++counter;
    for (const ir::Region& r : n.regions) {
      const int64_t found = find_preorder(r.nodes, target, counter);
      if (found >= 0) return found;
    }
  }
  return -1;
}

template <typename T>
double widen(T x) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<double>(x);
  else
    return to_f64(x);
}

// dst (f64, same numel) = src widened exactly.
Status widen_into(const Tensor& src, double* dst) {
  Status st;
  visit_dtype(src.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_storage_v<T>) {
      const T* s = src.as<T>();
      const int64_t n = src.numel();  // (numel() is a product over the shape: not per element)
      for (int64_t i = 0; i < n; ++i) dst[i] = widen(s[i]);
    } else {
      st = internal_error("widening a non-float tensor");
    }
  });
  return st;
}

Status bool_scalar(const RtValue& v, const char* what, bool& out) {
  if (!v.is_tensor() || v.tensor().dtype != ir::DType::Bool || v.tensor().numel() != 1 || !v.tensor().data)
    return runtime_error("",
                         std::string(what) + " is " + ir::type_to_string(type_of(v)) + ", expected bool[]");
  out = v.tensor().as<uint8_t>()[0] != 0;
  return Status::ok();
}

}  // namespace

Expected<BufferTable> make_buffer_table(const ir::Graph& g, const Plan& plan, const Schedule& schedule,
                                        const Partition& part, std::shared_ptr<uint8_t> host_arena,
                                        const std::shared_ptr<MemoryBudget>& memory) {
  BufferTable b;
  b.plan = &plan;
  b.schedule = &schedule;
  b.values.resize(g.values.size());
  if (plan.values.size() != g.values.size() || schedule.host_offset.size() != g.values.size())
    return internal_error("plan or schedule was made for another graph");
  if (schedule.host_arena_bytes > 0 && host_arena) {
    b.arena = std::move(host_arena);
    b.arena_bytes = schedule.host_arena_bytes;
  } else if (schedule.host_arena_bytes > 0) {
    // The planner refused an arena past the budget already (naming the node whose result ends
    // it); what it could not see is the kernels' scratch after it: a refusal now names the node
    // that needs the most of it.
    const bool scratch = schedule.ref_scratch_node >= 0;
    Expected<MemoryCharge> reserved =
        reserve(memory, schedule.host_arena_bytes,
                scratch ? "the plan's arena with the kernels' scratch" : "the plan's arena");
    if (!reserved && scratch)
      return reserved.status().with_place(top_level_place(g, static_cast<size_t>(schedule.ref_scratch_node)));
    if (!reserved) return reserved.status();
    MemoryCharge charge = std::move(*reserved);
    PLUMB_ASSIGN_OR_RETURN(b.arena, host_allocator().allocate(schedule.host_arena_bytes));
    if (memory) b.arena = std::shared_ptr<uint8_t>(with_charge(b.arena, std::move(charge)), b.arena.get());
    b.arena_bytes = schedule.host_arena_bytes;
  }
  Allocator& alloc = part.backend->allocator();
  const bool device = schedule.device == Device::kDevice && !schedule.spans.empty();
  if (schedule.device_arena_bytes > 0) {
    PLUMB_ASSIGN_OR_RETURN(b.device_arena, alloc.allocate(schedule.device_arena_bytes));
  }
  auto view = [](const ValuePlan& vp, const std::shared_ptr<uint8_t>& arena, int64_t offset, Device dev) {
    Tensor t;
    t.dtype = vp.type.dtype;
    for (const ir::Dim& d : vp.type.shape) t.shape.push_back(d.size);
    t.data = arena.get() + offset;
    t.storage = std::shared_ptr<void>(arena, t.data);
    t.device = dev;
    return t;
  };
  if (device) b.device_values.resize(g.values.size());
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const ValuePlan& vp = plan.values[v];
    if (vp.storage == Storage::kConstant || vp.storage == Storage::kFolded)
      b.values[v] = plan.known[v];
    else if (schedule.host_offset[v] >= 0)
      b.values[v] = view(vp, b.arena, schedule.host_offset[v], Device::kHost);
    if (!device) continue;
    if (schedule.device_offset[v] >= 0) {
      b.device_values[v] = view(vp, b.device_arena, schedule.device_offset[v], Device::kDevice);
    } else if (schedule.device_known[v]) {
      const ir::Node& def = g.body.nodes[vp.def];
      if (vp.storage == Storage::kConstant &&
          ir::attrs<ir::Op::Constant>(def).value.index < part.device_constants.size() &&
          part.device_constants[ir::attrs<ir::Op::Constant>(def).value.index].device == Device::kDevice) {
        b.device_values[v] = part.device_constants[ir::attrs<ir::Op::Constant>(def).value.index];
        continue;
      }
      // A folded value (or a constant with no data): copied to the device once per plan.
      PLUMB_ASSIGN_OR_RETURN(Tensor t, upload(plan.known[v].tensor(), alloc, nullptr));
      b.device_values[v] = std::move(t);
    }
  }
  return b;
}

Status bind_inputs(const ir::Graph& g, const Plan& plan, const std::vector<const RtValue*>& inputs,
                   BufferTable& buffers) {
  const auto& params = g.body.params;
  if (inputs.size() != params.size())
    return invalid_input(strfmt("the graph has %zu inputs, %zu were given", params.size(), inputs.size()));
  if (buffers.plan != &plan) return internal_error("buffer table was made for another plan");
  for (size_t k = 0; k < params.size(); ++k) {
    if (!inputs[k]) return invalid_input(strfmt("input #%zu is not set", k));
    const ir::ValueId v = params[k];
    const ValuePlan& vp = plan.values[v];
    if (vp.storage == Storage::kInputArena) {
      const Tensor& src = inputs[k]->tensor();
      Tensor& dst = buffers.values[v].tensor();
      if (src.shape != dst.shape) return internal_error("input shape differs from the plan");
      PLUMB_RETURN_IF_ERROR(widen_into(src, dst.as<double>()));
    } else {
      buffers.values[v] = *inputs[k];
    }
  }
  return Status::ok();
}

Status Executor::with_place(Status s, const ir::Node& n) const {
  if (s.is_ok() || !s.place().empty()) return s;
  int64_t counter = 0;
  return node_error(std::move(s), n, find_preorder(g_.body.nodes, &n, counter));
}

// A value that outlives its node must not point into the arena (its slot is reused): copy it.
Status Executor::escape(RtValue& v, const BufferTable& b) const {
  if (auto* t = std::get_if<Tensor>(&v)) {
    if (!b.in_arena(t->data)) return Status::ok();
    PLUMB_ASSIGN_OR_RETURN(const int64_t bytes, tensor_bytes(type_of(v), options_.max_bytes));
    PLUMB_ASSIGN_OR_RETURN(
        Tensor c, allocate_charged(options_.memory, t->dtype, t->shape, "a value copied out of the arena"));
    if (bytes) std::memcpy(c.data, t->data, static_cast<size_t>(bytes));
    *t = std::move(c);
  } else if (auto* s = std::get_if<SequenceValue>(&v)) {
    for (Tensor& item : s->items) {
      RtValue tmp = item;
      PLUMB_RETURN_IF_ERROR(escape(tmp, b));
      item = std::move(tmp.tensor());
    }
    for (MapValue& m : s->maps) {
      RtValue tmp = m;
      PLUMB_RETURN_IF_ERROR(escape(tmp, b));
      m = std::move(std::get<MapValue>(tmp));
    }
  } else if (auto* o = std::get_if<OptionalValue>(&v)) {
    if (o->value) {
      RtValue inner = *o->value;
      PLUMB_RETURN_IF_ERROR(escape(inner, b));
      o->value = std::make_shared<RtValue>(std::move(inner));
    }
  } else if (auto* m = std::get_if<MapValue>(&v)) {
    RtValue k = m->keys, x = m->values;
    PLUMB_RETURN_IF_ERROR(escape(k, b));
    PLUMB_RETURN_IF_ERROR(escape(x, b));
    m->keys = std::move(k.tensor());
    m->values = std::move(x.tensor());
  }
  return Status::ok();
}

void Executor::bind_calls(BufferTable& b) {
  const auto& nodes = g_.body.nodes;
  calls_.clear();
  calls_.reserve(nodes.size());
  uint8_t* ref_scratch =
      schedule_.ref_scratch_bytes > 0 && b.arena ? b.arena.get() + schedule_.ref_scratch_offset : nullptr;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ir::Node& n = nodes[i];
    NodeCall kc{n, {}, {}, options_.mode};
    kc.threads = options_.threads;
    if (ref_scratch && !plan_.node_dynamic[i]) {  // kNode steps run one at a time: they share it
      kc.scratch = ref_scratch;
      kc.scratch_bytes = schedule_.ref_scratch_bytes;
    }
    for (ir::ValueId v : n.inputs) kc.inputs.push_back(&b.values[v]);
    for (ir::ValueId v : n.outputs) kc.outputs.push_back(&b.values[v]);
    calls_.push_back(std::move(kc));
  }
  const bool device = schedule_.device == Device::kDevice;
  std::vector<RtValue>& side = device ? b.device_values : b.values;
  uint8_t* scratch_base = device ? b.device_arena.get() : b.arena.get();
  span_args_.clear();
  for (const ScheduledSpan& sp : schedule_.spans) {
    SpanArgs a;
    for (ir::ValueId v : sp.sig.inputs) a.inputs.push_back(&side[v]);
    for (ir::ValueId v : sp.sig.outputs) a.outputs.push_back(&side[v]);
    a.scratch = sp.scratch_bytes > 0 ? scratch_base + sp.scratch_offset : nullptr;
    span_args_.push_back(std::move(a));
  }
  calls_for_ = &b;
  calls_base_ = b.values.data();
}

Status Executor::run(BufferTable& b, Stream* stream) {
  if (b.plan != &plan_ || b.schedule != &schedule_)
    return internal_error("buffer table was made for another plan");
  if (calls_for_ != &b || calls_base_ != b.values.data()) bind_calls(b);
  const std::vector<Step>& steps = schedule_.steps;
  for (size_t i = 0; i < steps.size(); ++i) {
    PLUMB_RETURN_IF_ERROR(run_step(steps[i], b, stream));
    if (options_.on_node && steps[i].kind != StepKind::kCopy)
      options_.on_node(nodes_done_after(i), g_.body.nodes.size());
  }
  return Status::ok();
}

// Steps run in node order, so after step i every top-level node before the next node step's
// first node is done (copies between them run no node).
size_t Executor::nodes_done_after(size_t i) const {
  const std::vector<Step>& steps = schedule_.steps;
  for (size_t j = i + 1; j < steps.size(); ++j)
    if (steps[j].kind != StepKind::kCopy) return steps[j].node;
  return g_.body.nodes.size();
}

Status Executor::run_step(const Step& st, BufferTable& b, Stream* stream) {
  const ir::Node& n = g_.body.nodes[st.node];
  switch (st.kind) {
    case StepKind::kCopy: return run_copy(st, b, stream);
    case StepKind::kSpan: {
      const ScheduledSpan& sp = schedule_.spans[st.span];
      Status s = sp.program->run(span_args_[st.span], stream);
      if (!s.is_ok() && s.place().empty()) return with_place(std::move(s), n);
      PLUMB_RETURN_IF_ERROR(s);
      const std::vector<RtValue>& side = schedule_.device == Device::kDevice ? b.device_values : b.values;
      for (ir::ValueId v : sp.sig.outputs)
        if (!side[v].is_tensor() || ir::Type(type_of(side[v])) != plan_.values[v].type)
          return with_place(internal_error("span replaced its preallocated result %" + std::to_string(v)), n);
      return Status::ok();
    }
    case StepKind::kIf: PLUMB_RETURN_IF_ERROR(run_if(n, b)); break;
    case StepKind::kWhile: PLUMB_RETURN_IF_ERROR(run_while(n, b)); break;
    case StepKind::kNode:
      if (plan_.node_dynamic[st.node]) {
        PLUMB_RETURN_IF_ERROR(run_node_dynamic(n, b));
        break;
      }
      PLUMB_RETURN_IF_ERROR(with_place(ref::run_kernel(calls_[st.node]), n));
      for (ir::ValueId v : n.outputs) {
        const RtValue& out = b.values[v];
        // An empty result owns no bytes, so where its data pointer points does not matter.
        if (!out.is_tensor() ||
            (out.tensor().nbytes() != 0 && out.tensor().data != b.arena.get() + schedule_.host_offset[v]))
          return with_place(internal_error("kernel replaced its preallocated result"), n);
      }
      break;
  }
  for (ir::ValueId v : plan_.release_after[st.node]) b.values[v] = RtValue{};
  return Status::ok();
}

// One value to the other side of the span border; both buffers were planned with its shape.
Status Executor::run_copy(const Step& st, BufferTable& b, Stream* stream) {
  RtValue& host = b.values[st.value];
  RtValue& dev = b.device_values[st.value];
  if (!host.is_tensor() || !dev.is_tensor() || host.tensor().shape != dev.tensor().shape ||
      host.tensor().dtype != dev.tensor().dtype)
    return internal_error(
        strfmt("copy of %%%u: the host and device buffers differ", static_cast<unsigned>(st.value)));
  const int64_t bytes = host.tensor().nbytes();
  if (bytes == 0) return Status::ok();
  if (st.to == Device::kDevice)
    return allocator_.copy_from_host(host.tensor().data, dev.tensor().data, bytes, stream);
  return allocator_.copy_to_host(dev.tensor().data, host.tensor().data, bytes, stream);
}

Status Executor::run_region(const ir::Region& r, BufferTable& b) {
  for (const ir::Node& n : r.nodes) {
    if (n.op == ir::Op::If) {
      PLUMB_RETURN_IF_ERROR(run_if(n, b));
    } else if (n.op == ir::Op::While) {
      PLUMB_RETURN_IF_ERROR(run_while(n, b));
    } else if (n.op == ir::Op::Constant) {
      const uint32_t ci = ir::attrs<ir::Op::Constant>(n).value.index;
      if (ci >= g_.constants.size() || n.outputs.size() != 1)
        return with_place(invalid_model("", "constant index out of range"), n);
      auto t = constant_tensor(g_.constants[ci]);
      if (!t) return with_place(t.status(), n);
      b.values[n.outputs[0]] = std::move(*t);
    } else {
      PLUMB_RETURN_IF_ERROR(run_node_dynamic(n, b));
    }
  }
  return Status::ok();
}

// A node whose result shapes are only known now: infer them from the actual operands, allocate
// the static ones on the heap, leave the rest for the kernel.
Status Executor::run_node_dynamic(const ir::Node& n, BufferTable& b) {
  const size_t nin = n.inputs.size();
  std::vector<ir::Type> types(nin);
  std::vector<std::vector<int64_t>> vals(nin);
  std::vector<ir::Operand> operands(nin);
  NodeCall kc{n, {}, {}, options_.mode};
  kc.threads = options_.threads;
  for (size_t k = 0; k < nin; ++k) {
    const RtValue& v = b.values[n.inputs[k]];
    types[k] = type_of(v);
    operands[k].type = &types[k];
    if (v.is_tensor() && int_values(v.tensor(), vals[k])) operands[k].values = &vals[k];
    kc.inputs.push_back(&v);
  }
  ir::InferCtx cx{n, operands, g_, /*at_runtime=*/true};
  auto inferred = ir::infer_types(cx);
  if (!inferred) return with_place(inferred.status(), n);
  if (inferred->size() != n.outputs.size()) return with_place(internal_error("inference result count"), n);
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    const ir::Type& t = (*inferred)[k];
    RtValue& out = b.values[n.outputs[k]];
    if (is_static_tensor(t)) {
      auto bytes = tensor_bytes(t, options_.max_bytes);
      if (!bytes) return with_place(bytes.status(), n);
      std::vector<int64_t> dims;
      for (const ir::Dim& d : t.shape) dims.push_back(d.size);
      auto allocated = allocate_charged(options_.memory, t.dtype, std::move(dims), "its result");
      if (!allocated) return with_place(allocated.status(), n);
      out = std::move(*allocated);
    } else {
      out = Tensor{};
    }
    kc.outputs.push_back(&out);
  }
  PLUMB_RETURN_IF_ERROR(with_place(ref::run_kernel(kc), n));
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    // A result the kernel sized itself: charged now (the allocations of a node that can pass
    // the budget, for as long as this check takes).
    if (is_static_tensor((*inferred)[k])) continue;
    PLUMB_RETURN_IF_ERROR(
        with_place(charge_new_storage(options_.memory, b.values[n.outputs[k]], kc.inputs, "its result"), n));
  }
  for (ir::ValueId v : n.outputs) {
    PLUMB_RETURN_IF_ERROR(with_place(escape(b.values[v], b), n));
    const ir::Type actual = type_of(b.values[v]);
    if (!ir::type_refines(actual, g_.type_of(v)))
      return with_place(internal_error("result is " + ir::type_to_string(actual) + ", declared " +
                                       ir::type_to_string(g_.type_of(v))),
                        n);
  }
  return Status::ok();
}

Status Executor::run_if(const ir::Node& n, BufferTable& b) {
  if (n.inputs.size() != 1 || n.regions.size() != 2) return with_place(internal_error("malformed if"), n);
  bool cond = false;
  PLUMB_RETURN_IF_ERROR(with_place(bool_scalar(b.values[n.inputs[0]], "condition", cond), n));
  const ir::Region& r = n.regions[cond ? 0 : 1];
  if (r.results.size() != n.outputs.size()) return with_place(internal_error("if: result count"), n);
  PLUMB_RETURN_IF_ERROR(run_region(r, b));
  for (size_t k = 0; k < n.outputs.size(); ++k) {
    RtValue v = b.values[r.results[k]];
    PLUMB_RETURN_IF_ERROR(with_place(escape(v, b), n));
    const ir::Type actual = type_of(v);
    if (!ir::type_refines(actual, g_.type_of(n.outputs[k])))
      return with_place(
          internal_error(strfmt("if: result %zu is %s, declared %s", k, ir::type_to_string(actual).c_str(),
                                ir::type_to_string(g_.type_of(n.outputs[k])).c_str())),
          n);
    b.values[n.outputs[k]] = std::move(v);
  }
  return Status::ok();
}

Status Executor::run_while(const ir::Node& n, BufferTable& b) {
  if (n.regions.size() != 2) return with_place(internal_error("malformed while"), n);
  const ir::Region& cond_r = n.regions[0];
  const ir::Region& body_r = n.regions[1];
  const size_t carried_n = n.inputs.size();
  if (cond_r.params.size() != carried_n || body_r.params.size() != carried_n || cond_r.results.size() != 1 ||
      body_r.results.size() != carried_n || n.outputs.size() != carried_n)
    return with_place(internal_error("malformed while"), n);
  std::vector<RtValue> carried;
  carried.reserve(carried_n);
  for (ir::ValueId v : n.inputs) carried.push_back(b.values[v]);
  for (int64_t iter = 0;; ++iter) {
    for (size_t k = 0; k < carried_n; ++k) b.values[cond_r.params[k]] = carried[k];
    PLUMB_RETURN_IF_ERROR(run_region(cond_r, b));
    bool go = false;
    PLUMB_RETURN_IF_ERROR(with_place(bool_scalar(b.values[cond_r.results[0]], "cond result", go), n));
    if (!go) break;
    if (options_.max_while_iterations > 0 && iter >= options_.max_while_iterations)
      return with_place(runtime_error("", strfmt("while: stopped after the limit of %lld iterations",
                                                 (long long)options_.max_while_iterations)),
                        n);
    for (size_t k = 0; k < carried_n; ++k) b.values[body_r.params[k]] = carried[k];
    PLUMB_RETURN_IF_ERROR(run_region(body_r, b));
    for (size_t k = 0; k < carried_n; ++k) {
      carried[k] = b.values[body_r.results[k]];
      const ir::Type actual = type_of(carried[k]);
      if (!ir::type_refines(actual, g_.type_of(body_r.params[k])))
        return with_place(
            internal_error(strfmt("while: iteration %lld yields %s for carried value %zu, the body "
                                  "takes %s",
                                  (long long)iter, ir::type_to_string(actual).c_str(), k,
                                  ir::type_to_string(g_.type_of(body_r.params[k])).c_str())),
            n);
    }
  }
  for (size_t k = 0; k < carried_n; ++k) {
    PLUMB_RETURN_IF_ERROR(with_place(escape(carried[k], b), n));
    b.values[n.outputs[k]] = std::move(carried[k]);
  }
  return Status::ok();
}

// ---- precise mode ----------------------------------------------------------------------------

namespace {

ir::Type map_type(const ir::Type& t) {
  ir::Type m = t;
  if (ir::is_float(m.dtype)) m.dtype = ir::DType::F64;
  if (t.elem) m.elem = std::make_shared<const ir::Type>(map_type(*t.elem));
  return m;
}

bool has_float(const ir::Type& t) { return ir::is_float(t.dtype) || (t.elem && has_float(*t.elem)); }

ir::Node make_cast(ir::ValueId from, ir::ValueId to, ir::DType dt, const ir::Provenance& prov) {
  ir::Node c;
  c.op = ir::Op::Cast;
  c.inputs = {from};
  c.outputs = {to};
  c.attrs = ir::attr_list(ir::CastAttrs{dt, false, ir::RoundMode::NearestEven});
  c.prov = prov;
  c.prov.step = "precise";
  return c;
}

Status map_region(const ir::Graph& orig, ir::Graph& out, ir::Region& r) {
  std::vector<ir::Node> nodes;
  nodes.reserve(r.nodes.size());
  for (ir::Node& n : r.nodes) {
    for (ir::Region& inner : n.regions) PLUMB_RETURN_IF_ERROR(map_region(orig, out, inner));
    for (ir::Attr& a : n.attrs) {
      if (auto* dt = std::get_if<ir::DType>(&a.value)) {
        if (n.op != ir::Op::Bitcast && ir::is_float(*dt)) *dt = ir::DType::F64;
      } else if (auto* ta = std::get_if<ir::TypeAttr>(&a.value)) {
        ta->type = map_type(ta->type);
      }
    }
    if (n.op == ir::Op::Bitcast && n.inputs.size() == 1 && n.inputs[0] < orig.values.size() &&
        ir::is_float(orig.type_of(n.inputs[0]).dtype)) {
      // f64 -> the native float, then the bit reinterpretation the graph asks for
      ir::Type native = orig.type_of(n.inputs[0]);
      const ir::ValueId narrowed = out.add_value(native);
      nodes.push_back(make_cast(n.inputs[0], narrowed, native.dtype, n.prov));
      n.inputs[0] = narrowed;
    }
    const bool float_source = (n.op == ir::Op::Bitcast || n.op == ir::Op::Rng) && n.outputs.size() == 1 &&
                              n.outputs[0] < orig.values.size() &&
                              ir::is_float(orig.type_of(n.outputs[0]).dtype);
    if (float_source) {
      // produce the native float as the graph says, then widen it exactly
      const ir::ValueId wide = n.outputs[0];
      const ir::ValueId native = out.add_value(orig.type_of(wide));
      n.outputs[0] = native;
      ir::Node cast = make_cast(native, wide, ir::DType::F64, n.prov);
      nodes.push_back(std::move(n));
      nodes.push_back(std::move(cast));
      continue;
    }
    nodes.push_back(std::move(n));
  }
  r.nodes = std::move(nodes);
  return Status::ok();
}

}  // namespace

Expected<ir::Graph> make_precise_graph(const ir::Graph& g) {
  ir::Graph out = g;
  for (ir::Value& v : out.values) v.type = map_type(v.type);
  for (ir::ConstantData& c : out.constants) {
    if (!has_float(c.type)) continue;
    // Already f64 (check's perturbed weights, check/bound.cpp): kept as it is, not copied.
    if (c.type.is_tensor() && c.type.dtype == ir::DType::F64) continue;
    PLUMB_ASSIGN_OR_RETURN(Tensor t, constant_tensor(c));
    std::vector<uint8_t> bytes(static_cast<size_t>(t.numel()) * sizeof(double));
    PLUMB_RETURN_IF_ERROR(widen_into(t, reinterpret_cast<double*>(bytes.data())));
    c = ir::ConstantData::owned(map_type(c.type), std::move(bytes));
  }
  PLUMB_RETURN_IF_ERROR(map_region(g, out, out.body));
  return out;
}

}  // namespace plumb::rt
