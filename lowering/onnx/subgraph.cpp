#include "lowering/onnx/subgraph.h"

#include "lowering/onnx/driver.h"

namespace plumb::lower {

const onnx::OnnxGraph* graph_attr(const onnx::OnnxNode& n, const char* name) {
  const onnx::OnnxAttribute* a = n.attr(name);
  return a && a->type == onnx::AttrType::Graph && a->g ? a->g.get() : nullptr;
}

Expected<std::vector<ir::ValueId>> lower_subgraph(LowerCtx& cx, const onnx::OnnxGraph& g,
                                                  const std::vector<ir::ValueId>& params) {
  const ir::Provenance prov = cx.b.provenance();
  const int64_t opset = cx.opset();
  cx.push_scope();
  for (size_t i = 0; i < params.size() && i < g.inputs.size(); ++i) cx.bind(g.inputs[i].name, params[i]);
  cx.add_initializers(g);
  Status s = lower_nodes(cx, g.nodes, cx.model().opsets);
  std::vector<ir::ValueId> outs;
  if (s.is_ok()) {
    cx.reset_status();
    for (const onnx::OnnxValueInfo& o : g.outputs) {
      onnx::OnnxNode fake;
      fake.inputs = {o.name};
      Expected<ir::ValueId> v = cx.input(fake, 0);
      if (!v.has_value()) {
        s = v.status();
        break;
      }
      outs.push_back(*v);
    }
    if (s.is_ok()) s = cx.status();
    if (s.is_ok()) s = cx.b.status();
  }
  cx.pop_scope();
  cx.b.set_provenance(prov);
  cx.set_opset(opset);
  if (!s.is_ok()) return s;
  return outs;
}

}  // namespace plumb::lower
