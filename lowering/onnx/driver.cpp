#include "lowering/onnx/driver.h"

#include <new>
#include <stdexcept>

#include "ir/builder.h"
#include "ir/verify.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower {

std::string node_place(const onnx::OnnxNode& n, int64_t opset) {
  std::string op = n.domain.empty() ? n.op_type : n.domain + "." + n.op_type;
  if (opset > 0) op += "-" + std::to_string(opset);
  return "node '" + n.name + "' (" + op + ")";
}

namespace {

int64_t opset_of(const std::map<std::string, int64_t>& opsets, const std::string& domain) {
  auto it = opsets.find(domain);
  return it == opsets.end() ? 0 : it->second;
}

// A model-local function call: lower the body in a new scope where the function's formal inputs
// name the caller's values and attribute references resolve to the caller's attributes.
Status expand_body(LowerCtx& cx, const onnx::OnnxNode& call, const onnx::OnnxFunction& fn);

// Calls nest at most this deep (the depth was once passed per node list and so never grew past 1:
// a function calling itself recursed until the stack overflowed; issue 23's hostile models).
constexpr size_t kMaxCallDepth = 32;

std::string function_name(const onnx::OnnxFunction& fn) {
  return (fn.domain.empty() ? std::string() : fn.domain + ".") + fn.name;
}

Status expand_function(LowerCtx& cx, const onnx::OnnxNode& call, const onnx::OnnxFunction& fn) {
  for (const onnx::OnnxFunction* outer : cx.calls)
    if (outer == &fn) {
      std::string chain;
      for (const onnx::OnnxFunction* f : cx.calls) chain += (chain.empty() ? "" : " -> ") + function_name(*f);
      return invalid_model(
          "", "function " + function_name(fn) + " calls itself (" + chain + " -> " + function_name(fn) + ")");
    }
  if (cx.calls.size() >= kMaxCallDepth)
    return unsupported(strfmt("model-local function calls nested deeper than %zu", kMaxCallDepth));
  cx.calls.push_back(&fn);
  Status s = expand_body(cx, call, fn);
  cx.calls.pop_back();
  return s;
}

Status expand_body(LowerCtx& cx, const onnx::OnnxNode& call, const onnx::OnnxFunction& fn) {
  std::vector<ir::ValueId> args;
  for (size_t i = 0; i < fn.inputs.size(); ++i) {
    PLUMB_ASSIGN_OR_RETURN(const ir::ValueId v, cx.optional_input(call, i));
    args.push_back(v);
  }
  PLUMB_RETURN_IF_ERROR(cx.status());
  cx.push_scope();
  for (size_t i = 0; i < fn.inputs.size(); ++i)
    if (args[i] != ir::kNoValue) cx.bind(fn.inputs[i], args[i]);
  // Substitute attribute references in a copy of the body.
  std::vector<onnx::OnnxNode> body = fn.nodes;
  for (onnx::OnnxNode& n : body) {
    std::vector<onnx::OnnxAttribute> resolved;
    for (const onnx::OnnxAttribute& a : n.attributes) {
      if (a.ref_attr_name.empty()) {
        resolved.push_back(a);
        continue;
      }
      const onnx::OnnxAttribute* actual = call.attr(a.ref_attr_name);
      if (!actual)
        for (const auto& d : fn.attribute_defaults)
          if (d.name == a.ref_attr_name) actual = &d;
      if (actual) {  // an unset reference with no default leaves the attribute unset
        onnx::OnnxAttribute copy = *actual;
        copy.name = a.name;
        resolved.push_back(std::move(copy));
      }
    }
    n.attributes = std::move(resolved);
  }
  Status s = lower_nodes(cx, body, fn.opsets);
  if (s.is_ok()) {
    std::vector<ir::ValueId> results;
    for (const std::string& out : fn.outputs) {
      auto v = cx.lookup(out);
      results.push_back(v ? *v : ir::kNoValue);
    }
    cx.pop_scope();
    for (size_t i = 0; i < results.size(); ++i) {
      if (results[i] == ir::kNoValue && cx.wants_output(call, i))
        return invalid_model("", "function " + fn.name + " does not produce output '" + fn.outputs[i] + "'");
      cx.set_output(call, i, results[i]);
    }
    return Status::ok();
  }
  cx.pop_scope();
  return s;
}

Status lower_one(LowerCtx& cx, const onnx::OnnxNode& n, const std::map<std::string, int64_t>& opsets) {
  const int64_t opset = opset_of(opsets, n.domain);
  const std::string place = node_place(n, opset);
  if (const onnx::OnnxFunction* fn = cx.model().function(n.domain, n.op_type, n.overload)) {
    Status s = expand_function(cx, n, *fn);
    return s.with_place(place);
  }
  if (opset == 0)
    return unsupported("domain '" + (n.domain.empty() ? std::string("ai.onnx") : n.domain) +
                       "' is not imported by the model")
        .with_place(place);
  const Rule* rule = default_registry().find(n.domain, n.op_type, opset);
  if (!rule)
    return unsupported("no lowering for " + n.op_type + " at opset " + std::to_string(opset))
        .with_place(place);
  cx.b.set_provenance(
      ir::Provenance{n.name, n.domain.empty() ? n.op_type : n.domain + "." + n.op_type, opset, {}});
  cx.set_opset(opset);
  cx.reset_status();
  Status s = Status::ok();
  try {
    s = rule->fn(cx, n);
  } catch (const std::bad_alloc&) {  // an attribute sized a table past memory (n_targets = 2^40)
    s = invalid_model("",
                      "lowering it needs more memory than there is (an attribute or constant asks "
                      "for a table of that size)");
  } catch (const std::length_error&) {
    s = invalid_model("", "lowering it needs a table larger than a vector can hold");
  }
  // One error is reported: the first one recorded (the context's or the builder's, error() says
  // which came first), else the one the rule returned.
  if (Status first = cx.error(); !first.is_ok()) s = std::move(first);
  if (!s.is_ok()) return s.with_place(place);
  for (size_t i = 0; i < n.outputs.size(); ++i)
    if (cx.wants_output(n, i) && !cx.lookup(n.outputs[i]))
      return internal_error("the rule did not produce output " + std::to_string(i)).with_place(place);
  return Status::ok();
}

// The declared type of a graph input specialized on the shape of its offered value (issue 13: with
// inputs at hand, shapes first): the same type when the value does not fit it (dtype, rank, static
// dims), which the run then rejects with its usual message.
ir::Type specialized_type(const ir::Type& declared, const onnx::Tensor* offered) {
  if (!offered || declared.kind != ir::TypeKind::Tensor || !declared.ranked ||
      declared.dtype != offered->dtype || declared.shape.size() != offered->dims.size())
    return declared;
  for (size_t d = 0; d < declared.shape.size(); ++d)
    if (declared.shape[d].is_static() && declared.shape[d].size != offered->dims[d]) return declared;
  return ir::Type::tensor(declared.dtype, ir::static_shape(offered->dims));
}

}  // namespace

Status lower_nodes(LowerCtx& cx, const std::vector<onnx::OnnxNode>& nodes,
                   const std::map<std::string, int64_t>& opsets) {
  for (const onnx::OnnxNode& n : nodes) PLUMB_RETURN_IF_ERROR(lower_one(cx, n, opsets));
  return Status::ok();
}

Expected<ir::Graph> lower_model(const onnx::OnnxModel& model, const ir::Evaluator& eval,
                                const LowerOptions& options) {
  PLUMB_ASSIGN_OR_RETURN(Lowered l, lower_model_specialized(model, eval, options));
  return std::move(l.graph);
}

Expected<Lowered> lower_model_specialized(const onnx::OnnxModel& model, const ir::Evaluator& eval,
                                          const LowerOptions& options) {
  PLUMB_RETURN_IF_ERROR(default_registry().status());
  ir::Graph g;
  g.producer = "plumb from " + (model.path.empty() ? std::string("memory") : model.path);
  ir::Builder b(g);
  b.set_node_limit(options.max_nodes);
  LowerCtx cx(b, model, eval);
  for (const onnx::OnnxValueInfo* in : model.graph.real_inputs()) {
    if (!in->type)
      return invalid_model("", "graph input '" + in->name + "' has no type").with_place("graph inputs");
    auto offered = options.input_values.find(in->name);
    const ir::Type t =
        specialized_type(*in->type, offered == options.input_values.end() ? nullptr : &offered->second);
    cx.bind(in->name, b.input(t, in->name));
  }
  PLUMB_RETURN_IF_ERROR(b.status());
  for (const auto& [name, t] : options.input_values) cx.offer_input_value(name, t);
  cx.add_initializers(model.graph);
  PLUMB_RETURN_IF_ERROR(lower_nodes(cx, model.graph.nodes, model.opsets));
  for (const onnx::OnnxValueInfo& out : model.graph.outputs) {
    onnx::OnnxNode fake;
    fake.inputs = {out.name};
    // An output no value answers to (an empty name, or one nothing defines) is the model's error
    // at its graph outputs, not a node's missing input; other failures (a bad constant) pass through.
    Expected<ir::ValueId> v = cx.input(fake, 0);
    if ((!v && v.status().code() == ErrorCode::kInvalidModel) || (v && *v == ir::kNoValue))
      return invalid_model("", "graph output '" + out.name + "' is not produced by the graph")
          .with_place("graph outputs");
    if (!v) return v.status();
    b.output(*v, out.name);
  }
  PLUMB_RETURN_IF_ERROR(b.status());
  if (options.verify) PLUMB_RETURN_IF_ERROR(ir::verify(g));
  Lowered out;
  out.specialized_inputs.assign(cx.specialized_inputs().begin(), cx.specialized_inputs().end());
  out.graph = std::move(g);
  return out;
}

}  // namespace plumb::lower
