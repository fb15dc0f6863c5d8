#include "runtime/plan.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <type_traits>

#include "ir/attrs.h"
#include "ir/fold.h"
#include "ir/infer.h"
#include "runtime/cpu/ref/dispatch.h"
#include "runtime/cpu/ref/kernel.h"

namespace plumb::rt {
namespace {

constexpr int64_t kAlign = 64;

std::string input_label(const ir::Graph& g, size_t k) {
  if (k < g.input_names.size() && !g.input_names[k].empty()) return "input '" + g.input_names[k] + "'";
  return "input #" + std::to_string(k);
}

Status input_mismatch(const ir::Graph& g, size_t k, const ir::Type& expected, const ir::Type& actual,
                      const std::string& why) {
  return invalid_input(input_label(g, k) + ": expected " + ir::type_to_string(expected) + ", got " +
                       ir::type_to_string(actual) + (why.empty() ? "" : " (" + why + ")"));
}

bool is_static_tensor(const ir::Type& t) { return t.is_tensor() && t.ranked && ir::shape_is_static(t.shape); }

// Every value a node reads, including the outer values its regions read, is read at `at`.
void mark_uses(const ir::Node& n, int64_t at, std::vector<ValuePlan>& vp) {
  for (ir::ValueId v : n.inputs)
    if (v < vp.size()) vp[v].last_use = std::max(vp[v].last_use, at);
  for (const ir::Region& r : n.regions) {
    for (const ir::Node& m : r.nodes) mark_uses(m, at, vp);
    for (ir::ValueId v : r.results)
      if (v < vp.size()) vp[v].last_use = std::max(vp[v].last_use, at);
  }
}

Status fill_ints(Tensor& t, const std::vector<int64_t>& v) {
  Status st;
  visit_dtype(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      for (size_t i = 0; i < v.size(); ++i) t.as<T>()[i] = static_cast<T>(v[i]);
    } else {
      st = internal_error("shape_of: result dtype is not an integer type");
    }
  });
  return st;
}

std::vector<int64_t> dims_of(const ir::Type& t) {
  std::vector<int64_t> d;
  d.reserve(t.shape.size());
  for (const ir::Dim& x : t.shape) d.push_back(x.size);
  return d;
}

}  // namespace

Expected<int64_t> layout_arena(std::vector<ArenaBuffer>& bufs, int64_t max_bytes) {
  std::vector<size_t> order(bufs.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const ArenaBuffer& a = bufs[x];
    const ArenaBuffer& b = bufs[y];
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.start != b.start) return a.start < b.start;
    return a.id < b.id;
  });
  struct Placed {
    int64_t offset, size, start, end;
  };
  std::vector<Placed> placed;
  int64_t arena = 0;
  for (size_t k : order) {
    ArenaBuffer& b = bufs[k];
    if (b.bytes < 0 || b.bytes > max_bytes)
      return invalid_input(
          strfmt("arena would need more than the limit of %lld bytes", (long long)max_bytes));
    const int64_t size = (b.bytes + kAlign - 1) / kAlign * kAlign;  // b.bytes <= max_bytes: no overflow
    std::vector<const Placed*> live;
    for (const Placed& p : placed)
      if (p.start <= b.end && b.start <= p.end) live.push_back(&p);
    std::sort(live.begin(), live.end(),
              [](const Placed* x, const Placed* y) { return x->offset < y->offset; });
    int64_t off = 0;
    for (const Placed* p : live) {
      if (p->size == 0) continue;
      if (off + size <= p->offset) break;
      off = std::max(off, p->offset + p->size);
    }
    if (off > max_bytes - size)
      return invalid_input(
          strfmt("arena would need more than the limit of %lld bytes", (long long)max_bytes));
    placed.push_back(Placed{off, size, b.start, b.end});
    b.offset = off;
    arena = std::max(arena, off + size);
  }
  return arena;
}

bool int_values(const Tensor& t, std::vector<int64_t>& out) {
  if (!ir::is_int(t.dtype) || t.numel() > ir::kMaxKnownValues) return false;
  out.clear();
  bool ok = true;
  visit_dtype(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      for (int64_t i = 0; i < t.numel(); ++i) {
        const T x = t.as<T>()[i];
        if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8)
          if (x > static_cast<uint64_t>(INT64_MAX)) ok = false;
        out.push_back(static_cast<int64_t>(x));
      }
    } else {
      ok = false;
    }
  });
  return ok;
}

Expected<int64_t> tensor_bytes(const ir::Type& t, int64_t max_bytes) {
  if (!is_static_tensor(t))
    return internal_error("tensor_bytes: type " + ir::type_to_string(t) + " is not static");
  const int64_t n = ir::shape_num_elements(t.shape);
  const int64_t eb =
      t.dtype == ir::DType::String ? static_cast<int64_t>(sizeof(std::string)) : runtime_elem_bytes(t.dtype);
  if (n < 0 || (eb > 0 && n > max_bytes / eb))
    return invalid_input(strfmt("a tensor of type %s needs more than the limit of %lld bytes",
                                ir::type_to_string(t).c_str(), (long long)max_bytes));
  return n * eb;
}

Status check_inputs(const ir::Graph& g, const std::vector<ir::Type>& actual, bool allow_float_widening) {
  const auto& params = g.body.params;
  if (actual.size() != params.size())
    return invalid_input(strfmt("the graph has %zu inputs, %zu were given", params.size(), actual.size()));
  std::map<std::string, std::pair<int64_t, size_t>> sym;  // name -> (size, input that set it)
  for (size_t k = 0; k < params.size(); ++k) {
    if (params[k] >= g.values.size()) return internal_error("graph input value id out of range");
    const ir::Type& want = g.type_of(params[k]);
    const ir::Type& got = actual[k];
    if (got.kind != want.kind) return input_mismatch(g, k, want, got, "");
    if (!want.is_tensor()) {
      if (want.dtype != got.dtype) return input_mismatch(g, k, want, got, "");
      continue;
    }
    if (!is_static_tensor(got))
      return input_mismatch(g, k, want, got, "an input tensor needs a static shape");
    const bool widen = allow_float_widening && want.dtype == ir::DType::F64 && ir::is_float(got.dtype);
    if (got.dtype != want.dtype && !widen) return input_mismatch(g, k, want, got, "dtype differs");
    if (!want.ranked) continue;
    if (got.rank() != want.rank()) return input_mismatch(g, k, want, got, "rank differs");
    for (size_t d = 0; d < want.shape.size(); ++d) {
      const ir::Dim& w = want.shape[d];
      const int64_t size = got.shape[d].size;
      if (w.is_static() && w.size != size)
        return input_mismatch(g, k, want, got,
                              strfmt("dim %zu is %lld, not %lld", d, (long long)size, (long long)w.size));
      if (!w.is_static() && !w.sym.empty()) {
        auto it = sym.find(w.sym);
        if (it == sym.end()) {
          sym.emplace(w.sym, std::make_pair(size, k));
        } else if (it->second.first != size) {
          return input_mismatch(
              g, k, want, got,
              strfmt("dim %zu is %s = %lld, but %s has %s = %lld", d, w.sym.c_str(), (long long)size,
                     input_label(g, it->second.second).c_str(), w.sym.c_str(), (long long)it->second.first));
        }
      }
    }
  }
  return Status::ok();
}

Expected<Tensor> constant_tensor(const ir::ConstantData& c) {
  const ir::Type& t = c.type;
  if (!is_static_tensor(t))
    return invalid_model("", "constant type " + ir::type_to_string(t) + " is not static");
  const int64_t n = ir::shape_num_elements(t.shape);
  if (n < 0) return invalid_model("", "constant type " + ir::type_to_string(t) + " is too large");
  const std::vector<int64_t> shape = dims_of(t);
  if (c.size > 0 && c.data == nullptr) return invalid_model("", "constant has no data");
  if (t.dtype == ir::DType::String) {
    Tensor out = Tensor::allocate(t.dtype, shape);
    uint64_t pos = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (c.size - pos < 4) return invalid_model("constant.C3", "string constant is truncated");
      uint32_t len = 0;
      for (int b = 0; b < 4; ++b) len |= static_cast<uint32_t>(c.data[pos + b]) << (8 * b);
      pos += 4;
      if (c.size - pos < len) return invalid_model("constant.C3", "string constant is truncated");
      out.strings()[i].assign(reinterpret_cast<const char*>(c.data + pos), len);
      pos += len;
    }
    if (pos != c.size)
      return invalid_model("constant.C3", "string constant has bytes after its last element");
    return out;
  }
  const uint64_t want = ir::dtype_storage_bytes(t.dtype, static_cast<uint64_t>(n));
  if (c.size != want)
    return invalid_model(
        "", strfmt("constant of type %s has %llu bytes, needs %llu", ir::type_to_string(t).c_str(),
                   (unsigned long long)c.size, (unsigned long long)want));
  if (ir::is_packed(t.dtype)) {
    const int bits = ir::dtype_bits(t.dtype);
    const unsigned mask = (1u << bits) - 1;
    const bool sign = ir::is_signed_int(t.dtype);
    Tensor out = Tensor::allocate(t.dtype, shape);
    auto* dst = out.as<uint8_t>();
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t bit = static_cast<uint64_t>(i) * bits;
      unsigned x = (c.data[bit / 8] >> (bit % 8)) & mask;
      if (sign && (x >> (bits - 1))) x |= ~mask & 0xFFu;  // sign-extend to the byte
      dst[i] = static_cast<uint8_t>(x);
    }
    return out;
  }
  const int64_t eb = runtime_elem_bytes(t.dtype);
  if (eb > 1 && reinterpret_cast<uintptr_t>(c.data) % static_cast<uintptr_t>(eb) != 0) {
    Tensor out = Tensor::allocate(t.dtype, shape);
    if (c.size) std::memcpy(out.data, c.data, c.size);
    return out;
  }
  Tensor out;
  out.dtype = t.dtype;
  out.shape = shape;
  // A view: kernels never write their inputs.
  out.data = const_cast<uint8_t*>(c.data);
  out.storage = std::shared_ptr<void>(c.owner, out.data);
  return out;
}

Expected<Plan> make_plan(const ir::Graph& g, const std::vector<ir::Type>& input_types,
                         const PlanOptions& options) {
  PLUMB_RETURN_IF_ERROR(check_inputs(g, input_types, options.mode == NumericMode::kPrecise));
  const ir::Region& body = g.body;
  const int64_t num_nodes = static_cast<int64_t>(body.nodes.size());
  Plan p;
  p.input_types = input_types;
  p.values.resize(g.values.size());
  p.known.resize(g.values.size());
  p.node_skip.assign(body.nodes.size(), 0);
  p.node_dynamic.assign(body.nodes.size(), 0);
  p.release_after.resize(body.nodes.size());

  for (int64_t i = 0; i < num_nodes; ++i) mark_uses(body.nodes[i], i, p.values);
  for (ir::ValueId v : body.results) {
    if (v >= g.values.size()) return internal_error("graph output value id out of range");
    p.values[v].last_use = num_nodes;
  }

  std::vector<ArenaBuffer> bufs;
  for (size_t k = 0; k < body.params.size(); ++k) {
    ValuePlan& vp = p.values[body.params[k]];
    vp.def = -1;
    vp.type = input_types[k];
    if (vp.type.is_tensor() && vp.type.dtype != g.type_of(body.params[k]).dtype) {
      vp.type.dtype = ir::DType::F64;  // precise mode: widened into the arena
      vp.storage = Storage::kInputArena;
      PLUMB_ASSIGN_OR_RETURN(vp.bytes, tensor_bytes(vp.type, options.max_bytes));
      bufs.push_back(ArenaBuffer{body.params[k], vp.bytes, -1, std::max<int64_t>(vp.last_use, -1)});
    } else {
      vp.storage = Storage::kInput;
      if (vp.type.is_tensor() && vp.type.dtype != ir::DType::String) {
        auto bytes = tensor_bytes(vp.type, options.max_bytes);  // a shape whose size overflows
        if (!bytes) return bytes.status();
      }
    }
  }

  int64_t preorder = 0;
  std::vector<int64_t> node_index(body.nodes.size());  // pre-order index, for error places
  std::vector<ir::Type> in_types;
  std::vector<std::vector<int64_t>> in_values;
  std::vector<ir::Operand> operands;
  for (int64_t i = 0; i < num_nodes; ++i) {
    const ir::Node& n = body.nodes[i];
    const int64_t index = preorder;
    node_index[i] = index;
    preorder += ir::preorder_size(n);
    auto place = [&] { return ir::node_place(n, index); };
    for (ir::ValueId v : n.inputs)
      if (v >= g.values.size() || p.values[v].storage == Storage::kNone)
        return internal_error("value %" + std::to_string(v) + " used before it is defined")
            .with_place(place());
    for (ir::ValueId v : n.outputs) {
      if (v >= g.values.size()) return internal_error("result value id out of range").with_place(place());
      p.values[v].def = i;
    }

    if (n.op == ir::Op::Constant) {
      const uint32_t ci = ir::attrs<ir::Op::Constant>(n).value.index;
      if (ci >= g.constants.size() || n.outputs.size() != 1)
        return invalid_model("", "constant index out of range").with_place(place());
      const bool decoded = options.constants && ci < options.constants->size() && (*options.constants)[ci];
      auto t = decoded ? Expected<Tensor>(*(*options.constants)[ci]) : constant_tensor(g.constants[ci]);
      if (!t) return t.status().with_place(place());
      ValuePlan& vp = p.values[n.outputs[0]];
      vp.storage = Storage::kConstant;
      vp.type = g.constants[ci].type;
      p.known[n.outputs[0]] = std::move(*t);
      p.node_skip[i] = 1;
      continue;
    }
    if (n.op == ir::Op::If || n.op == ir::Op::While) {
      for (ir::ValueId v : n.outputs) {
        p.values[v].storage = Storage::kDynamic;
        p.values[v].type = g.type_of(v);
      }
      p.node_dynamic[i] = 1;
      continue;
    }

    // Operand types and, where known, integer contents.
    const size_t nin = n.inputs.size();
    in_types.assign(nin, ir::Type());
    in_values.assign(nin, {});
    operands.assign(nin, ir::Operand{});
    bool all_static = true, ints_known = true, all_known = true;
    for (size_t k = 0; k < nin; ++k) {
      const ir::ValueId v = n.inputs[k];
      in_types[k] = p.values[v].type;
      operands[k].type = &in_types[k];
      const Storage s = p.values[v].storage;
      const bool known = s == Storage::kConstant || s == Storage::kFolded;
      all_known = all_known && known;
      if (!is_static_tensor(in_types[k])) all_static = false;
      if (in_types[k].is_tensor() && ir::is_int(in_types[k].dtype)) {
        if (known && int_values(p.known[v].tensor(), in_values[k]))
          operands[k].values = &in_values[k];
        else
          ints_known = false;
      }
    }
    const bool at_runtime = all_static && ints_known;
    ir::InferCtx cx{n, operands, g, at_runtime};
    auto inferred = ir::infer_types(cx);
    std::vector<ir::Type> types;
    if (inferred) {
      types = std::move(*inferred);
      if (types.size() != n.outputs.size())
        return internal_error("inference returned the wrong number of results").with_place(place());
      for (size_t k = 0; k < types.size(); ++k)
        if (!ir::type_refines(types[k], g.type_of(n.outputs[k])) &&
            ir::type_refines(g.type_of(n.outputs[k]), types[k]))
          types[k] = g.type_of(n.outputs[k]);  // inference knew less than the declaration
        else if (!ir::type_refines(types[k], g.type_of(n.outputs[k])))
          return invalid_input("result type " + ir::type_to_string(types[k]) +
                               " does not match the declared " + ir::type_to_string(g.type_of(n.outputs[k])) +
                               " for these inputs")
              .with_place(place());
    } else if (inferred.status().code() == ErrorCode::kUnsupported) {
      for (ir::ValueId v : n.outputs) types.push_back(g.type_of(v));  // known only when it runs
    } else {
      return inferred.status().with_place(place());
    }

    bool outs_static = true;
    for (const ir::Type& t : types)
      if (!is_static_tensor(t) || t.dtype == ir::DType::String) outs_static = false;
    for (size_t k = 0; k < types.size(); ++k) p.values[n.outputs[k]].type = types[k];

    // Fold: every operand known (or shape_of of a static operand: ir/fold.h), and a node that
    // ir::may_fold lets a plan fold (FoldScope::kPlan: per plan, in run-time layout, results of at
    // most kMaxKnownValues elements).
    const std::optional<std::vector<int64_t>> shape_dims =
        n.op == ir::Op::ShapeOf && nin == 1 ? ir::static_shape_dims(in_types[0]) : std::nullopt;
    const bool shape_of = shape_dims.has_value();
    if (options.fold && at_runtime && (all_known || shape_of) &&
        ir::may_fold(n, types, ir::FoldScope::kPlan, ir::kMaxKnownValues)) {
      std::vector<RtValue> outs;
      for (const ir::Type& t : types) outs.emplace_back(Tensor::allocate(t.dtype, dims_of(t)));
      Status st;
      if (shape_of) {
        st = fill_ints(outs[0].tensor(), *shape_dims);
      } else {
        ref::KernelCtx kc{n, {}, {}, options.mode};
        for (ir::ValueId v : n.inputs) kc.inputs.push_back(&p.known[v]);
        for (RtValue& o : outs) kc.outputs.push_back(&o);
        st = ref::run_kernel(kc);
        for (size_t k = 0; st.is_ok() && k < outs.size(); ++k)
          if (!outs[k].is_tensor() || ir::Type(type_of(outs[k])) != types[k])
            st = internal_error("kernel replaced its preallocated result");
      }
      if (st.is_ok()) {
        for (size_t k = 0; k < outs.size(); ++k) {
          p.values[n.outputs[k]].storage = Storage::kFolded;
          p.known[n.outputs[k]] = std::move(outs[k]);
        }
        p.node_skip[i] = 1;
        continue;
      }
      // Not folded: the node runs (and reports its error) when the graph runs.
    }
    if (outs_static) {
      for (ir::ValueId v : n.outputs) {
        ValuePlan& vp = p.values[v];
        vp.storage = Storage::kArena;
        auto bytes = tensor_bytes(vp.type, options.max_bytes);
        if (!bytes) return bytes.status().with_place(place());
        vp.bytes = *bytes;
        bufs.push_back(ArenaBuffer{v, vp.bytes, i, std::max(vp.last_use, i)});
      }
    } else {
      p.node_dynamic[i] = 1;
      for (ir::ValueId v : n.outputs) p.values[v].storage = Storage::kDynamic;
    }
  }

  for (const ArenaBuffer& b : bufs) p.total_buffer_bytes += b.bytes;
  PLUMB_ASSIGN_OR_RETURN(p.arena_bytes, layout_arena(bufs, options.max_bytes));
  if (options.memory && p.arena_bytes > options.memory->left()) {
    // Name the node whose result ends the arena (the first such in node order; a graph input
    // widened into the arena when no node's result does).
    const ArenaBuffer* last = nullptr;
    for (const ArenaBuffer& b : bufs) {
      const int64_t end = b.offset + b.bytes, def = p.values[b.id].def;
      const int64_t last_end = last ? last->offset + last->bytes : -1;
      const int64_t last_def = last ? p.values[last->id].def : -1;
      if (end > last_end || (end == last_end && def >= 0 && (last_def < 0 || def < last_def))) last = &b;
    }
    Status refused = options.memory->refuse(p.arena_bytes, "the plan's arena");
    const int64_t def = last ? p.values[last->id].def : -1;
    if (def >= 0) return refused.with_place(ir::node_place(body.nodes[def], node_index[def]));
    for (size_t k = 0; last && k < body.params.size(); ++k)
      if (body.params[k] == last->id) return refused.with_place(input_label(g, k));
    return refused;
  }
  for (const ArenaBuffer& b : bufs) p.values[b.id].offset = b.offset;
  for (size_t v = 0; v < p.values.size(); ++v) {
    const ValuePlan& vp = p.values[v];
    if (vp.storage != Storage::kDynamic || vp.def < 0 || vp.last_use >= num_nodes) continue;
    p.release_after[std::max(vp.last_use, vp.def)].push_back(static_cast<ir::ValueId>(v));
  }
  return p;
}

}  // namespace plumb::rt
