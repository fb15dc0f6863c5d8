// The builder: how lowerings and tests make core graphs. Every node it emits has its result
// types inferred (ir/infer.h, the one shape rule per op), so a built graph is typed by
// construction; ir::verify still checks it as a whole (scoping across regions, graph signature).
//
// The builder is sticky on error: the first failure (an op constraint, an unknown value, an
// unbalanced region) is recorded; every later call returns kNoValue and adds nothing. A lowering
// rule therefore reads as straight-line code and checks status() once at the end:
//
//   Builder b(g);
//   ValueId x = b.input(Type::tensor(DType::F32, {2, 3}), "x");
//   ValueId y = b.unary(UnaryKind::Exp, x);
//   b.output(b.binary(BinaryKind::Add, x, y), "y");
//   PLUMB_RETURN_IF_ERROR(b.status());
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/attrs.h"
#include "ir/evaluator.h"
#include "ir/graph.h"
#include "ir/op.h"
#include "ir/status.h"

namespace plumb::ir {

// `attrs` put into ops.def order for `op` (names ops.def does not list for it keep their order,
// after the others; check_node_structure then reports them).
std::vector<Attr> order_attrs(Op op, std::vector<Attr> attrs);

class Builder {
 public:
  explicit Builder(Graph& g);

  Graph& graph() { return g_; }
  const Status& status() const { return status_; }
  bool ok() const { return status_.is_ok(); }
  // Records a failure found by code that emits on the builder's behalf and answers values, not a
  // Status (a lowering helper that finds its arguments wrong): from then on the builder answers as
  // after a failed emit, and the failure is reported the same way. The first failure wins.
  void fail_with(Status s) { fail(std::move(s)); }
  // The type of a value (a default tensor type for kNoValue or an unknown id).
  const Type& type_of(ValueId v) const;

  // ---- graph signature -------------------------------------------------------------------------
  ValueId input(Type type, std::string onnx_name);
  void output(ValueId v, std::string onnx_name);

  // ---- provenance: applies to every node emitted afterwards ---------------------------------------
  void set_provenance(Provenance prov) { prov_ = std::move(prov); }
  const Provenance& provenance() const { return prov_; }
  void set_step(std::string step) { prov_.step = std::move(step); }

  // ---- generic emission ----------------------------------------------------------------------------
  // Emits `op` into the innermost open region (or the graph body) and returns its results, typed by
  // inference. `attrs` may come in any order (order_attrs). `num_outputs` < 0: the op's fixed count,
  // for `if` the branches' result count, for `while` the operand count; ops with a variable result
  // count (pool, string) take it explicitly. On failure (now or earlier): `num_outputs` (or the op's
  // minimum) copies of kNoValue.
  std::vector<ValueId> emit(Op op, std::vector<ValueId> inputs, std::vector<Attr> attrs = {},
                            std::vector<Region> regions = {}, int num_outputs = -1);
  // emit() for a one-result op: the result, or kNoValue.
  ValueId emit1(Op op, std::vector<ValueId> inputs, std::vector<Attr> attrs = {});
  // The same with the op's typed attributes (ir/attrs.h), e.g. emit1(ir::GatherAttrs{...}, {x, i}).
  template <Op O>
  std::vector<ValueId> emit(const Attrs<O>& attrs, std::vector<ValueId> inputs,
                            std::vector<Region> regions = {}, int num_outputs = -1) {
    return emit(O, std::move(inputs), attr_list(attrs), std::move(regions), num_outputs);
  }
  template <Op O>
  ValueId emit1(const Attrs<O>& attrs, std::vector<ValueId> inputs) {
    return emit1(O, std::move(inputs), attr_list(attrs));
  }

  // ---- constants -----------------------------------------------------------------------------------
  // Adds `data` to the constant table and emits a `constant` node for it.
  ValueId constant(ConstantData data);
  // Integer (or bool) constant of the given static shape; values wrap to the dtype's width.
  ValueId const_ints(DType dt, std::vector<int64_t> dims, const std::vector<int64_t>& values);
  // Float constant: stored directly for f32/f64; other float dtypes are made as an f32 constant and
  // a `cast` (round to nearest even), so the numbers follow the spec's cast.
  ValueId const_floats(DType dt, std::vector<int64_t> dims, const std::vector<double>& values);
  ValueId scalar_int(DType dt, int64_t v) { return const_ints(dt, {}, {v}); }
  ValueId scalar_float(DType dt, double v) { return const_floats(dt, {}, {v}); }
  // An i64[rank] constant holding `dims` (the shape operand of reshape/broadcast).
  ValueId shape_const(const std::vector<int64_t>& dims);

  // ---- ops (operands in ops.def order, attributes after them in ops.def order) ---------------------
  ValueId iota(ValueId shape, DType dtype, int64_t axis);
  ValueId unary(UnaryKind kind, ValueId operand);
  ValueId binary(BinaryKind kind, ValueId lhs, ValueId rhs);
  ValueId compare(CompareKind kind, ValueId lhs, ValueId rhs);
  ValueId select(ValueId pred, ValueId on_true, ValueId on_false);
  ValueId cast(ValueId operand, DType to, bool saturate = false, RoundMode round = RoundMode::NearestEven);
  ValueId bitcast(ValueId operand, DType to);
  ValueId shape_of(ValueId operand);
  ValueId reshape(ValueId operand, ValueId shape);
  ValueId broadcast(ValueId operand, ValueId shape, std::vector<int64_t> dims);
  ValueId transpose(ValueId operand, std::vector<int64_t> perm);
  ValueId slice(ValueId operand, ValueId start, ValueId limit, ValueId stride);
  ValueId concat(std::vector<ValueId> operands, int64_t axis);
  ValueId pad(ValueId operand, ValueId low, ValueId high, ValueId value, PadMode mode);
  ValueId gather(GatherKind kind, ValueId operand, ValueId indices, int64_t axis, int64_t batch_dims = 0);
  ValueId scatter(GatherKind kind, ValueId operand, ValueId indices, ValueId updates, int64_t axis,
                  ScatterReduction reduction);
  // {values, indices}
  std::vector<ValueId> sort(ValueId operand, int64_t axis, bool descending);
  ValueId nonzero(ValueId operand);
  ValueId reduce(ReduceKind kind, ValueId operand, std::vector<int64_t> axes);
  ValueId arg_reduce(ArgKind kind, ValueId operand, int64_t axis, bool select_last);
  ValueId scan(ReduceKind kind, ValueId operand, int64_t axis, bool exclusive, bool reverse);
  // {result} or, with num_outputs 2, {result, argmax indices}
  std::vector<ValueId> pool(const PoolAttrs& attrs, ValueId operand, int num_outputs = 1);
  ValueId matmul(ValueId lhs, ValueId rhs, DType to);
  ValueId conv(const ConvAttrs& attrs, ValueId lhs, ValueId rhs);

  // ---- regions and control flow --------------------------------------------------------------------
  // Opens a region whose parameters have `param_types` and returns the parameters; nodes emitted
  // until the matching end_region() go into it. Regions nest.
  std::vector<ValueId> begin_region(const std::vector<Type>& param_types);
  // Closes the innermost open region with `results` (what it yields) and returns it.
  Region end_region(std::vector<ValueId> results);
  // spec/ops/if.md: branches with no parameters.
  std::vector<ValueId> if_(ValueId cond, Region then_region, Region else_region);
  // spec/ops/while.md: cond and body take the loop-carried values.
  std::vector<ValueId> while_(std::vector<ValueId> init, Region cond, Region body);
  int open_regions() const { return static_cast<int>(open_.size()); }

  // ---- a budget of nodes -------------------------------------------------------------------------------
  // At most `limit` nodes are emitted (constants included; negative: no limit); the emit past it
  // fails like any other, naming the node being built. It bounds the work a hostile model can cause,
  // and it is how tests make the k-th emit of a lowering rule fail, to prove that every rule stops
  // cleanly on a failed build (tests/lowering/failed_build_test.cpp).
  void set_node_limit(int64_t limit) { node_limit_ = limit; }
  int64_t nodes_emitted() const { return emitted_; }

  // ---- folding shape arithmetic as it is built ------------------------------------------------------
  // With an evaluator set (the lowering's caller gives one that runs on `ref`: the builder itself
  // evaluates nothing), a small top-level node of constants (an integer result of at most kFoldInts
  // elements, a float one of at most kFoldFloats: shape arithmetic, Resize scales) is emitted as
  // the constant it computes (ir/fold.h, fold_node), and `shape_of` of a static shape as the
  // constant shape. So later nodes see the values, and their types are static where the values
  // decide them (a reshape to a computed static shape). Null: every node is emitted as is.
  // `eval` must outlive the builder's use of it.
  void set_evaluator(const Evaluator* eval) { eval_ = eval; }
  static constexpr int64_t kFoldInts = 4096;
  static constexpr int64_t kFoldFloats = 16;

 private:
  // The constant `n` computes, when it is to be folded (see set_evaluator).
  std::optional<ConstantData> fold(const Node& n);
  void fail(Status s);  // records the first failure only
  Region& current() { return open_.empty() ? g_.body : open_.back(); }
  const std::vector<int64_t>* known_values(ValueId v);

  Graph& g_;
  Status status_;
  Provenance prov_;
  std::vector<Region> open_;
  const Evaluator* eval_ = nullptr;
  int64_t node_limit_ = -1;
  int64_t emitted_ = 0;
  std::vector<int64_t> const_of_;  // per ValueId: the constant (index) it was made from, or -1
  std::vector<std::optional<std::optional<std::vector<int64_t>>>> decoded_;  // per constant, lazily
};

}  // namespace plumb::ir
