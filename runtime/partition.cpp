#include "runtime/partition.h"

#include "ir/attrs.h"

#include "runtime/plan.h"

namespace plumb::rt {
namespace {

bool host_value(const ir::Type& t) { return !t.is_tensor() || t.dtype == ir::DType::String; }

// Why the executor refuses claim `c`, the claims before it having ended at node `end`, or "".
std::string refusal(const ir::Graph& g, const std::vector<int64_t>& preorder, const Claim& c, uint32_t end) {
  const auto& nodes = g.body.nodes;
  if (c.span.begin >= c.span.end || c.span.end > nodes.size())
    return strfmt("span [%u, %u) is not a node range of the body (%zu nodes)",
                  static_cast<unsigned>(c.span.begin), static_cast<unsigned>(c.span.end), nodes.size());
  if (c.span.begin < end)
    return strfmt("span [%u, %u) overlaps or precedes an earlier claim", static_cast<unsigned>(c.span.begin),
                  static_cast<unsigned>(c.span.end));
  for (uint32_t i = c.span.begin; i < c.span.end; ++i) {
    const Support h = host_only(g, nodes[i]);
    if (!h.yes) return ir::node_place(nodes[i], preorder[i]) + ": " + h.why_not;
  }
  return "";
}

}  // namespace

std::vector<int64_t> body_preorder(const ir::Graph& g) {
  std::vector<int64_t> out;
  int64_t k = 0;
  auto count = [](const ir::Node& n, auto& self) -> int64_t {
    int64_t c = 1;
    for (const ir::Region& r : n.regions)
      for (const ir::Node& m : r.nodes) c += self(m, self);
    return c;
  };
  for (const ir::Node& n : g.body.nodes) {
    out.push_back(k);
    k += count(n, count);
  }
  return out;
}

Support host_only(const ir::Graph& g, const ir::Node& n) {
  switch (n.op) {
    case ir::Op::String:
    case ir::Op::Map:
    case ir::Op::Sequence:
    case ir::Op::Optional:
    case ir::Op::ImageDecode: return Support::no(std::string(ir::op_name(n.op)) + " is host-only");
    default: break;
  }
  for (ir::ValueId v : n.inputs)
    if (host_value(g.type_of(v)))
      return Support::no("operand " + ir::type_to_string(g.type_of(v)) + " is host-only");
  for (ir::ValueId v : n.outputs)
    if (host_value(g.type_of(v)))
      return Support::no("result " + ir::type_to_string(g.type_of(v)) + " is host-only");
  return Support::ok();
}

Expected<Partition> partition_graph(const ir::Graph& g, Backend& backend, NumericMode mode, int threads) {
  const auto& nodes = g.body.nodes;
  Partition p;
  p.backend = &backend;
  p.node_span.assign(nodes.size(), -1);
  p.node_why.assign(nodes.size(), "");
  const std::string name(backend.name());
  const std::vector<int64_t> preorder = body_preorder(g);
  p.claims = backend.partition(g, mode);
  uint32_t end = 0;
  for (Claim& c : p.claims) {
    if (!c.support.yes) {
      for (uint32_t i = c.span.begin; i < c.span.end && i < nodes.size(); ++i)
        if (p.node_why[i].empty()) p.node_why[i] = name + " declined: " + c.support.why_not;
      continue;
    }
    const std::string why = refusal(g, preorder, c, end);
    if (!why.empty()) {
      c.support = Support::no("executor refused the claim: " + why);
      for (uint32_t i = c.span.begin; i < c.span.end && i < nodes.size(); ++i)
        p.node_why[i] = name + ": " + c.support.why_not;
      continue;
    }
    for (uint32_t i = c.span.begin; i < c.span.end; ++i)
      p.node_span[i] = static_cast<int32_t>(p.spans.size());
    p.spans.push_back(c.span);
    end = c.span.end;
  }
  if (name != "ref")
    for (size_t i = 0; i < nodes.size(); ++i)
      if (p.node_span[i] < 0 && p.node_why[i].empty()) p.node_why[i] = "not claimed by " + name;

  // Constants: decoded once, for every plan.
  p.constants.resize(g.constants.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    const ir::Node& n = nodes[i];
    if (n.op != ir::Op::Constant) continue;
    const uint32_t ci = ir::attrs<ir::Op::Constant>(n).value.index;
    if (ci >= g.constants.size() || p.constants[ci]) continue;  // the planner reports a bad index
    auto t = constant_tensor(g.constants[ci]);
    if (!t) return t.status().with_place(ir::node_place(n, preorder[i]));
    p.constants[ci] = std::move(*t);
  }
  if (p.spans.empty()) return p;

  // Device backends: the constants the claimed spans read, uploaded once.
  Allocator& alloc = backend.allocator();
  std::vector<int64_t> constant_of(g.values.size(), -1);
  for (const ir::Node& n : nodes)
    if (n.op == ir::Op::Constant && n.outputs.size() == 1 &&
        ir::attrs<ir::Op::Constant>(n).value.index < g.constants.size())
      constant_of[n.outputs[0]] = ir::attrs<ir::Op::Constant>(n).value.index;
  if (alloc.device() == Device::kDevice) {
    p.device_constants.resize(g.constants.size());
    for (const NodeSpan& s : p.spans)
      for (uint32_t i = s.begin; i < s.end; ++i)
        for (ir::ValueId v : nodes[i].inputs) {
          const int64_t ci = constant_of[v];
          if (ci < 0 || p.device_constants[ci].device == Device::kDevice || !p.constants[ci]) continue;
          PLUMB_ASSIGN_OR_RETURN(p.device_constants[ci], upload(*p.constants[ci], alloc, nullptr));
        }
  }
  std::vector<RtValue> by_value(g.values.size());
  for (size_t v = 0; v < g.values.size(); ++v)
    if (constant_of[v] >= 0 && p.constants[constant_of[v]]) by_value[v] = *p.constants[constant_of[v]];
  PrepareOptions po;
  po.mode = mode;
  po.threads = threads;
  po.constants = &by_value;
  PLUMB_ASSIGN_OR_RETURN(p.prepared, backend.prepare(g, p.spans, po));
  return p;
}

}  // namespace plumb::rt
