#include "lowering/onnx/context.h"

#include <algorithm>

#include "ir/constant_values.h"
#include "ir/narrow_float.h"

namespace plumb::lower {

namespace {

// A folded value as the frontend tensor const_input hands out (sharing its bytes).
std::optional<onnx::Tensor> as_tensor(std::optional<ir::ConstantData> c) {
  if (!c) return std::nullopt;
  onnx::Tensor t;
  t.dtype = c->type.dtype;
  for (const ir::Dim& d : c->type.shape) t.dims.push_back(d.size);
  t.owner = std::move(c->owner);
  t.data = c->data;
  t.size = c->size;
  return t;
}

}  // namespace

Status LowerCtx::fail(Status s) {
  if (status_.is_ok()) status_ = b.ok() ? std::move(s) : b.status();
  return status_;
}

void LowerCtx::bind(const std::string& name, ir::ValueId v) { scopes_.back().values[name] = v; }

std::optional<ir::ValueId> LowerCtx::lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto f = it->values.find(name);
    if (f != it->values.end()) return f->second;
  }
  return std::nullopt;
}

void LowerCtx::define_constant(const std::string& name, onnx::Tensor t) {
  scopes_.back().constants[name] = std::move(t);
}

void LowerCtx::add_initializers(const onnx::OnnxGraph& g) {
  for (const onnx::Tensor& t : g.initializers) define_constant(t.name, t);
}

ir::ValueId LowerCtx::constant_value(const onnx::Tensor& t) { return b.constant(t.to_constant()); }

Expected<ir::ValueId> LowerCtx::input(const onnx::OnnxNode& n, size_t i) {
  PLUMB_RETURN_IF_ERROR(error());
  if (!has_input(n, i)) return fail(invalid_model("", strfmt("required input %zu is missing", i)));
  const std::string& name = n.inputs[i];
  // The innermost scope that knows the name wins: a value, or a constant emitted on first use.
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    if (auto f = it->values.find(name); f != it->values.end()) {
      const ir::ValueId v = fold_small_int(f->second);
      PLUMB_RETURN_IF_ERROR(error());  // folding it emitted a constant, and that failed
      return v;
    }
    if (auto c = it->constants.find(name); c != it->constants.end()) {
      // Emit the constant into the graph body's region level where it is used; constants are cheap
      // to re-emit in a nested region, so each scope keeps its own.
      ir::ValueId v = constant_value(c->second);
      if (v == ir::kNoValue) {
        PLUMB_RETURN_IF_ERROR(error());
        return fail(internal_error("constant input '" + name + "' has no core value"));
      }
      b.graph().values[v].onnx_name = name;
      scopes_.back().values[name] = v;
      return v;
    }
  }
  return fail(invalid_model(
      "", "input '" + name + "' is not produced by any earlier node, initializer or graph input"));
}

Expected<std::vector<ir::ValueId>> LowerCtx::inputs(const onnx::OnnxNode& n, size_t first, size_t end) {
  if (end == SIZE_MAX) end = n.inputs.size();
  std::vector<ir::ValueId> vs;
  for (size_t i = first; i < end; ++i) {
    PLUMB_ASSIGN_OR_RETURN(const ir::ValueId v, input(n, i));
    vs.push_back(v);
  }
  return vs;
}

void LowerCtx::set_output(const onnx::OnnxNode& n, size_t i, ir::ValueId v) {
  if (!wants_output(n, i) || v == ir::kNoValue) return;
  bind(n.outputs[i], v);
  ir::Value& val = b.graph().values[v];
  // A value may carry only one ONNX name; an Identity-like rule that forwards a named value keeps
  // the first name (the producer's), and `plumb check` maps the later name through the binding.
  if (val.onnx_name.empty()) val.onnx_name = n.outputs[i];
}

const onnx::Tensor* LowerCtx::const_input(const onnx::OnnxNode& n, size_t i) const {
  if (!has_input(n, i)) return nullptr;
  const std::string& name = n.inputs[i];
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    if (auto c = it->constants.find(name); c != it->constants.end()) return &c->second;
    if (auto f = it->values.find(name); f != it->values.end()) return computed_constant(name, f->second);
  }
  return nullptr;
}

Status LowerCtx::needs_build_time(const onnx::OnnxNode& n, size_t i, const std::string& what) {
  std::string from;
  if (auto v = has_input(n, i) ? lookup(n.inputs[i]) : std::nullopt) {
    // The graph inputs behind the value: a walk up the top-level producers (error path only).
    const ir::Graph& g = b.graph();
    std::map<ir::ValueId, const ir::Node*> producer;
    for (const ir::Node& node : g.body.nodes)
      for (ir::ValueId o : node.outputs) producer[o] = &node;
    std::set<ir::ValueId> seen;
    std::vector<ir::ValueId> stack{*v};
    std::set<std::string> inputs;
    while (!stack.empty()) {
      const ir::ValueId x = stack.back();
      stack.pop_back();
      if (!seen.insert(x).second) continue;
      auto p = producer.find(x);
      if (p != producer.end()) {
        for (ir::ValueId in : p->second->inputs) stack.push_back(in);
        continue;
      }
      for (size_t k = 0; k < g.body.params.size() && k < g.input_names.size(); ++k)
        if (g.body.params[k] == x) inputs.insert(g.input_names[k]);
    }
    for (const std::string& name : inputs) from += (from.empty() ? "" : ", ") + ("'" + name + "'");
  }
  const std::string name = has_input(n, i) ? n.inputs[i] : std::string("?");
  return unsupported(what + " given as a computed (non-constant) tensor ('" + name + "'" +
                     (from.empty() ? "" : ", computed from graph input " + from) +
                     "): it decides the rank or structure of the result, so the core needs it at "
                     "build time; plumb run or plumb check with input data will work");
}

const onnx::Tensor* LowerCtx::computed_constant(const std::string& name, ir::ValueId v) const {
  (void)name;
  const ir::Graph& g = b.graph();
  if (v >= g.values.size()) return nullptr;
  if (const onnx::Tensor* t = offered_for(v)) return t;
  if (const onnx::Tensor* t = folded(v)) return t;
  // Computed from offered input values (and constants): specialized on those inputs.
  auto cached = folded_with_offers_.find(v);
  if (cached == folded_with_offers_.end()) {
    std::set<std::string> used;
    auto value_of = [&](ir::ValueId param) -> std::optional<ir::ConstantData> {
      const onnx::Tensor* t = offered_for(param, /*record=*/false);
      if (!t) return std::nullopt;
      used.insert(t->name);
      return t->to_constant();
    };
    cached = folded_with_offers_.emplace(v, as_tensor(folder_.fold(g, v, value_of))).first;
    if (cached->second) specialized_.insert(used.begin(), used.end());
  }
  return cached->second ? &*cached->second : nullptr;
}

// The offered value of graph input `param` (recorded as a specialization), or nullptr.
const onnx::Tensor* LowerCtx::offered_for(ir::ValueId param, bool record) const {
  const ir::Graph& g = b.graph();
  const auto& params = g.body.params;
  auto at = std::find(params.begin(), params.end(), param);
  if (at == params.end()) return nullptr;
  const size_t k = static_cast<size_t>(at - params.begin());
  if (k >= g.input_names.size()) return nullptr;
  auto o = offered_.find(g.input_names[k]);
  if (o == offered_.end()) return nullptr;
  // Only a value that fits the declared input type specializes the graph; anything else is left
  // to the run, which rejects the input with its usual message.
  const ir::Type& declared = g.type_of(param);
  if (declared.kind != ir::TypeKind::Tensor || declared.dtype != o->second.dtype ||
      declared.shape.size() != o->second.dims.size())
    return nullptr;
  for (size_t d = 0; d < declared.shape.size(); ++d)
    if (declared.shape[d].is_static() && declared.shape[d].size != o->second.dims[d]) return nullptr;
  if (record) specialized_.insert(o->first);
  return &o->second;
}

const onnx::Tensor* LowerCtx::folded(ir::ValueId v) const {
  auto cached = folded_.find(v);
  if (cached == folded_.end()) cached = folded_.emplace(v, as_tensor(folder_.fold(b.graph(), v))).first;
  return cached->second ? &*cached->second : nullptr;
}

// Shape arithmetic (a few integers computed from constants and static shapes) becomes a constant
// where it is used, so that what consumes it (ConstantOfShape, Expand, Range, Slice...) gets a
// static type instead of a symbolic one. Larger or data-dependent values are left alone.
ir::ValueId LowerCtx::fold_small_int(ir::ValueId v) {
  constexpr int64_t kSmall = 64;
  const ir::Graph& g = b.graph();
  if (v >= g.values.size()) return v;
  const ir::Type& t = g.type_of(v);
  if (t.kind != ir::TypeKind::Tensor || !ir::is_int(t.dtype) || !ir::shape_is_static(t.shape)) return v;
  const int64_t count = ir::shape_num_elements(t.shape);
  if (count < 0 || count > kSmall) return v;
  if (folder_.is_constant(g, v)) return v;
  const bool top_level = b.open_regions() == 0;
  if (top_level)
    if (auto it = folded_values_.find(v); it != folded_values_.end()) return it->second;
  const onnx::Tensor* c = folded(v);
  if (!c) return v;
  const ir::ValueId k = constant_value(*c);
  if (k == ir::kNoValue) return v;
  if (top_level) folded_values_[v] = k;
  return k;
}

std::optional<std::vector<int64_t>> LowerCtx::const_ints(const onnx::OnnxNode& n, size_t i) const {
  const onnx::Tensor* t = const_input(n, i);
  if (!t || !(ir::is_int(t->dtype) || ir::is_bool(t->dtype))) return std::nullopt;
  if (ir::is_bool(t->dtype)) {  // one byte per element, 0 or 1 (constant_int_values is for integers)
    if (static_cast<int64_t>(t->size) != t->num_elements()) return std::nullopt;
    return std::vector<int64_t>(t->data, t->data + t->size);
  }
  return ir::constant_int_values(t->to_constant());
}

std::optional<std::vector<double>> LowerCtx::const_floats(const onnx::OnnxNode& n, size_t i) const {
  const onnx::Tensor* t = const_input(n, i);
  if (!t) return std::nullopt;
  if (!ir::is_float(t->dtype)) {
    auto ints = const_ints(n, i);
    if (!ints) return std::nullopt;
    return std::vector<double>(ints->begin(), ints->end());
  }
  const int bytes = ir::dtype_bits(t->dtype) / 8;
  if (bytes < 1) return std::nullopt;  // f4e2m1 constants are not folded
  const int64_t count = t->num_elements();
  if (static_cast<uint64_t>(count) * bytes != t->size) return std::nullopt;
  std::vector<double> out(static_cast<size_t>(count));
  for (int64_t k = 0; k < count; ++k) {
    uint64_t bits = 0;
    for (int j = 0; j < bytes; ++j) bits |= uint64_t{t->data[k * bytes + j]} << (8 * j);
    out[k] = ir::float_bits_to_double(t->dtype, bits);
  }
  return out;
}

}  // namespace plumb::lower
