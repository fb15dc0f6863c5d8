// Inference for the control-flow ops: spec/ops/if.md, spec/ops/while.md.
// The regions' own nodes were inferred when they were built or verified; here only the region
// signatures (parameter and result types, read from the graph's value table) meet the node.
#include <string>

#include "ir/infer.h"

namespace plumb::ir {

namespace {

// The type of `v`, or nullptr when `v` is not in the value table (an unverified graph).
const Type* value_type(const Graph& g, ValueId v) {
  return v < g.values.size() ? &g.values[v].type : nullptr;
}

Status out_of_range(const char* what, ValueId v) {
  return invalid_model("graph.V5",
                       strfmt("%s %%%u is not in the value table", what, static_cast<unsigned>(v)));
}

// The least type that both `a` and `b` refine: equal static dims (and equal named symbolic dims)
// are kept, other dims become anonymous symbolic; container elements of different rank become
// unranked. The caller has checked that kind and dtype agree (and rank, for top-level tensors).
Type join(const Type& a, const Type& b) {
  if (a.kind != TypeKind::Tensor) {
    Type t = a;
    if (a.elem && b.elem) t.elem = std::make_shared<const Type>(join(*a.elem, *b.elem));
    return t;
  }
  if (!a.ranked || !b.ranked || a.shape.size() != b.shape.size()) return Type::unranked_tensor(a.dtype);
  Type t = Type::tensor(a.dtype, {});
  for (size_t i = 0; i < a.shape.size(); ++i)
    t.shape.push_back(a.shape[i] == b.shape[i] ? a.shape[i] : Dim::symbolic());
  return t;
}

bool same_kind_dtype_rank(const Type& a, const Type& b) {
  if (a.kind != b.kind || a.dtype != b.dtype) return false;
  if (a.kind == TypeKind::Tensor) return a.ranked == b.ranked && a.shape.size() == b.shape.size();
  if (!a.elem || !b.elem) return !a.elem && !b.elem;
  return a.elem->kind == b.elem->kind && a.elem->dtype == b.elem->dtype;
}

bool is_bool_scalar(const Type& t) {
  return t.kind == TypeKind::Tensor && t.dtype == DType::Bool && t.ranked && t.shape.empty();
}

}  // namespace

template <>
Expected<std::vector<Type>> infer<Op::If>(const InferCtx& cx) {
  const Node& n = cx.node;
  if (cx.operands.size() != 1 || n.regions.size() != 2) return internal_error("if: structure not checked");
  const Type* cond = cx.operands[0].type;
  // if.C1: the condition is a bool scalar
  if (!cond || !is_bool_scalar(*cond))
    return invalid_model(
        "if.C1", "condition is " + (cond ? type_to_string(*cond) : std::string("?")) + ", expected bool[]");
  const Region& then_r = n.regions[0];
  const Region& else_r = n.regions[1];
  // if.C2: neither branch has parameters
  if (!then_r.params.empty() || !else_r.params.empty())
    return invalid_model("if.C2", strfmt("branches have %zu and %zu parameters, expected none",
                                         then_r.params.size(), else_r.params.size()));
  // if.C3: each branch yields one value per result
  const size_t nres = n.outputs.size();
  if (then_r.results.size() != nres || else_r.results.size() != nres)
    return invalid_model("if.C3", strfmt("then yields %zu values and else %zu, the node has %zu results",
                                         then_r.results.size(), else_r.results.size(), nres));
  std::vector<Type> out;
  out.reserve(nres);
  for (size_t i = 0; i < nres; ++i) {
    const Type* t = value_type(cx.graph, then_r.results[i]);
    const Type* e = value_type(cx.graph, else_r.results[i]);
    if (!t) return out_of_range("then result", then_r.results[i]);
    if (!e) return out_of_range("else result", else_r.results[i]);
    // if.C4: the branches agree on each result's kind, dtype and rank
    if (!same_kind_dtype_rank(*t, *e))
      return invalid_model("if.C4", strfmt("result %zu is %s in then and %s in else", i,
                                           type_to_string(*t).c_str(), type_to_string(*e).c_str()));
    out.push_back(join(*t, *e));
  }
  return out;
}

template <>
Expected<std::vector<Type>> infer<Op::While>(const InferCtx& cx) {
  const Node& n = cx.node;
  if (cx.operands.size() != n.inputs.size() || n.regions.size() != 2)
    return internal_error("while: structure not checked");
  const Region& cond_r = n.regions[0];
  const Region& body_r = n.regions[1];
  const size_t carried = n.inputs.size();
  // while.C1: one result per loop-carried value
  if (n.outputs.size() != carried)
    return invalid_model("while.C1",
                         strfmt("%zu results for %zu loop-carried values", n.outputs.size(), carried));
  // while.C2: cond and body each take the loop-carried values as parameters
  if (cond_r.params.size() != carried || body_r.params.size() != carried)
    return invalid_model("while.C2", strfmt("cond has %zu and body %zu parameters, expected %zu",
                                            cond_r.params.size(), body_r.params.size(), carried));
  // while.C3: cond yields one bool scalar
  if (cond_r.results.size() != 1)
    return invalid_model("while.C3", strfmt("cond yields %zu values, expected 1", cond_r.results.size()));
  const Type* c = value_type(cx.graph, cond_r.results[0]);
  if (!c) return out_of_range("cond result", cond_r.results[0]);
  if (!is_bool_scalar(*c))
    return invalid_model("while.C3", "cond yields " + type_to_string(*c) + ", expected bool[]");
  // while.C4: body yields one value per loop-carried value
  if (body_r.results.size() != carried)
    return invalid_model("while.C4",
                         strfmt("body yields %zu values, expected %zu", body_r.results.size(), carried));
  std::vector<Type> out;
  out.reserve(carried);
  for (size_t i = 0; i < carried; ++i) {
    const Type* init = cx.operands[i].type;
    const Type* cp = value_type(cx.graph, cond_r.params[i]);
    const Type* bp = value_type(cx.graph, body_r.params[i]);
    const Type* next = value_type(cx.graph, body_r.results[i]);
    if (!init) return internal_error("while: operand type missing");
    if (!cp) return out_of_range("cond parameter", cond_r.params[i]);
    if (!bp) return out_of_range("body parameter", body_r.params[i]);
    if (!next) return out_of_range("body result", body_r.results[i]);
    // while.C5: the initial value fits both parameters
    if (!type_refines(*init, *cp) || !type_refines(*init, *bp))
      return invalid_model("while.C5", strfmt("initial value %zu is %s; cond takes %s, body takes %s", i,
                                              type_to_string(*init).c_str(), type_to_string(*cp).c_str(),
                                              type_to_string(*bp).c_str()));
    // while.C6: the body's next value fits both parameters (the back edge)
    if (!type_refines(*next, *cp) || !type_refines(*next, *bp))
      return invalid_model("while.C6", strfmt("body yields %s as value %zu; cond takes %s, body takes %s",
                                              type_to_string(*next).c_str(), i, type_to_string(*cp).c_str(),
                                              type_to_string(*bp).c_str()));
    // The final value is the initial one (no iteration) or one the body yielded.
    out.push_back(init->kind == TypeKind::Tensor &&
                          (!init->ranked || !next->ranked || init->shape.size() != next->shape.size())
                      ? *bp
                      : join(*init, *next));
  }
  return out;
}

}  // namespace plumb::ir
