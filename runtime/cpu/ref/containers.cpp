// ref kernels of the container ops: sequence, optional, map (spec/ops/{sequence,optional,map}.md).
// Containers own deep copies of their tensors (on the heap): a tensor produced into the plan's
// arena may be overwritten once its value is dead, while a sequence holding it lives on.
#include <cstring>
#include <set>

#include "runtime/cpu/ref/kernel.h"

namespace plumb::rt::ref {

namespace {

// Copies `count` elements from src (starting at element src_off) to dst (at dst_off).
void copy_elements(Tensor& dst, int64_t dst_off, const Tensor& src, int64_t src_off, int64_t count) {
  if (count <= 0) return;
  if (src.dtype == ir::DType::String) {
    for (int64_t i = 0; i < count; ++i) dst.strings()[dst_off + i] = src.strings()[src_off + i];
    return;
  }
  const int64_t eb = runtime_elem_bytes(src.dtype);
  std::memcpy(static_cast<uint8_t*>(dst.data) + dst_off * eb,
              static_cast<const uint8_t*>(src.data) + src_off * eb, static_cast<size_t>(count * eb));
}

Tensor deep_copy(const Tensor& t) {
  Tensor c = Tensor::allocate(t.dtype, t.shape);
  copy_elements(c, 0, t, 0, t.numel());
  return c;
}

RtValue deep_copy(const RtValue& v) {
  if (v.is_tensor()) return deep_copy(v.tensor());
  if (const auto* s = std::get_if<SequenceValue>(&v)) {
    SequenceValue c{s->elem_type, {}, {}};
    for (const Tensor& t : s->items) c.items.push_back(deep_copy(t));
    for (const MapValue& m : s->maps) c.maps.push_back(std::get<MapValue>(deep_copy(RtValue(m))));
    return c;
  }
  if (const auto* o = std::get_if<OptionalValue>(&v)) {
    OptionalValue c{o->elem_type, nullptr};
    if (o->value) c.value = std::make_shared<RtValue>(deep_copy(*o->value));
    return c;
  }
  const auto& m = std::get<MapValue>(v);
  return MapValue{deep_copy(m.keys), deep_copy(m.values)};
}

// Stores a tensor result. When the executor preallocated the result (its type was static after
// inference: kernel.h), the elements go into that buffer, which the executor expects to keep;
// otherwise the slot takes the new tensor.
Status put_tensor(RtValue* out, Tensor t) {
  if (out->is_tensor() && out->tensor().data != nullptr) {
    Tensor& dst = out->tensor();
    if (dst.dtype != t.dtype || dst.shape != t.shape)
      return internal_error("container result " + ir::shape_to_string(ir::static_shape(t.shape)) +
                            " does not fit its preallocated type " +
                            ir::shape_to_string(ir::static_shape(dst.shape)));
    copy_elements(dst, 0, t, 0, t.numel());
    return Status::ok();
  }
  *out = std::move(t);
  return Status::ok();
}

int64_t scalar_i64(const RtValue* v) { return v->tensor().as<int64_t>()[0]; }

int64_t prod(const std::vector<int64_t>& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to; ++i) p *= s[i];
  return p;
}

std::string shape_str(const std::vector<int64_t>& s) { return ir::shape_to_string(ir::static_shape(s)); }

// sequence concat (stack=false) / stack (stack=true) along axis.
Status join_items(const SequenceValue& seq, int64_t axis, bool stack, RtValue* out) {
  if (seq.items.empty())
    return runtime_error("sequence.R3", stack ? "stack of an empty sequence" : "concat of an empty sequence");
  const Tensor& first = seq.items[0];
  std::vector<int64_t> shape = first.shape;
  for (size_t i = 1; i < seq.items.size(); ++i) {
    const auto& s = seq.items[i].shape;
    bool ok = s.size() == first.shape.size();
    for (size_t d = 0; ok && d < s.size(); ++d) ok = s[d] == first.shape[d] || (!stack && d == size_t(axis));
    if (!ok)
      return runtime_error("sequence.R4", "element " + std::to_string(i) + " has shape " + shape_str(s) +
                                              ", which does not fit element 0's " + shape_str(first.shape));
    if (!stack) shape[axis] += s[axis];
  }
  if (stack) shape.insert(shape.begin() + axis, static_cast<int64_t>(seq.items.size()));
  Tensor result = Tensor::allocate(first.dtype, shape);
  // Each item contributes, per outer index, a contiguous run of `run` elements.
  const int64_t outer = prod(first.shape, 0, static_cast<size_t>(axis));
  const int64_t result_row = prod(shape, static_cast<size_t>(axis), shape.size());
  int64_t col = 0;
  for (const Tensor& item : seq.items) {
    const int64_t run = prod(item.shape, static_cast<size_t>(axis), item.shape.size());
    for (int64_t o = 0; o < outer; ++o) copy_elements(result, o * result_row + col, item, o * run, run);
    col += run;
  }
  return put_tensor(out, std::move(result));
  return Status::ok();
}

Status split_tensor(const Tensor& t, const Tensor& sizes, int64_t axis, const ir::Type& elem, RtValue* out) {
  const int64_t k = sizes.numel();
  const int64_t* sz = sizes.as<int64_t>();
  int64_t total = 0;
  for (int64_t j = 0; j < k; ++j) {
    if (sz[j] < 0)
      return runtime_error("sequence.R5", strfmt("split size %lld is negative", (long long)sz[j]));
    total += sz[j];
    if (total > t.shape[axis]) break;
  }
  if (total != t.shape[axis])
    return runtime_error("sequence.R5", strfmt("split sizes sum to %lld, the dim is %lld", (long long)total,
                                               (long long)t.shape[axis]));
  SequenceValue seq{elem, {}, {}};
  const int64_t outer = prod(t.shape, 0, static_cast<size_t>(axis));
  const int64_t inner = prod(t.shape, static_cast<size_t>(axis) + 1, t.shape.size());
  const int64_t row = t.shape[axis] * inner;
  int64_t offset = 0;
  for (int64_t j = 0; j < k; ++j) {
    std::vector<int64_t> shape = t.shape;
    shape[axis] = sz[j];
    Tensor piece = Tensor::allocate(t.dtype, shape);
    for (int64_t o = 0; o < outer; ++o)
      copy_elements(piece, o * sz[j] * inner, t, o * row + offset * inner, sz[j] * inner);
    offset += sz[j];
    seq.items.push_back(std::move(piece));
  }
  *out = std::move(seq);
  return Status::ok();
}

}  // namespace

// spec/ops/sequence.md
template <>
Status kernel<ir::Op::Sequence>(KernelCtx& cx) {
  const ir::Node& n = cx.node;
  const ir::Type& elem = ir::attrs<ir::Op::Sequence>(n).elem;
  const int64_t axis = ir::attrs<ir::Op::Sequence>(n).axis;
  RtValue* out = cx.outputs[0];
  auto seq_in = [&]() -> const SequenceValue& { return std::get<SequenceValue>(*cx.inputs[0]); };
  // Map elements (sequence.C2) live in `maps`; the kinds that reach them only move whole elements.
  const bool of_maps = elem.kind == ir::TypeKind::Map;
  auto length = [&](const SequenceValue& s) {
    return static_cast<int64_t>(of_maps ? s.maps.size() : s.items.size());
  };
  auto map_copy = [](const RtValue& v) { return std::get<MapValue>(deep_copy(v)); };
  switch (ir::attrs<ir::Op::Sequence>(n).kind) {
    case ir::SequenceKind::Empty: *out = SequenceValue{elem, {}, {}}; return Status::ok();
    case ir::SequenceKind::Construct: {
      SequenceValue s{elem, {}, {}};
      for (const RtValue* v : cx.inputs) {
        if (of_maps)
          s.maps.push_back(map_copy(*v));
        else
          s.items.push_back(deep_copy(v->tensor()));
      }
      *out = std::move(s);
      return Status::ok();
    }
    case ir::SequenceKind::Insert: {
      const SequenceValue& s = seq_in();
      const int64_t pos = scalar_i64(cx.inputs[2]);
      const int64_t len = length(s);
      if (pos < 0 || pos > len)
        return runtime_error(
            "sequence.R1", strfmt("insert position %lld outside [0, %lld]", (long long)pos, (long long)len));
      SequenceValue r = std::get<SequenceValue>(deep_copy(RtValue(s)));
      if (of_maps)
        r.maps.insert(r.maps.begin() + pos, map_copy(*cx.inputs[1]));
      else
        r.items.insert(r.items.begin() + pos, deep_copy(cx.inputs[1]->tensor()));
      *out = std::move(r);
      return Status::ok();
    }
    case ir::SequenceKind::At:
    case ir::SequenceKind::Erase: {
      const SequenceValue& s = seq_in();
      const int64_t pos = scalar_i64(cx.inputs[1]);
      const int64_t len = length(s);
      if (pos < 0 || pos >= len)
        return runtime_error("sequence.R2",
                             strfmt("position %lld outside [0, %lld)", (long long)pos, (long long)len));
      if (ir::attrs<ir::Op::Sequence>(n).kind == ir::SequenceKind::At) {
        if (of_maps) {
          *out = deep_copy(RtValue(s.maps[pos]));
          return Status::ok();
        }
        return put_tensor(out, deep_copy(s.items[pos]));
      }
      SequenceValue r = std::get<SequenceValue>(deep_copy(RtValue(s)));
      if (of_maps)
        r.maps.erase(r.maps.begin() + pos);
      else
        r.items.erase(r.items.begin() + pos);
      *out = std::move(r);
      return Status::ok();
    }
    case ir::SequenceKind::Length: {
      Tensor t = Tensor::allocate(ir::DType::I64, {});
      t.as<int64_t>()[0] = length(seq_in());
      return put_tensor(out, std::move(t));
    }
    case ir::SequenceKind::ConcatAxis: return join_items(seq_in(), axis, false, out);
    case ir::SequenceKind::StackAxis: return join_items(seq_in(), axis, true, out);
    case ir::SequenceKind::Split:
      return split_tensor(cx.inputs[0]->tensor(), cx.inputs[1]->tensor(), axis, elem, out);
  }
  return internal_error("sequence: unknown kind");
}

// spec/ops/optional.md
template <>
Status kernel<ir::Op::Optional>(KernelCtx& cx) {
  const ir::Type& elem = ir::attrs<ir::Op::Optional>(cx.node).elem;
  RtValue* out = cx.outputs[0];
  switch (ir::attrs<ir::Op::Optional>(cx.node).kind) {
    case ir::OptionalKind::None: *out = OptionalValue{elem, nullptr}; return Status::ok();
    case ir::OptionalKind::Wrap:
      *out = OptionalValue{elem, std::make_shared<RtValue>(deep_copy(*cx.inputs[0]))};
      return Status::ok();
    case ir::OptionalKind::Get: {
      const auto& o = std::get<OptionalValue>(*cx.inputs[0]);
      if (!o.value) return runtime_error("optional.R1", "get on an empty optional");
      if (!o.value->is_tensor()) {
        *out = deep_copy(*o.value);
        return Status::ok();
      }
      return put_tensor(out, deep_copy(o.value->tensor()));
    }
    case ir::OptionalKind::Has: {
      Tensor t = Tensor::allocate(ir::DType::Bool, {});
      t.as<bool>()[0] = std::get<OptionalValue>(*cx.inputs[0]).value != nullptr;
      return put_tensor(out, std::move(t));
    }
  }
  return internal_error("optional: unknown kind");
}

// spec/ops/map.md
template <>
Status kernel<ir::Op::Map>(KernelCtx& cx) {
  RtValue* out = cx.outputs[0];
  switch (ir::attrs<ir::Op::Map>(cx.node).kind) {
    case ir::MapKind::Construct: {
      const Tensor& keys = cx.inputs[0]->tensor();
      const Tensor& values = cx.inputs[1]->tensor();
      if (keys.numel() != values.numel())
        return runtime_error("map.R1", strfmt("%lld keys but %lld values", (long long)keys.numel(),
                                              (long long)values.numel()));
      if (keys.dtype == ir::DType::String) {
        std::set<std::string> seen;
        for (int64_t i = 0; i < keys.numel(); ++i)
          if (!seen.insert(keys.strings()[i]).second)
            return runtime_error("map.R1", "repeated key \"" + keys.strings()[i] + "\"");
      } else {
        std::set<int64_t> seen;
        for (int64_t i = 0; i < keys.numel(); ++i)
          if (!seen.insert(keys.as<int64_t>()[i]).second)
            return runtime_error("map.R1", strfmt("repeated key %lld", (long long)keys.as<int64_t>()[i]));
      }
      *out = MapValue{deep_copy(keys), deep_copy(values)};
      return Status::ok();
    }
    case ir::MapKind::Keys: return put_tensor(out, deep_copy(std::get<MapValue>(*cx.inputs[0]).keys));
    case ir::MapKind::Values: return put_tensor(out, deep_copy(std::get<MapValue>(*cx.inputs[0]).values));
  }
  return internal_error("map: unknown kind");
}

}  // namespace plumb::rt::ref
