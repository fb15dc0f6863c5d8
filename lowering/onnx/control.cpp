// Lowering rules for If, Loop, Scan and SequenceMap onto the core `if` and `while` ops
// (spec/ops/if.md, while.md). ONNX subgraphs are lowered into core regions: the region's
// parameters are bound to the subgraph's input names in a new LowerCtx scope, and names of the
// enclosing graphs resolve through the outer scopes (regions read enclosing values directly,
// spec/verifier.md graph.V8).
//
// Loop-carried types. A `while` declares its parameters' types before its body is built, but ONNX
// lets a carried value change shape from one iteration to the next, and a scan output's type is
// known only once the body is lowered. emit_loop therefore lowers the body, compares what it
// yields with the parameter types it assumed, and if they do not fit, widens the parameters to the
// join of both and lowers the body again (a small fixpoint; each discarded attempt is a region that
// is never attached to a node, so it leaves only unused entries in the value table).
//
// Per-iteration outputs (Loop scan outputs, Scan outputs, SequenceMap outputs) are collected in
// loop-carried sequences (`sequence insert`, at the end or, for reversed Scan outputs, at the
// front) and stacked once after the loop (`sequence stack` along the output axis); a loop that ran
// zero times gives an empty tensor instead (stack refuses an empty sequence, sequence.R3). Scan
// inputs are read one slice per iteration with `gather` at a scalar i64 index (which drops the
// axis); both are exact copies.
#include <functional>
#include <optional>
#include <utility>

#include "lowering/onnx/containers.h"
#include "lowering/onnx/driver.h"
#include "lowering/onnx/helpers.h"
#include "lowering/onnx/registry.h"
#include "lowering/onnx/subgraph.h"

namespace plumb::lower {

using ir::ValueId;
using onnx::OnnxNode;
using BK = ir::BinaryKind;
using CK = ir::CompareKind;
using SK = ir::SequenceKind;
using OK = ir::OptionalKind;

namespace {

constexpr int kMaxTypeRounds = 6;

ValueId i64_scalar(LowerCtx& cx, int64_t v) { return cx.b.scalar_int(ir::DType::I64, v); }

// A one-element tensor (ONNX conditions and trip counts may be [1]) as a scalar.
ValueId as_scalar(LowerCtx& cx, ValueId v) {
  return rank_of(cx, v) == 0 ? v : cx.b.reshape(v, cx.b.shape_const({}));
}

// The extent of `v` along `axis` as an i64 scalar.
ValueId extent(LowerCtx& cx, ValueId v, int64_t axis) {
  const ir::Type t = cx.type(v);
  if (axis < t.rank() && t.shape[axis].is_static()) return i64_scalar(cx, t.shape[axis].size);
  return cx.b.gather(ir::GatherKind::Axis, shape_value(cx, v), i64_scalar(cx, axis), 0);
}

// A zero-length scan output: elem's dims with 0 inserted at `axis` (symbolic dims, which no
// iteration fixed, become 0, as onnxruntime does).
ValueId empty_stack(LowerCtx& cx, const ir::Type& elem, int64_t axis) {
  std::vector<int64_t> dims;
  for (const ir::Dim& d : elem.shape) dims.push_back(d.is_static() ? d.size : 0);
  dims.insert(dims.begin() + axis, 0);
  return cx.b.constant(ir::ConstantData::owned(ir::Type::tensor(elem.dtype, ir::static_shape(dims)), {}));
}

// The collected per-iteration values stacked along `axis` (an empty tensor for an empty sequence).
ValueId stack_or_empty(LowerCtx& cx, ValueId seq, const ir::Type& elem, int64_t axis) {
  ir::Builder& b = cx.b;
  ValueId len = dynamic_result(cx, [&] { return seq_op(cx, SK::Length, {seq}, elem); });
  ValueId none = b.compare(CK::Eq, len, i64_scalar(cx, 0));
  b.begin_region({});
  ir::Region then_r = b.end_region({empty_stack(cx, elem, axis)});
  b.begin_region({});
  ir::Region else_r = b.end_region({seq_op(cx, SK::StackAxis, {seq}, elem, axis)});
  std::vector<ValueId> r = b.if_(none, std::move(then_r), std::move(else_r));
  return r.empty() ? ir::kNoValue : r[0];
}

// ---- the generic loop ------------------------------------------------------------------------

struct Iteration {
  std::vector<ValueId> next;     // one per carried value
  std::vector<ValueId> collect;  // one per collector: appended (or prepended) to its sequence
};
using BodyFn = std::function<Expected<Iteration>(const std::vector<ValueId>& carried)>;
using CondFn = std::function<ValueId(const std::vector<ValueId>& carried)>;

struct LoopResult {
  std::vector<ValueId> carried;    // final carried values
  std::vector<ValueId> collected;  // one sequence per collector
  std::vector<ir::Type> collected_elem;
};

// while (cond(carried)) { carried, c = body(carried); seq_k = insert(seq_k, c_k) }.
// `prepend[k]`: collector k inserts at the front. A carried optional whose body yields the value
// itself (ONNX lets a Loop body turn an optional into what it holds) is wrapped again for the back
// edge; the final value is then unwrapped (`optional get`).
Expected<LoopResult> emit_loop(LowerCtx& cx, const std::vector<ValueId>& init,
                               const std::vector<bool>& prepend, const CondFn& cond_fn,
                               const BodyFn& body_fn) {
  ir::Builder& b = cx.b;
  const size_t nc = init.size(), nk = prepend.size();
  std::vector<ir::Type> types;
  for (ValueId v : init) types.push_back(cx.type(v));
  std::vector<std::optional<ir::Type>> elems(nk);
  std::vector<bool> unwrap(nc, false);
  std::optional<ir::Region> body;
  for (int round = 0; round < kMaxTypeRounds && !body; ++round) {
    bool known = true;
    std::vector<ir::Type> params = types;
    for (size_t k = 0; k < nk; ++k) {
      if (!elems[k]) known = false;
      params.push_back(ir::Type::sequence(elems[k] ? *elems[k] : ir::Type::unranked_tensor(ir::DType::F32)));
    }
    const size_t first_value = b.graph().values.size();
    std::vector<ValueId> p = b.begin_region(known ? params : types);
    Expected<Iteration> it = body_fn(std::vector<ValueId>(p.begin(), p.begin() + static_cast<long>(nc)));
    if (!it) {
      b.end_region({});
      return it.status();
    }
    if (it->next.size() != nc || it->collect.size() != nk) {
      b.end_region({});
      return internal_error("loop body yields the wrong number of values");
    }
    std::vector<ValueId> yields = it->next;
    bool fits = known;
    for (size_t k = 0; k < nc; ++k) {
      ir::Type y = cx.type(yields[k]);
      if (types[k].kind == ir::TypeKind::Optional && y.kind != ir::TypeKind::Optional) {
        yields[k] = opt_op(cx, OK::Wrap, {yields[k]}, y);
        y = ir::Type::optional(y);
        unwrap[k] = true;
      }
      if (!joinable_types(y, types[k])) {
        b.end_region({});
        return unsupported("loop-carried value " + std::to_string(k) + " is " + ir::type_to_string(types[k]) +
                           " on entry and " + ir::type_to_string(y) + " after an iteration");
      }
      if (!ir::type_refines(y, types[k])) {
        types[k] = join_types(types[k], y);
        fits = false;
      }
    }
    for (size_t k = 0; k < nk; ++k) {
      const ir::Type c = cx.type(it->collect[k]);
      if (!c.is_tensor() || !c.ranked) {
        b.end_region({});
        return unsupported("per-iteration output " + std::to_string(k) + " is " + ir::type_to_string(c));
      }
      if (!elems[k] || !ir::type_refines(c, *elems[k])) {
        elems[k] = elems[k] ? join_types(*elems[k], c) : c;
        if (!elems[k]->ranked) {
          b.end_region({});
          return unsupported("per-iteration output " + std::to_string(k) + " changes rank across iterations");
        }
        fits = false;
      }
    }
    if (fits) {
      // The back edge: containers rebuilt with the parameters' element types (containers.h), and
      // each per-iteration value appended (prepended) to its collector.
      for (size_t k = 0; k < nc; ++k) yields[k] = retype(cx, yields[k], types[k]);
      for (size_t k = 0; k < nk; ++k) {
        ValueId seq = p[nc + k];
        ValueId pos = prepend[k] ? i64_scalar(cx, 0) : seq_op(cx, SK::Length, {seq}, *elems[k]);
        yields.push_back(seq_op(cx, SK::Insert, {seq, it->collect[k], pos}, *elems[k]));
      }
    }
    for (const ir::Type& t : types)
      if (t.is_tensor() && !t.ranked) {
        b.end_region({});
        return unsupported("a loop-carried tensor changes rank across iterations");
      }
    ir::Region r = b.end_region(yields);
    PLUMB_RETURN_IF_ERROR(b.status());
    if (fits) {
      body = std::move(r);
    } else {
      // A discarded attempt: its values stay in the table unused; they must not answer for ONNX
      // names (plumb check looks values up by name).
      for (size_t v = first_value; v < b.graph().values.size(); ++v) b.graph().values[v].onnx_name.clear();
    }
  }
  if (!body) return unsupported("loop-carried types do not settle");
  std::vector<ir::Type> params = types;
  for (size_t k = 0; k < nk; ++k) params.push_back(ir::Type::sequence(*elems[k]));
  std::vector<ValueId> p = b.begin_region(params);
  ValueId go = cond_fn(std::vector<ValueId>(p.begin(), p.begin() + static_cast<long>(nc)));
  ir::Region cond = b.end_region({go});
  std::vector<ValueId> start;
  for (size_t k = 0; k < nc; ++k) start.push_back(retype(cx, init[k], types[k]));
  for (size_t k = 0; k < nk; ++k) start.push_back(seq_op(cx, SK::Empty, {}, *elems[k]));
  std::vector<ValueId> res = b.while_(start, std::move(cond), std::move(*body));
  PLUMB_RETURN_IF_ERROR(b.status());
  LoopResult out;
  for (size_t k = 0; k < nc; ++k)
    out.carried.push_back(
        unwrap[k] ? dynamic_result(cx, [&] { return opt_op(cx, OK::Get, {res[k]}, *cx.type(res[k]).elem); })
                  : res[k]);
  for (size_t k = 0; k < nk; ++k) {
    out.collected.push_back(res[nc + k]);
    out.collected_elem.push_back(*elems[k]);
  }
  return out;
}

// ---- If ----------------------------------------------------------------------------------------

// If-1..25: runs then_branch or else_branch. A condition known at build time lowers only the
// chosen branch (ONNX evaluates only that one).
Status lower_if(LowerCtx& cx, const OnnxNode& n) {
  ir::Builder& b = cx.b;
  const onnx::OnnxGraph* then_g = graph_attr(n, "then_branch");
  const onnx::OnnxGraph* else_g = graph_attr(n, "else_branch");
  if (!then_g || !else_g) return cx.invalid("If needs then_branch and else_branch graphs");
  if (auto c = cx.const_ints(n, 0); c && c->size() == 1) {
    PLUMB_ASSIGN_OR_RETURN(auto outs, lower_subgraph(cx, (*c)[0] != 0 ? *then_g : *else_g, {}));
    for (size_t i = 0; i < outs.size(); ++i) cx.set_output(n, i, outs[i]);
    return cx.error();
  }
  PLUMB_ASSIGN_OR_RETURN(ValueId cond, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  cond = as_scalar(cx, cond);
  // Round 0 learns the branches' output types; where a container output's type differs from the
  // join of both, round 1 lowers the branches again and rebuilds it with the joined type
  // (containers.h: the run-time element type must be the static one).
  std::vector<ir::Type> targets;
  for (int round = 0; round < 2; ++round) {
    const size_t first_value = b.graph().values.size();
    std::vector<ValueId> outs[2];
    ir::Region regions[2];
    for (int k = 0; k < 2; ++k) {
      b.begin_region({});
      auto lowered = lower_subgraph(cx, k == 0 ? *then_g : *else_g, {});
      if (lowered && !targets.empty())
        for (size_t i = 0; i < lowered->size() && i < targets.size(); ++i)
          (*lowered)[i] = retype(cx, (*lowered)[i], targets[i]);
      regions[k] = b.end_region(lowered ? *lowered : std::vector<ValueId>{});
      if (!lowered) return lowered.status();
      outs[k] = *lowered;
    }
    if (outs[0].size() != outs[1].size())
      return cx.invalid("If branches yield " + std::to_string(outs[0].size()) + " and " +
                        std::to_string(outs[1].size()) + " values");
    bool retyped = false;
    std::vector<ir::Type> joined;
    for (size_t i = 0; i < outs[0].size(); ++i) {
      const ir::Type t = cx.type(outs[0][i]), e = cx.type(outs[1][i]);
      if (!joinable_types(t, e))
        return cx.unsupported("If output " + std::to_string(i) + " is " + ir::type_to_string(t) +
                              " in then_branch and " + ir::type_to_string(e) + " in else_branch");
      joined.push_back(join_types(t, e));
      if (!t.is_tensor() && (t != joined.back() || e != joined.back())) retyped = true;
    }
    if (round == 0 && retyped) {
      targets = joined;
      for (size_t v = first_value; v < b.graph().values.size(); ++v) b.graph().values[v].onnx_name.clear();
      continue;
    }
    std::vector<ValueId> r = b.if_(cond, std::move(regions[0]), std::move(regions[1]));
    for (size_t i = 0; i < r.size(); ++i) cx.set_output(n, i, r[i]);
    return cx.error();
  }
  return cx.unsupported("If output types do not settle");
}

// ---- Loop --------------------------------------------------------------------------------------

// Loop-1..25: carried (i, cond, v...) from (0, cond or true, v_initial...); runs while
// (M absent or i < M) and cond; the body gets (i, cond, v...) and yields (cond', v'..., scan...).
// Without a cond input the body's cond output is ignored (ONNX: "for" loop). Scan outputs are
// stacked along a new axis 0.
Status lower_loop(LowerCtx& cx, const OnnxNode& n) {
  ir::Builder& b = cx.b;
  const onnx::OnnxGraph* body = graph_attr(n, "body");
  if (!body) return cx.invalid("Loop needs a body graph");
  if (n.inputs.size() < 2) return cx.invalid("Loop needs the M and cond inputs (possibly empty)");
  const size_t nv = n.inputs.size() - 2;
  if (body->inputs.size() != nv + 2 || body->outputs.size() < nv + 1)
    return cx.invalid("Loop body has " + std::to_string(body->inputs.size()) + " inputs and " +
                      std::to_string(body->outputs.size()) + " outputs for " + std::to_string(nv) +
                      " loop-carried values");
  const size_t nscan = body->outputs.size() - 1 - nv;
  const bool has_m = cx.has_input(n, 0), has_cond = cx.has_input(n, 1);
  PLUMB_ASSIGN_OR_RETURN(const ValueId m_in, cx.optional_input(n, 0));
  ValueId m = has_m ? as_scalar(cx, cx.b.cast(m_in, ir::DType::I64)) : ir::kNoValue;
  PLUMB_ASSIGN_OR_RETURN(const ValueId cond_in, cx.optional_input(n, 1));
  ValueId c0 = has_cond ? as_scalar(cx, cond_in) : b.const_ints(ir::DType::Bool, {}, {1});
  std::vector<ValueId> init = {i64_scalar(cx, 0), c0};
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> carried, cx.inputs(n, 2));
  init.insert(init.end(), carried.begin(), carried.end());
  PLUMB_RETURN_IF_ERROR(cx.error());
  CondFn cond_fn = [&](const std::vector<ValueId>& p) {
    if (!has_m) return p[1];
    ValueId below = b.compare(CK::Lt, p[0], m);
    return has_cond ? b.binary(BK::And, below, p[1]) : below;
  };
  BodyFn body_fn = [&](const std::vector<ValueId>& p) -> Expected<Iteration> {
    PLUMB_ASSIGN_OR_RETURN(auto outs, lower_subgraph(cx, *body, p));
    Iteration it;
    it.next.push_back(b.binary(BK::Add, p[0], i64_scalar(cx, 1)));
    it.next.push_back(has_cond ? as_scalar(cx, outs[0]) : p[1]);
    for (size_t k = 0; k < nv; ++k) it.next.push_back(outs[1 + k]);
    for (size_t k = 0; k < nscan; ++k) it.collect.push_back(outs[1 + nv + k]);
    return it;
  };
  PLUMB_ASSIGN_OR_RETURN(LoopResult r,
                         emit_loop(cx, init, std::vector<bool>(nscan, false), cond_fn, body_fn));
  for (size_t k = 0; k < nv; ++k) cx.set_output(n, k, r.carried[2 + k]);
  for (size_t k = 0; k < nscan; ++k)
    if (cx.wants_output(n, nv + k))
      cx.set_output(n, nv + k, stack_or_empty(cx, r.collected[k], r.collected_elem[k], 0));
  return cx.error();
}

// ---- Scan --------------------------------------------------------------------------------------

struct ScanSpec {
  std::vector<int64_t> in_axes, in_reverse, out_axes, out_reverse;
};

// One scan (Scan-9 semantics) over `xs` along their axes: carried (i, states...); iteration i reads
// x_j[.., t, ..] with t = i (forward) or T-1-i (reverse) and yields the body's states and scan
// values; scan outputs are stacked along their axes (reversed ones collected at the front).
Expected<std::vector<ValueId>> emit_scan(LowerCtx& cx, const onnx::OnnxGraph& body,
                                         const std::vector<ValueId>& states, const std::vector<ValueId>& xs,
                                         const ScanSpec& spec) {
  ir::Builder& b = cx.b;
  const size_t ns = states.size(), nx = xs.size();
  if (body.inputs.size() != ns + nx || body.outputs.size() < ns)
    return invalid_model("", "Scan body has " + std::to_string(body.inputs.size()) + " inputs and " +
                                 std::to_string(body.outputs.size()) + " outputs for " + std::to_string(ns) +
                                 " states and " + std::to_string(nx) + " scan inputs");
  const size_t ny = body.outputs.size() - ns;
  if (nx == 0) return invalid_model("", "Scan needs at least one scan input");
  ValueId steps = extent(cx, xs[0], spec.in_axes[0]);
  ValueId last = b.binary(BK::Sub, steps, i64_scalar(cx, 1));
  std::vector<ValueId> init = {i64_scalar(cx, 0)};
  init.insert(init.end(), states.begin(), states.end());
  CondFn cond_fn = [&](const std::vector<ValueId>& p) { return b.compare(CK::Lt, p[0], steps); };
  BodyFn body_fn = [&](const std::vector<ValueId>& p) -> Expected<Iteration> {
    std::vector<ValueId> args(p.begin() + 1, p.end());
    for (size_t j = 0; j < nx; ++j) {
      ValueId t = spec.in_reverse[j] ? b.binary(BK::Sub, last, p[0]) : p[0];
      args.push_back(cx.b.gather(ir::GatherKind::Axis, xs[j], t, spec.in_axes[j]));
    }
    PLUMB_ASSIGN_OR_RETURN(auto outs, lower_subgraph(cx, body, args));
    Iteration it;
    it.next.push_back(b.binary(BK::Add, p[0], i64_scalar(cx, 1)));
    for (size_t k = 0; k < ns; ++k) it.next.push_back(outs[k]);
    for (size_t k = 0; k < ny; ++k) it.collect.push_back(outs[ns + k]);
    return it;
  };
  std::vector<bool> prepend;
  for (size_t k = 0; k < ny; ++k) prepend.push_back(spec.out_reverse[k] != 0);
  PLUMB_ASSIGN_OR_RETURN(LoopResult r, emit_loop(cx, init, prepend, cond_fn, body_fn));
  std::vector<ValueId> results(r.carried.begin() + 1, r.carried.end());
  for (size_t k = 0; k < ny; ++k) {
    const int64_t rank = r.collected_elem[k].rank() + 1;
    int64_t axis = spec.out_axes[k];
    if (axis < -rank || axis >= rank)
      return invalid_model("", "scan_output_axes value " + std::to_string(axis) + " out of range");
    if (axis < 0) axis += rank;
    ValueId y = stack_or_empty(cx, r.collected[k], r.collected_elem[k], axis);
    // A scan runs exactly as many steps as its first scan input's axis has, so where that extent
    // and the body's value are static, so is the stacked output: said with a Reshape, since the
    // loop's collected sequence has a symbolic length and ops after the Scan (SpaceToDepth, Det,
    // ConvTranspose) need static dims (found by plumb gen, issue 22).
    const ir::Type xt = cx.type(xs[0]);
    const ir::Type& elem = r.collected_elem[k];
    bool known = xt.shape[static_cast<size_t>(spec.in_axes[0])].is_static();
    std::vector<int64_t> dims;
    for (const ir::Dim& d : elem.shape) known = known && d.is_static(), dims.push_back(d.size);
    if (known) {
      dims.insert(dims.begin() + axis, xt.shape[static_cast<size_t>(spec.in_axes[0])].size);
      y = b.reshape(y, b.shape_const(dims));
    }
    results.push_back(y);
  }
  return results;
}

Expected<std::vector<int64_t>> per_item_attr(const OnnxNode& n, const char* name, size_t count) {
  PLUMB_ASSIGN_OR_RETURN(std::vector<int64_t> v, n.attr_ints(name, std::vector<int64_t>(count, 0)));
  if (v.size() != count)
    return invalid_model("", std::string(name) + " has " + std::to_string(v.size()) + " values, expected " +
                                 std::to_string(count));
  return v;
}

// Scan-9..25: inputs (states..., scan inputs...), attributes scan_input_axes/directions,
// scan_output_axes/directions (negative axes allowed from opset 11).
Status lower_scan(LowerCtx& cx, const OnnxNode& n) {
  const onnx::OnnxGraph* body = graph_attr(n, "body");
  if (!body) return cx.invalid("Scan needs a body graph");
  if (!n.has_attr("num_scan_inputs")) return cx.invalid("Scan needs num_scan_inputs");
  PLUMB_ASSIGN_OR_RETURN(int64_t nx, n.attr_int("num_scan_inputs", 0));
  if (nx < 1 || static_cast<size_t>(nx) > n.inputs.size())
    return cx.invalid("Scan num_scan_inputs " + std::to_string(nx) + " out of range");
  const size_t ns = n.inputs.size() - static_cast<size_t>(nx);
  std::vector<ValueId> states, xs;
  for (size_t k = 0; k < n.inputs.size(); ++k) {
    PLUMB_ASSIGN_OR_RETURN(const ValueId v, cx.input(n, k));
    (k < ns ? states : xs).push_back(v);
  }
  PLUMB_RETURN_IF_ERROR(cx.error());
  const size_t ny = body->outputs.size() >= ns ? body->outputs.size() - ns : 0;
  ScanSpec spec;
  PLUMB_ASSIGN_OR_RETURN(spec.in_axes, per_item_attr(n, "scan_input_axes", xs.size()));
  PLUMB_ASSIGN_OR_RETURN(spec.in_reverse, per_item_attr(n, "scan_input_directions", xs.size()));
  PLUMB_ASSIGN_OR_RETURN(spec.out_axes, per_item_attr(n, "scan_output_axes", ny));
  PLUMB_ASSIGN_OR_RETURN(spec.out_reverse, per_item_attr(n, "scan_output_directions", ny));
  for (size_t j = 0; j < xs.size(); ++j) {
    PLUMB_ASSIGN_OR_RETURN(spec.in_axes[j],
                           normalize_axis(cx, spec.in_axes[j], rank_of(cx, xs[j]), "scan_input_axes"));
    PLUMB_RETURN_IF_ERROR(cx.error());
  }
  PLUMB_ASSIGN_OR_RETURN(auto results, emit_scan(cx, *body, states, xs, spec));
  for (size_t k = 0; k < results.size(); ++k) cx.set_output(n, k, results[k]);
  return cx.error();
}

// Scan-8: every input has a leading batch axis (scan inputs [batch, seq, ...]); the body sees one
// batch entry. Lowered as a while over the batch whose body is the Scan-9 lowering of that entry,
// final states and scan outputs stacked along axis 0. sequence_lens is supported when it is absent
// or a constant equal to the full sequence length for every entry.
Status lower_scan8(LowerCtx& cx, const OnnxNode& n) {
  ir::Builder& b = cx.b;
  const onnx::OnnxGraph* body = graph_attr(n, "body");
  if (!body) return cx.invalid("Scan needs a body graph");
  if (!n.has_attr("num_scan_inputs")) return cx.invalid("Scan needs num_scan_inputs");
  PLUMB_ASSIGN_OR_RETURN(int64_t nx, n.attr_int("num_scan_inputs", 0));
  if (n.inputs.empty() || nx < 1 || static_cast<size_t>(nx) > n.inputs.size() - 1)
    return cx.invalid("Scan num_scan_inputs " + std::to_string(nx) + " out of range");
  const size_t ns = n.inputs.size() - 1 - static_cast<size_t>(nx);
  std::vector<ValueId> states, xs;
  for (size_t k = 1; k < n.inputs.size(); ++k) {
    PLUMB_ASSIGN_OR_RETURN(const ValueId v, cx.input(n, k));
    (k <= ns ? states : xs).push_back(v);
  }
  PLUMB_RETURN_IF_ERROR(cx.error());
  for (ValueId x : xs)
    if (rank_of(cx, x) < 2) return cx.invalid("Scan-8 scan inputs need [batch, sequence, ...] dims");
  for (ValueId s : states)
    if (rank_of(cx, s) < 1) return cx.invalid("Scan-8 states need a batch dim");
  if (cx.has_input(n, 0)) {
    auto lens = cx.const_ints(n, 0);
    const ir::Type x0 = cx.type(xs[0]);
    bool full = lens && x0.shape[1].is_static();
    if (full)
      for (int64_t l : *lens) full = full && l == x0.shape[1].size;
    if (!full) return cx.unsupported("Scan-8 sequence_lens shorter than the sequence (or not a constant)");
  }
  const size_t ny = body->outputs.size() >= ns ? body->outputs.size() - ns : 0;
  ScanSpec spec;
  PLUMB_ASSIGN_OR_RETURN(spec.in_reverse, per_item_attr(n, "directions", xs.size()));
  spec.in_axes.assign(xs.size(), 0);
  spec.out_axes.assign(ny, 0);
  spec.out_reverse.assign(ny, 0);
  ValueId batch = extent(cx, xs[0], 0);
  CondFn cond_fn = [&](const std::vector<ValueId>& p) { return b.compare(CK::Lt, p[0], batch); };
  BodyFn body_fn = [&](const std::vector<ValueId>& p) -> Expected<Iteration> {
    std::vector<ValueId> st, x;
    for (ValueId s : states) st.push_back(cx.b.gather(ir::GatherKind::Axis, s, p[0], 0));
    for (ValueId v : xs) x.push_back(cx.b.gather(ir::GatherKind::Axis, v, p[0], 0));
    PLUMB_ASSIGN_OR_RETURN(auto res, emit_scan(cx, *body, st, x, spec));
    Iteration it;
    it.next.push_back(b.binary(BK::Add, p[0], i64_scalar(cx, 1)));
    it.collect = res;
    return it;
  };
  PLUMB_ASSIGN_OR_RETURN(
      LoopResult r, emit_loop(cx, {i64_scalar(cx, 0)}, std::vector<bool>(ns + ny, false), cond_fn, body_fn));
  for (size_t k = 0; k < ns + ny; ++k)
    if (cx.wants_output(n, k))
      cx.set_output(n, k, stack_or_empty(cx, r.collected[k], r.collected_elem[k], 0));
  return cx.error();
}

// ---- SequenceMap -------------------------------------------------------------------------------

// SequenceMap-17: for i < length(input_sequence), runs the body on element i of every sequence
// input (tensor inputs as they are) and appends each body output to the matching output sequence.
Status lower_sequence_map(LowerCtx& cx, const OnnxNode& n) {
  ir::Builder& b = cx.b;
  const onnx::OnnxGraph* body = graph_attr(n, "body");
  if (!body) return cx.invalid("SequenceMap needs a body graph");
  PLUMB_ASSIGN_OR_RETURN(const std::vector<ValueId> ins, cx.inputs(n));
  PLUMB_RETURN_IF_ERROR(cx.error());
  if (ins.empty() || cx.type(ins[0]).kind != ir::TypeKind::Sequence)
    return cx.invalid("SequenceMap needs a sequence as its first input");
  const ir::Type e0 = *cx.type(ins[0]).elem;
  ValueId count = dynamic_result(cx, [&] { return seq_op(cx, SK::Length, {ins[0]}, e0); });
  CondFn cond_fn = [&](const std::vector<ValueId>& p) { return b.compare(CK::Lt, p[0], count); };
  BodyFn body_fn = [&](const std::vector<ValueId>& p) -> Expected<Iteration> {
    std::vector<ValueId> args;
    for (ValueId v : ins) {
      const ir::Type t = cx.type(v);
      args.push_back(t.kind == ir::TypeKind::Sequence ? seq_op(cx, SK::At, {v, p[0]}, *t.elem) : v);
    }
    PLUMB_ASSIGN_OR_RETURN(auto outs, lower_subgraph(cx, *body, args));
    Iteration it;
    it.next.push_back(b.binary(BK::Add, p[0], i64_scalar(cx, 1)));
    it.collect = outs;
    return it;
  };
  PLUMB_ASSIGN_OR_RETURN(
      LoopResult r,
      emit_loop(cx, {i64_scalar(cx, 0)}, std::vector<bool>(body->outputs.size(), false), cond_fn, body_fn));
  for (size_t k = 0; k < r.collected.size(); ++k) cx.set_output(n, k, r.collected[k]);
  return cx.error();
}

}  // namespace

void register_control(Registry& r) {
  // A table: its rows packed, several to a line.
  // clang-format off
  r.add_since({
      {"If", 1, lower_if}, {"Loop", 1, lower_loop}, {"Scan", 9, lower_scan},
      {"SequenceMap", 17, lower_sequence_map}});
  // clang-format on
  r.add("Scan", {8, 8}, lower_scan8);
}

}  // namespace plumb::lower
