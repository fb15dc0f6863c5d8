// The verifier (spec/verifier.md): the checks run in the order that page lists them, and each
// failure carries its label (`graph.Vn`, `<op>.arity`, `<op>.attrs`, or an op's `<op>.Cn` from
// inference). The input may be anything a hostile file decoded to: every index is checked before
// it is used, region nesting and type nesting are bounded, and nothing here recurses deeper than
// those bounds.
#include "ir/verify.h"

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "ir/constant_values.h"
#include "ir/infer.h"

namespace plumb::ir {

namespace {

constexpr int kMaxRegionDepth = 64;  // graph.V11

Status fail(const char* label, std::string place, std::string message) {
  return Status(ErrorCode::kInvalidModel, std::move(message), label, std::move(place));
}

// Declared result type `declared` against inferred `inferred` (spec/verifier.md graph.V12): same
// kind, dtype and rank; dims that are static in both are equal. A symbolic dim on either side is
// accepted (inferred symbolic + declared static: the runtime checks the dim when it is known).
bool declared_agrees(const Type& declared, const Type& inferred) {
  if (declared.kind != inferred.kind || declared.dtype != inferred.dtype) return false;
  if (declared.kind != TypeKind::Tensor) {
    if (!declared.elem || !inferred.elem) return true;
    return declared_agrees(*declared.elem, *inferred.elem);
  }
  if (!declared.ranked || !inferred.ranked) return true;
  if (declared.shape.size() != inferred.shape.size()) return false;
  for (size_t i = 0; i < declared.shape.size(); ++i) {
    const Dim& d = declared.shape[i];
    const Dim& s = inferred.shape[i];
    if (d.is_static() && s.is_static() && d.size != s.size) return false;
  }
  return true;
}

class Verifier {
 public:
  explicit Verifier(const Graph& g)
      : g_(g),
        state_(g.values.size(), Def::kNever),
        const_of_(g.values.size(), -1),
        decoded_(g.constants.size()) {}

  Status run();

 private:
  enum class Def : uint8_t { kNever, kInScope, kOutOfScope };

  Status walk_region(const Region& r, int depth, const std::string& owner);
  Status visit_node(const Node& n, int depth, std::vector<ValueId>& scope);
  Status use(ValueId v, const std::string& what, const std::string& place) const;
  Status define(ValueId v, const std::string& what, const std::string& place, std::vector<ValueId>& scope);
  const std::vector<int64_t>* known_values(ValueId v);

  const Graph& g_;
  std::vector<Def> state_;
  std::vector<int64_t> const_of_;  // the constant (index) a value was produced from, or -1
  std::vector<std::optional<std::optional<std::vector<int64_t>>>> decoded_;  // per constant, lazily
  int64_t next_index_ = 0;  // pre-order node number (node_place)
};

std::string value_name(ValueId v) { return "%" + std::to_string(v); }

Status Verifier::use(ValueId v, const std::string& what, const std::string& place) const {
  // graph.V5: every ValueId is in the value table
  if (v >= g_.values.size())
    return fail("graph.V5", place,
                strfmt("%s %s is not in the value table (%zu values)", what.c_str(), value_name(v).c_str(),
                       g_.values.size()));
  // graph.V7: defined before use
  if (state_[v] == Def::kNever)
    return fail("graph.V7", place, what + " " + value_name(v) + " is used before it is defined");
  // graph.V8: defined in this region or an enclosing one
  if (state_[v] == Def::kOutOfScope)
    return fail("graph.V8", place,
                what + " " + value_name(v) + " is defined inside a region that does not enclose this use");
  return Status::ok();
}

Status Verifier::define(ValueId v, const std::string& what, const std::string& place,
                        std::vector<ValueId>& scope) {
  if (v >= g_.values.size())
    return fail("graph.V5", place,
                strfmt("%s %s is not in the value table (%zu values)", what.c_str(), value_name(v).c_str(),
                       g_.values.size()));
  // graph.V6: every value is defined exactly once
  if (state_[v] != Def::kNever)
    return fail("graph.V6", place, what + " " + value_name(v) + " is already defined");
  state_[v] = Def::kInScope;
  scope.push_back(v);
  return Status::ok();
}

const std::vector<int64_t>* Verifier::known_values(ValueId v) {
  const int64_t c = const_of_[v];
  if (c < 0) return nullptr;
  auto& slot = decoded_[static_cast<size_t>(c)];
  if (!slot) slot = constant_int_values(g_.constants[static_cast<size_t>(c)]);
  return *slot ? &**slot : nullptr;
}

Status Verifier::walk_region(const Region& r, int depth, const std::string& owner) {
  std::vector<ValueId> scope;
  for (size_t i = 0; i < r.params.size(); ++i)
    PLUMB_RETURN_IF_ERROR(define(r.params[i], "parameter " + std::to_string(i), owner, scope));
  for (const Node& n : r.nodes) PLUMB_RETURN_IF_ERROR(visit_node(n, depth, scope));
  for (size_t i = 0; i < r.results.size(); ++i)
    PLUMB_RETURN_IF_ERROR(use(r.results[i], "result " + std::to_string(i), owner));
  for (ValueId v : scope) state_[v] = Def::kOutOfScope;
  return Status::ok();
}

Status Verifier::visit_node(const Node& n, int depth, std::vector<ValueId>& scope) {
  const int64_t index = next_index_++;
  // graph.V9: the op code is one of ops.def (node_place needs a valid op)
  if (static_cast<int>(n.op) >= kNumOps)
    return fail("graph.V9", "node #" + std::to_string(index),
                strfmt("op code %d is not a core op of version %u", static_cast<int>(n.op),
                       static_cast<unsigned>(kCoreVersion)));
  const std::string place = node_place(n, index);
  for (size_t i = 0; i < n.inputs.size(); ++i)
    PLUMB_RETURN_IF_ERROR(use(n.inputs[i], "operand " + std::to_string(i), place));
  for (size_t i = 0; i < n.outputs.size(); ++i)
    if (n.outputs[i] >= g_.values.size())
      return fail("graph.V5", place,
                  strfmt("result %zu %s is not in the value table (%zu values)", i,
                         value_name(n.outputs[i]).c_str(), g_.values.size()));
  PLUMB_RETURN_IF_ERROR(check_node_structure(n).with_place(place));
  // graph.V10: type-valued attributes are well-formed types (constant references are the
  // constant op's own constant.C1)
  for (const Attr& a : n.attrs)
    if (const auto* t = std::get_if<TypeAttr>(&a.value)) {
      const std::string why = type_problem(t->type);
      if (!why.empty()) return fail("graph.V10", place, "attribute '" + a.name + "': " + why);
    }
  if (!n.regions.empty()) {
    // graph.V11: bounded region nesting
    if (depth + 1 > kMaxRegionDepth)
      return fail("graph.V11", place, strfmt("regions nested deeper than %d", kMaxRegionDepth));
    for (size_t i = 0; i < n.regions.size(); ++i)
      PLUMB_RETURN_IF_ERROR(walk_region(n.regions[i], depth + 1, place + ": region " + std::to_string(i)));
  }
  std::vector<Operand> operands(n.inputs.size());
  for (size_t i = 0; i < n.inputs.size(); ++i)
    operands[i] = Operand{&g_.values[n.inputs[i]].type, known_values(n.inputs[i])};
  InferCtx cx{n, operands, g_, false};
  Expected<std::vector<Type>> inferred = infer_types(cx);
  if (!inferred) return inferred.status().with_place(place);
  // graph.V12: the declared result types agree with the inferred ones
  if (inferred->size() != n.outputs.size())
    return fail("graph.V12", place,
                strfmt("%zu results declared, inference gives %zu", n.outputs.size(), inferred->size()));
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    const Type& declared = g_.values[n.outputs[i]].type;
    if (!declared_agrees(declared, (*inferred)[i]))
      return fail("graph.V12", place,
                  strfmt("result %zu is declared %s, inferred %s", i, type_to_string(declared).c_str(),
                         type_to_string((*inferred)[i]).c_str()));
  }
  // Results are defined after the node and its regions, in the enclosing region's scope.
  for (size_t i = 0; i < n.outputs.size(); ++i)
    PLUMB_RETURN_IF_ERROR(define(n.outputs[i], "result " + std::to_string(i), place, scope));
  if (n.op == Op::Constant && n.outputs.size() == 1)
    const_of_[n.outputs[0]] = attrs<Op::Constant>(n).value.index;
  return Status::ok();
}

Status Verifier::run() {
  // graph.V1: the core version is one this runtime implements
  if (g_.core_version > kCoreVersion)
    return fail("graph.V1", "header",
                strfmt("core version %u is newer than this runtime's %u",
                       static_cast<unsigned>(g_.core_version), static_cast<unsigned>(kCoreVersion)));
  // graph.V2: every value's type is well-formed and within the size limits
  if (g_.values.size() >= kNoValue) return fail("graph.V2", "value table", "too many values");
  for (size_t v = 0; v < g_.values.size(); ++v) {
    const std::string why = type_problem(g_.values[v].type);
    if (!why.empty()) return fail("graph.V2", "value " + value_name(static_cast<ValueId>(v)), why);
  }
  // graph.V3: one name per graph input and per graph output
  if (g_.input_names.size() != g_.body.params.size() || g_.output_names.size() != g_.body.results.size())
    return fail(
        "graph.V3", "graph",
        strfmt("%zu input names for %zu inputs, %zu output names for %zu outputs", g_.input_names.size(),
               g_.body.params.size(), g_.output_names.size(), g_.body.results.size()));
  // graph.V4: every constant is a static tensor whose bytes match its type
  for (size_t c = 0; c < g_.constants.size(); ++c) {
    const std::string why = constant_problem(g_.constants[c]);
    if (!why.empty()) return fail("graph.V4", "constant #" + std::to_string(c), why);
  }
  // graph.V5..V12 and every op's own checks, node by node in pre-order.
  return walk_region(g_.body, 0, "graph");
}

}  // namespace

Status verify(const Graph& g) { return Verifier(g).run(); }

}  // namespace plumb::ir
