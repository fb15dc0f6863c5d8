// LowerCtx: what a lowering rule sees (STYLE 2.3). It maps ONNX tensor names to core values
// (scoped, for subgraphs), gives rules their inputs and takes their outputs, exposes constant
// inputs for folding, and carries the builder whose provenance the driver has set to the node.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frontends/onnx/model.h"
#include "ir/builder.h"
#include "ir/evaluator.h"
#include "ir/fold.h"
#include "ir/status.h"

namespace plumb::lower {

class LowerCtx {
 public:
  // `eval` (the caller's: the lowering links no runtime) evaluates what is folded (ir/fold.h); it
  // is also the builder's, so shape arithmetic on constants becomes constants as it is emitted.
  LowerCtx(ir::Builder& builder, const onnx::OnnxModel& model, const ir::Evaluator& eval)
      : b(builder), model_(model), folder_(eval) {
    b.set_evaluator(&eval);
  }

  ir::Builder& b;
  // The model-local functions being expanded, outermost first (the driver's; a function that
  // calls itself, directly or through others, and a chain of calls too deep are errors).
  std::vector<const onnx::OnnxFunction*> calls;

  const onnx::OnnxModel& model() const { return model_; }
  // The opset of the node being lowered (its domain's import), set by the driver.
  int64_t opset() const { return opset_; }
  void set_opset(int64_t v) { opset_ = v; }

  // ---- inputs and outputs ------------------------------------------------------------------------
  // True when input i is given (present and not the empty name).
  bool has_input(const onnx::OnnxNode& n, size_t i) const {
    return i < n.inputs.size() && !n.inputs[i].empty();
  }
  // The core value of input i, or the error: a missing required input, or a name that no earlier
  // node, initializer or graph input defines. Rules bind it with
  //   PLUMB_ASSIGN_OR_RETURN(ir::ValueId x, cx.input(n, 0));
  // so that a rule never goes on with no value: the error is what the rule returns. (It is also
  // recorded, first one wins, so that error() agrees.) After a failure (a failed build) input() gives
  // that failure: a rule that has its inputs knows that the builder is still good.
  Expected<ir::ValueId> input(const onnx::OnnxNode& n, size_t i);
  // An optional input: input i when it is given (has_input), else kNoValue.
  Expected<ir::ValueId> optional_input(const onnx::OnnxNode& n, size_t i) {
    if (!has_input(n, i)) return ir::kNoValue;
    return input(n, i);
  }
  // Inputs first, ..., end - 1 through input(), in order (end: all of n's inputs by default).
  Expected<std::vector<ir::ValueId>> inputs(const onnx::OnnxNode& n, size_t first = 0, size_t end = SIZE_MAX);
  // Binds output i (when the node names it) to `v`, and marks `v` with the ONNX name.
  void set_output(const onnx::OnnxNode& n, size_t i, ir::ValueId v);
  bool wants_output(const onnx::OnnxNode& n, size_t i) const {
    return i < n.outputs.size() && !n.outputs[i].empty();
  }
  // ---- reading back a value ---------------------------------------------------------------------
  // Every accessor here is safe on an id that names no value: kNoValue (an absent optional input, or
  // what an emit gives once the builder has failed). Its answer is "unknown": an unranked tensor,
  // rank 0, no dims, unknown dims, no constant. A rule may therefore go on after a failed build
  // without reading out of bounds; its next emit is ignored (the builder is sticky) and the builder's
  // error, recorded first, is the one reported (fail() and error() below). A rule that takes a
  // decision on what it reads back of a value it built itself stops first with
  //   PLUMB_RETURN_IF_ERROR(cx.error());
  // and a rule that indexes a type's shape checks its rank first (or uses dim()).
  bool is_value(ir::ValueId v) const { return v < b.graph().values.size(); }
  // By value: the graph's value table grows as rules emit, so references into it would dangle.
  ir::Type type(ir::ValueId v) const {
    return is_value(v) ? b.type_of(v) : ir::Type::unranked_tensor(ir::DType::F32);
  }
  int64_t rank(ir::ValueId v) const { return is_value(v) ? b.type_of(v).rank() : 0; }
  // Dim `axis` of v (a negative axis counts from the end: -1 is the last): an unknown dim when v has
  // no such axis (no value, or axis outside [-rank, rank)).
  ir::Dim dim(ir::ValueId v, int64_t axis) const {
    if (axis < 0) axis += rank(v);
    if (!is_value(v) || axis < 0 || axis >= rank(v)) return ir::Dim::symbolic();
    return b.type_of(v).shape[static_cast<size_t>(axis)];
  }

  // ---- constants -------------------------------------------------------------------------------------
  // The constant tensor behind input i, or nullptr: an initializer or a Constant node's output; a
  // value the graph computes from constants and static shapes alone (folded at build time, see
  // ir/fold.h); or a graph input whose value the caller offered (the lowering is then specialized on
  // it: specialized_inputs() names it).
  const onnx::Tensor* const_input(const onnx::OnnxNode& n, size_t i) const;
  // Its integer / floating contents, when it is a constant of such a dtype.
  std::optional<std::vector<int64_t>> const_ints(const onnx::OnnxNode& n, size_t i) const;
  std::optional<std::vector<double>> const_floats(const onnx::OnnxNode& n, size_t i) const;
  // Registers `name` as a known constant (the Constant rule does this).
  void define_constant(const std::string& name, onnx::Tensor t);
  // Emits (once) the core constant for an ONNX constant tensor.
  ir::ValueId constant_value(const onnx::Tensor& t);

  // ---- specialization on input values -----------------------------------------------------------
  // plumb run/check/conformance know the values of the graph inputs they feed. Where ONNX takes an
  // attribute-like parameter (axes, pads, a target shape, k) as a graph input, plumb's static-rank
  // core needs it at build time: such an input's offered value is used, and recorded.
  void offer_input_value(const std::string& name, onnx::Tensor t) {
    t.name = name;  // the specialization is reported by this name
    offered_[name] = std::move(t);
  }
  const std::set<std::string>& specialized_inputs() const { return specialized_; }
  // The refusal of a parameter (input i of n, described by `what`) that the graph computes but that
  // decides the rank or structure of the result (axes, split sizes, a target shape of unknown
  // length), so the core needs it at build time (spec/onnx-rulings.md R1). The message names the
  // graph inputs it is computed from and says that `plumb run` / `plumb check` with input data
  // work (they lower for the given values).
  Status needs_build_time(const onnx::OnnxNode& n, size_t i, const std::string& what);

  // ---- names -----------------------------------------------------------------------------------------
  void bind(const std::string& name, ir::ValueId v);
  std::optional<ir::ValueId> lookup(const std::string& name) const;
  void push_scope() { scopes_.emplace_back(); }
  void pop_scope() { scopes_.pop_back(); }
  void add_initializers(const onnx::OnnxGraph& g);

  // ---- errors ----------------------------------------------------------------------------------------
  // Records an error for the current node and returns the node's first error: `s`, unless an error
  // came before it (one recorded here, or a failed emit: a check that fails on what a failed build
  // gave back is its consequence, not the cause).
  Status fail(Status s);
  Status unsupported(const std::string& what) { return fail(plumb::unsupported(what)); }
  Status invalid(const std::string& what) { return fail(invalid_model("", what)); }
  const Status& status() const { return status_; }
  // The node's first error so far: one that fail() saw (an input, a rule's invalid/unsupported) or
  // the builder's (an emit that failed its inference, a helper's fail_with). A rule's failure is its
  // return value: it ends with `return cx.error();` (OK when nothing failed), and a rule that reads
  // back what it built stops first with PLUMB_RETURN_IF_ERROR(cx.error()). The driver reports this
  // error, the first, over whatever the rule returned after it.
  Status error() const { return status_.is_ok() ? b.status() : status_; }
  void reset_status() { status_ = Status::ok(); }

 private:
  const onnx::Tensor* computed_constant(const std::string& name, ir::ValueId v) const;
  const onnx::Tensor* folded(ir::ValueId v) const;
  const onnx::Tensor* offered_for(ir::ValueId param, bool record = true) const;
  ir::ValueId fold_small_int(ir::ValueId v);
  struct Scope {
    std::map<std::string, ir::ValueId> values;
    std::map<std::string, onnx::Tensor> constants;  // not yet emitted or folded
  };
  const onnx::OnnxModel& model_;
  int64_t opset_ = 0;
  std::vector<Scope> scopes_{1};
  Status status_;
  std::map<std::string, onnx::Tensor> offered_;
  // Caches behind the const accessors (the answers do not change once a value exists).
  mutable std::set<std::string> specialized_;
  mutable ir::Folder folder_;
  mutable std::map<ir::ValueId, std::optional<onnx::Tensor>> folded_;
  mutable std::map<ir::ValueId, std::optional<onnx::Tensor>> folded_with_offers_;
  std::map<ir::ValueId, ir::ValueId> folded_values_;  // computed value -> its constant (top level)
};

}  // namespace plumb::lower
