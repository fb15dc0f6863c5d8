#include "check/onnx/values_io.h"

#include <cmath>
#include <cstring>

#include "runtime/cpu/ref/constant_data.h"
#include "runtime/cpu/ref/dispatch.h"

namespace plumb::check {

Expected<rt::Tensor> tensor_to_runtime(const onnx::Tensor& t) {
  rt::Tensor out;
  PLUMB_RETURN_IF_ERROR(rt::ref::unpack_constant(t.to_constant(), out));
  return out;
}

namespace {

Expected<rt::Tensor> stack_scalars(const std::vector<onnx::DataValue>& elems, ir::DType dt) {
  rt::Tensor out = rt::Tensor::allocate(dt, {static_cast<int64_t>(elems.size())});
  const int64_t eb = rt::runtime_elem_bytes(dt);
  for (size_t i = 0; i < elems.size(); ++i) {
    PLUMB_ASSIGN_OR_RETURN(rt::Tensor e, tensor_to_runtime(elems[i].tensor));
    if (e.numel() != 1 || e.dtype != dt) return invalid_input("map values must be scalars of one dtype");
    if (dt == ir::DType::String)
      out.strings()[i] = e.strings()[0];
    else
      std::memcpy(static_cast<uint8_t*>(out.data) + i * eb, e.data, static_cast<size_t>(eb));
  }
  return out;
}

}  // namespace

Expected<rt::RtValue> to_runtime(const onnx::DataValue& v, const ir::Type& declared) {
  using K = onnx::DataValue::Kind;
  // A file read with a guessed kind: SequenceProto and OptionalProto number their fields alike, so
  // an OptionalProto guessed as a sequence is a "sequence" of at most one value. The declared type
  // says which it is.
  if (declared.kind == ir::TypeKind::Optional && v.kind == K::Sequence && v.elems.size() <= 1) {
    onnx::DataValue o = v;
    o.kind = K::Optional;
    return to_runtime(o, declared);
  }
  switch (v.kind) {
    case K::Tensor: {
      PLUMB_ASSIGN_OR_RETURN(rt::Tensor t, tensor_to_runtime(v.tensor));
      return rt::RtValue(std::move(t));
    }
    case K::Sequence: {
      rt::SequenceValue s;
      s.elem_type = declared.elem ? *declared.elem : ir::Type::unranked_tensor(ir::DType::F32);
      for (const onnx::DataValue& e : v.elems) {
        if (e.kind == K::Map && s.elem_type.kind == ir::TypeKind::Map) {  // ZipMap's sequence of maps
          PLUMB_ASSIGN_OR_RETURN(rt::RtValue m, to_runtime(e, s.elem_type));
          s.maps.push_back(std::move(std::get<rt::MapValue>(m)));
          continue;
        }
        if (e.kind != K::Tensor) return unsupported("sequences of non-tensors (other than of maps)");
        PLUMB_ASSIGN_OR_RETURN(rt::Tensor t, tensor_to_runtime(e.tensor));
        s.items.push_back(std::move(t));
      }
      return rt::RtValue(std::move(s));
    }
    case K::Optional: {
      rt::OptionalValue o;
      o.elem_type = declared.elem ? *declared.elem : ir::Type::unranked_tensor(ir::DType::F32);
      if (!v.elems.empty()) {
        PLUMB_ASSIGN_OR_RETURN(rt::RtValue inner, to_runtime(v.elems[0], o.elem_type));
        o.value = std::make_shared<rt::RtValue>(std::move(inner));
      }
      return rt::RtValue(std::move(o));
    }
    case K::Map: {
      rt::MapValue m;
      PLUMB_ASSIGN_OR_RETURN(m.keys, tensor_to_runtime(v.tensor));
      if (v.elems.size() != 1) return invalid_input("map without a values sequence");
      const ir::DType vt = declared.elem ? declared.elem->dtype : ir::DType::F32;
      PLUMB_ASSIGN_OR_RETURN(m.values, stack_scalars(v.elems[0].elems, vt));
      return rt::RtValue(std::move(m));
    }
  }
  return internal_error("unknown data value kind");
}

namespace {

Expected<onnx::Tensor> pack_tensor(const rt::Tensor& t, const std::string& name) {
  if (t.dtype == ir::DType::String)
    return onnx::Tensor::from_strings(name, t.shape,
                                      std::vector<std::string>(t.strings(), t.strings() + t.numel()));
  const int bits = ir::dtype_bits(t.dtype);
  const int64_t n = t.numel();
  std::vector<uint8_t> bytes(ir::dtype_storage_bytes(t.dtype, static_cast<uint64_t>(n)));
  if (bits >= 8) {
    if (!bytes.empty()) std::memcpy(bytes.data(), t.data, bytes.size());
  } else {
    const int per = 8 / bits;
    const uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
    for (int64_t i = 0; i < n; ++i)
      bytes[i / per] |= static_cast<uint8_t>((t.as<uint8_t>()[i] & mask) << (bits * (i % per)));
  }
  return onnx::Tensor::owned(name, t.dtype, t.shape, std::move(bytes));
}

}  // namespace

Expected<onnx::DataValue> to_data_value(const rt::RtValue& v, const std::string& name) {
  onnx::DataValue d;
  d.name = name;
  if (v.is_tensor()) {
    PLUMB_ASSIGN_OR_RETURN(d.tensor, pack_tensor(v.tensor(), name));
    return d;
  }
  if (const auto* s = std::get_if<rt::SequenceValue>(&v)) {
    d.kind = onnx::DataValue::Kind::Sequence;
    d.elem_type = 1;
    for (const rt::Tensor& t : s->items) {
      onnx::DataValue e;
      PLUMB_ASSIGN_OR_RETURN(e.tensor, pack_tensor(t, ""));
      d.elems.push_back(std::move(e));
    }
    if (s->elem_type.kind == ir::TypeKind::Map) d.elem_type = 4;
    for (const rt::MapValue& m : s->maps) {
      PLUMB_ASSIGN_OR_RETURN(onnx::DataValue e, to_data_value(rt::RtValue(m), ""));
      d.elems.push_back(std::move(e));
    }
    return d;
  }
  if (const auto* o = std::get_if<rt::OptionalValue>(&v)) {
    d.kind = onnx::DataValue::Kind::Optional;
    d.elem_type = o->elem_type.kind == ir::TypeKind::Sequence ? 3 : 1;
    if (o->value) {
      PLUMB_ASSIGN_OR_RETURN(onnx::DataValue inner, to_data_value(*o->value, ""));
      d.elems.push_back(std::move(inner));
    }
    return d;
  }
  // MapProto: the keys as a tensor, the values as a sequence of scalar tensors.
  const auto& m = std::get<rt::MapValue>(v);
  d.kind = onnx::DataValue::Kind::Map;
  PLUMB_ASSIGN_OR_RETURN(d.tensor, pack_tensor(m.keys, name));
  onnx::DataValue values;
  values.kind = onnx::DataValue::Kind::Sequence;
  values.elem_type = 1;
  const int64_t n = m.values.numel();
  const int64_t eb = rt::runtime_elem_bytes(m.values.dtype);
  for (int64_t i = 0; i < n; ++i) {
    rt::Tensor one = rt::Tensor::allocate(m.values.dtype, {});
    if (m.values.dtype == ir::DType::String)
      one.strings()[0] = m.values.strings()[i];
    else
      std::memcpy(one.data, static_cast<const uint8_t*>(m.values.data) + i * eb, static_cast<size_t>(eb));
    onnx::DataValue e;
    PLUMB_ASSIGN_OR_RETURN(e.tensor, pack_tensor(one, ""));
    values.elems.push_back(std::move(e));
  }
  d.elems.push_back(std::move(values));
  return d;
}

}  // namespace plumb::check
