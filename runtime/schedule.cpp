#include "runtime/schedule.h"

#include <algorithm>

#include "runtime/cpu/ref/scratch.h"

namespace plumb::rt {
namespace {

bool known(Storage s) { return s == Storage::kConstant || s == Storage::kFolded; }
bool has_buffer(Storage s) { return s == Storage::kArena || s == Storage::kInputArena; }

// Calls f(v) for every top-level value node `n` reads, the outer values its regions read included.
template <typename F>
void for_each_read(const ir::Node& n, const Plan& plan, F&& f) {
  for (ir::ValueId v : n.inputs)
    if (v < plan.values.size() && plan.values[v].storage != Storage::kNone) f(v);
  for (const ir::Region& r : n.regions) {
    for (const ir::Node& m : r.nodes) for_each_read(m, plan, f);
    for (ir::ValueId v : r.results)
      if (v < plan.values.size() && plan.values[v].storage != Storage::kNone) f(v);
  }
}

SpanSignature signature(const ir::Graph& g, const Plan& plan, NodeSpan span) {
  SpanSignature sig;
  sig.span = span;
  std::vector<uint8_t> defined(g.values.size(), 0), listed(g.values.size(), 0);
  for (uint32_t i = span.begin; i < span.end; ++i) {
    if (plan.node_skip[i]) continue;
    const ir::Node& n = g.body.nodes[i];
    for_each_read(n, plan, [&](ir::ValueId v) {
      if (defined[v] || listed[v]) return;
      listed[v] = 1;
      sig.inputs.push_back(v);
    });
    for (ir::ValueId v : n.outputs) defined[v] = 1;
  }
  for (uint32_t i = span.begin; i < span.end; ++i) {
    if (plan.node_skip[i]) continue;
    for (ir::ValueId v : g.body.nodes[i].outputs)
      if (plan.values[v].last_use >= static_cast<int64_t>(span.end)) sig.outputs.push_back(v);
  }
  return sig;
}

// Why the executor itself declines `sig` for this plan, or "".
std::string executor_decline(const ir::Graph& g, const Plan& plan, const SpanSignature& sig) {
  for (uint32_t i = sig.span.begin; i < sig.span.end; ++i) {
    if (plan.node_skip[i]) continue;
    if (plan.node_dynamic[i])
      return "node #" + std::to_string(i) + " has results whose shape is known only at run time";
  }
  for (ir::ValueId v : sig.inputs)
    if (!has_buffer(plan.values[v].storage) && !known(plan.values[v].storage) &&
        plan.values[v].storage != Storage::kInput)
      return "%" + std::to_string(v) + " has a shape known only at run time";
  return "";
}

// Lifetime of one value's buffer on one side, in top-level node positions (n = after the last node,
// -1 = before the first: a graph input, written by bind_inputs before anything runs), so being used
// is a flag of its own, not a sentinel start.
struct Life {
  int64_t start = 0, end = 0;
  bool any = false;
  void add(int64_t lo, int64_t hi) {
    start = any ? std::min(start, lo) : lo;
    end = any ? std::max(end, hi) : hi;
    any = true;
  }
  bool used() const { return any; }
};

// The largest scratch a kNode step's kernel takes (static nodes only: a node with run-time shapes
// takes its temporaries from the heap, as its results).
Expected<int64_t> ref_scratch_bytes(const ir::Graph& g, const Plan& plan, const std::vector<Step>& steps,
                                    int threads) {
  int64_t most = 0;
  for (const Step& st : steps) {
    if (st.kind != StepKind::kNode || plan.node_dynamic[st.node]) continue;
    const ir::Node& n = g.body.nodes[st.node];
    ref::ScratchQuery q{n, {}, {}, std::max(1, threads)};
    for (ir::ValueId v : n.inputs) q.inputs.push_back(&plan.values[v].type);
    for (ir::ValueId v : n.outputs) q.outputs.push_back(&plan.values[v].type);
    most = std::max(most, ref::scratch_bytes(q));
  }
  return most;
}

}  // namespace

Expected<Schedule> make_schedule(const ir::Graph& g, const Plan& plan, const Partition& part,
                                 int64_t max_bytes, int threads) {
  const auto& nodes = g.body.nodes;
  const int64_t n = static_cast<int64_t>(nodes.size());
  Schedule s;
  s.device = part.backend->allocator().device();
  s.node_why = part.node_why;
  s.host_offset.assign(g.values.size(), -1);
  s.device_offset.assign(g.values.size(), -1);
  s.device_known.assign(g.values.size(), 0);

  // Compile the accepted spans for this plan.
  std::vector<int32_t> span_at(nodes.size(), -1);  // first node of a scheduled span -> its index
  std::vector<uint8_t> in_span(nodes.size(), 0);
  const std::string name(part.backend->name());
  for (size_t k = 0; k < part.spans.size(); ++k) {
    const NodeSpan span = part.spans[k];
    SpanSignature sig = signature(g, plan, span);
    bool runs = false;
    for (uint32_t i = span.begin; i < span.end; ++i) runs = runs || !plan.node_skip[i];
    if (!runs) continue;  // all folded or bound: nothing to run
    std::string why = executor_decline(g, plan, sig);
    std::unique_ptr<CompiledSpan> program;
    if (why.empty()) {
      PLUMB_ASSIGN_OR_RETURN(CompiledOrDeclined c, part.prepared->compile(k, sig, plan));
      if (c.program)
        program = std::move(c.program);
      else
        why = c.support.why_not.empty() ? "declined" : c.support.why_not;
    }
    if (!program) {
      for (uint32_t i = span.begin; i < span.end; ++i)
        s.node_why[i] = name + " declined for these shapes: " + why;
      continue;
    }
    span_at[span.begin] = static_cast<int32_t>(s.spans.size());
    for (uint32_t i = span.begin; i < span.end; ++i) in_span[i] = 1;
    ScheduledSpan ss;
    ss.sig = std::move(sig);
    ss.scratch_bytes = program->scratch_bytes();
    ss.program = std::move(program);
    s.spans.push_back(std::move(ss));
  }

  // Steps, with the copies; lifetimes per side.
  const bool device = s.device == Device::kDevice && !s.spans.empty();
  std::vector<uint8_t> on_host(g.values.size(), 0), on_device(g.values.size(), 0);
  std::vector<Life> host_life(g.values.size()), device_life(g.values.size());
  for (ir::ValueId v : g.body.params) on_host[v] = 1;
  for (size_t v = 0; v < g.values.size(); ++v)
    if (known(plan.values[v].storage)) on_host[v] = 1;
  auto read_on_host = [&](ir::ValueId v, int64_t lo, int64_t hi) {
    if (device && !on_host[v]) {
      s.steps.push_back(Step{StepKind::kCopy, 0, 0, v, Device::kHost});
      on_host[v] = 1;
      device_life[v].add(lo, lo);
    }
    host_life[v].add(lo, hi);
  };
  auto read_on_device = [&](ir::ValueId v, int64_t lo, int64_t hi) {
    if (known(plan.values[v].storage)) {
      if (device)
        s.device_known[v] = 1;
      else
        host_life[v].add(lo, hi);
      return;
    }
    if (!device) {
      host_life[v].add(lo, hi);
      return;
    }
    if (!on_device[v]) {
      s.steps.push_back(Step{StepKind::kCopy, 0, 0, v, Device::kDevice});
      on_device[v] = 1;
      host_life[v].add(lo, lo);
    }
    device_life[v].add(lo, hi);
  };
  for (ir::ValueId v : g.body.params) host_life[v].add(-1, -1);
  for (int64_t i = 0; i < n; ++i) {
    if (span_at[i] >= 0) {
      ScheduledSpan& sp = s.spans[span_at[i]];
      const int64_t lo = sp.sig.span.begin, hi = static_cast<int64_t>(sp.sig.span.end) - 1;
      for (ir::ValueId v : sp.sig.inputs) read_on_device(v, lo, hi);
      s.steps.push_back(Step{StepKind::kSpan, static_cast<uint32_t>(i), static_cast<uint32_t>(span_at[i]), 0,
                             Device::kHost});
      for (ir::ValueId v : sp.sig.outputs) {
        if (device) {
          on_device[v] = 1;
          on_host[v] = 0;
          device_life[v].add(lo, hi);
        } else {
          on_host[v] = 1;
          host_life[v].add(lo, hi);
        }
      }
      i = hi;
      continue;
    }
    if (plan.node_skip[i] || in_span[i]) continue;
    const ir::Node& node = nodes[i];
    for_each_read(node, plan, [&](ir::ValueId v) { read_on_host(v, i, i); });
    const StepKind kind = node.op == ir::Op::If      ? StepKind::kIf
                          : node.op == ir::Op::While ? StepKind::kWhile
                                                     : StepKind::kNode;
    s.steps.push_back(Step{kind, static_cast<uint32_t>(i), 0, 0, Device::kHost});
    for (ir::ValueId v : node.outputs) {
      on_host[v] = 1;
      host_life[v].add(i, i);
    }
  }
  for (ir::ValueId v : g.body.results) read_on_host(v, n, n);
  for (const Step& st : s.steps) s.copies += st.kind == StepKind::kCopy;

  PLUMB_ASSIGN_OR_RETURN(const int64_t ref_scratch, ref_scratch_bytes(g, plan, s.steps, threads));
  // The ref scratch goes after every buffer, 64-byte aligned.
  auto add_ref_scratch = [&]() -> Status {
    if (ref_scratch == 0) return Status::ok();
    s.ref_scratch_offset = (s.host_arena_bytes + 63) / 64 * 64;
    s.ref_scratch_bytes = ref_scratch;
    s.host_arena_bytes = s.ref_scratch_offset + ref_scratch;
    if (s.host_arena_bytes > max_bytes)
      return invalid_input(strfmt("the arena (%lld bytes with the kernels' scratch) is larger than the limit",
                                  (long long)s.host_arena_bytes));
    return Status::ok();
  };
  if (s.spans.empty()) {  // nothing claimed runs: the planner's layout
    for (size_t v = 0; v < g.values.size(); ++v)
      if (has_buffer(plan.values[v].storage)) s.host_offset[v] = plan.values[v].offset;
    s.host_arena_bytes = plan.arena_bytes;
    PLUMB_RETURN_IF_ERROR(add_ref_scratch());
    return s;
  }

  // Arenas: every planned buffer with a lifetime on a side, plus each span's scratch on the
  // backend's side.
  std::vector<ArenaBuffer> host_bufs, device_bufs;
  std::vector<int64_t> host_value, device_value;  // buffer index -> value (-1 - k: span k's scratch)
  for (size_t v = 0; v < g.values.size(); ++v) {
    const ValuePlan& vp = plan.values[v];
    if (vp.storage == Storage::kArena || vp.storage == Storage::kInputArena) {
      if (host_life[v].used()) {
        host_bufs.push_back(
            ArenaBuffer{static_cast<int64_t>(v), vp.bytes, host_life[v].start, host_life[v].end});
        host_value.push_back(static_cast<int64_t>(v));
      }
    }
    if (device_life[v].used() && (has_buffer(vp.storage) || vp.storage == Storage::kInput)) {
      PLUMB_ASSIGN_OR_RETURN(const int64_t bytes, tensor_bytes(vp.type, max_bytes));
      device_bufs.push_back(
          ArenaBuffer{static_cast<int64_t>(v), bytes, device_life[v].start, device_life[v].end});
      device_value.push_back(static_cast<int64_t>(v));
    }
  }
  auto& scratch_bufs = device ? device_bufs : host_bufs;
  auto& scratch_value = device ? device_value : host_value;
  for (size_t k = 0; k < s.spans.size(); ++k) {
    const ScheduledSpan& sp = s.spans[k];
    if (sp.scratch_bytes <= 0) continue;
    scratch_bufs.push_back(ArenaBuffer{static_cast<int64_t>(g.values.size() + k), sp.scratch_bytes,
                                       sp.sig.span.begin, static_cast<int64_t>(sp.sig.span.end) - 1});
    scratch_value.push_back(-1 - static_cast<int64_t>(k));
  }
  PLUMB_ASSIGN_OR_RETURN(s.host_arena_bytes, layout_arena(host_bufs, max_bytes));
  PLUMB_ASSIGN_OR_RETURN(s.device_arena_bytes, layout_arena(device_bufs, max_bytes));
  auto place = [&](const std::vector<ArenaBuffer>& bufs, const std::vector<int64_t>& owner,
                   std::vector<int64_t>& offsets) {
    for (size_t b = 0; b < bufs.size(); ++b) {
      if (owner[b] >= 0)
        offsets[owner[b]] = bufs[b].offset;
      else
        s.spans[-1 - owner[b]].scratch_offset = bufs[b].offset;
    }
  };
  place(host_bufs, host_value, s.host_offset);
  place(device_bufs, device_value, s.device_offset);
  PLUMB_RETURN_IF_ERROR(add_ref_scratch());
  return s;
}

std::string describe_schedule(const ir::Graph& g, const Plan& plan, const Partition& part,
                              const Schedule& s) {
  const std::vector<int64_t> preorder = body_preorder(g);
  const std::string name(part.backend->name());
  std::string out =
      strfmt("dispatch: backend %s, %zu steps (%zu spans, %lld copies), host arena %lld B", name.c_str(),
             s.steps.size(), s.spans.size(), (long long)s.copies, (long long)s.host_arena_bytes);
  if (s.device == Device::kDevice) out += strfmt(", device arena %lld B", (long long)s.device_arena_bytes);
  out += "\n";
  for (size_t k = 0; k < s.steps.size(); ++k) {
    const Step& st = s.steps[k];
    out += strfmt("  [%zu] ", k);
    switch (st.kind) {
      case StepKind::kCopy: {
        const ValuePlan& vp = plan.values[st.value];
        out += strfmt("copy %%%u %s %s", static_cast<unsigned>(st.value), ir::type_to_string(vp.type).c_str(),
                      st.to == Device::kDevice ? "host -> device" : "device -> host");
        break;
      }
      case StepKind::kSpan: {
        const ScheduledSpan& sp = s.spans[st.span];
        int running = 0;
        for (uint32_t i = sp.sig.span.begin; i < sp.sig.span.end; ++i) running += !plan.node_skip[i];
        out += strfmt("%s span nodes #%lld..#%lld (%d to run, %zu in, %zu out), scratch %lld B", name.c_str(),
                      (long long)preorder[sp.sig.span.begin], (long long)preorder[sp.sig.span.end - 1],
                      running, sp.sig.inputs.size(), sp.sig.outputs.size(), (long long)sp.scratch_bytes);
        break;
      }
      default: {
        out += "ref " + ir::node_place(g.body.nodes[st.node], preorder[st.node]);
        if (!s.node_why[st.node].empty()) out += ": " + s.node_why[st.node];
        break;
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace plumb::rt
