#include "python/numpy_values.h"

#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace plumb::py_module {

namespace {

using ir::DType;

// The plumb dtype a numpy dtype names directly (no raw forms), or nullopt.
std::optional<DType> dtype_of(const py::dtype& d) {
  const char kind = d.kind();
  const auto size = d.itemsize();
  switch (kind) {
    case 'b': return DType::Bool;
    case 'i': return size == 1 ? DType::I8 : size == 2 ? DType::I16 : size == 4 ? DType::I32 : DType::I64;
    case 'u': return size == 1 ? DType::U8 : size == 2 ? DType::U16 : size == 4 ? DType::U32 : DType::U64;
    case 'f':
      if (size == 2) return DType::F16;
      if (size == 4) return DType::F32;
      if (size == 8) return DType::F64;
      return std::nullopt;
    case 'U':
    case 'S':
    case 'O': return DType::String;
    default: return std::nullopt;
  }
}

// The numpy dtype that holds plumb dtype `dt` (its raw form where numpy has none).
py::dtype numpy_dtype(DType dt) {
  switch (dt) {
    case DType::Bool: return py::dtype::of<bool>();
    case DType::I2:
    case DType::I4:
    case DType::I8: return py::dtype::of<int8_t>();
    case DType::I16: return py::dtype::of<int16_t>();
    case DType::I32: return py::dtype::of<int32_t>();
    case DType::I64: return py::dtype::of<int64_t>();
    case DType::U2:
    case DType::U4:
    case DType::U8:
    case DType::F4E2M1:
    case DType::F8E4M3FN:
    case DType::F8E4M3FNUZ:
    case DType::F8E5M2:
    case DType::F8E5M2FNUZ:
    case DType::F8E8M0: return py::dtype::of<uint8_t>();
    case DType::U16:
    case DType::BF16: return py::dtype::of<uint16_t>();
    case DType::U32: return py::dtype::of<uint32_t>();
    case DType::U64: return py::dtype::of<uint64_t>();
    case DType::F16: return py::dtype("float16");
    case DType::F32: return py::dtype::of<float>();
    case DType::F64: return py::dtype::of<double>();
    case DType::String: return py::dtype("O");
  }
  return py::dtype("O");
}

// Whether an array of plumb dtype `have` may stand for `want` as its raw form.
bool is_raw_form(DType have, DType want) {
  const bool numpy_lacks =
      want == DType::BF16 || ir::is_packed(want) || (ir::is_float(want) && ir::dtype_bits(want) == 8);
  return have != want && numpy_lacks && have != DType::Bool && numpy_dtype(want).is(numpy_dtype(have));
}

// A sub-byte raw form holds its value in the low bits (signed: sign-extended): anything else in
// the byte would be read as a different value by the kernels.
Status check_sub_byte(const rt::Tensor& t, const std::string& what) {
  const int bits = ir::dtype_bits(t.dtype);
  const bool is_signed = ir::is_signed_int(t.dtype);
  const int64_t lo = is_signed ? -(int64_t{1} << (bits - 1)) : 0;
  const int64_t hi = is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const int64_t v = is_signed ? t.as<int8_t>()[i] : t.as<uint8_t>()[i];
    if (v < lo || v > hi)
      return invalid_input(what + ": element " + std::to_string(i) + " is " + std::to_string(v) +
                           ", outside " + std::string(ir::dtype_name(t.dtype)) + "'s range [" +
                           std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return Status::ok();
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t d = 0; d < shape.size(); ++d) s += (d ? "," : "") + std::to_string(shape[d]);
  return s + "]";
}

Expected<rt::Tensor> string_tensor(const py::array& a, const std::string& what) {
  std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
  rt::Tensor t = rt::Tensor::allocate(DType::String, shape);
  py::list flat = a.attr("ravel")().attr("tolist")();
  for (size_t i = 0; i < flat.size(); ++i) {
    py::handle e = flat[i];
    if (py::isinstance<py::bytes>(e)) {
      t.strings()[i] = e.cast<std::string>();
    } else if (py::isinstance<py::str>(e)) {
      t.strings()[i] = e.cast<std::string>();  // UTF-8
    } else {
      return invalid_input(what + ": element " + std::to_string(i) +
                           " of a string array is not str or bytes");
    }
  }
  return t;
}

}  // namespace

Expected<rt::Tensor> tensor_from_array(const py::handle& obj, const ir::Type* declared,
                                       const std::string& what) {
  py::array given = py::array::ensure(obj);
  if (!given) return invalid_input(what + ": not a numpy array (or anything numpy.asarray takes)");
  std::optional<DType> have = dtype_of(given.dtype());
  if (!have)
    return invalid_input(what + ": numpy dtype " + py::str(given.dtype()).cast<std::string>() +
                         " has no plumb dtype");
  if (*have == DType::String) return string_tensor(given, what);
  DType dt = *have;
  if (declared && declared->is_tensor() && is_raw_form(*have, declared->dtype)) dt = declared->dtype;
  // Shared when the layout is plumb's own (C order, aligned, native byte order); else one copy.
  py::array a =
      py::module_::import("numpy").attr("require")(given, numpy_dtype(*have), py::make_tuple("C", "A"));
  rt::Tensor t;
  t.dtype = dt;
  t.shape.assign(a.shape(), a.shape() + a.ndim());
  auto* keep = new py::object(a);
  t.storage = std::shared_ptr<void>(keep, [](void* p) {
    py::gil_scoped_acquire gil;
    delete static_cast<py::object*>(p);
  });
  t.data = const_cast<void*>(a.data());
  if (ir::is_packed(dt)) PLUMB_RETURN_IF_ERROR(check_sub_byte(t, what));
  if (t.numel() * rt::runtime_elem_bytes(dt) != static_cast<int64_t>(a.nbytes()))
    return invalid_input(what + ": array of shape " + shape_text(t.shape) + " does not hold " +
                         std::string(ir::dtype_name(dt)) + " elements");
  return t;
}

py::object array_from_tensor(const rt::Tensor& t) {
  std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end());
  if (t.dtype == DType::String) {
    py::list items;
    for (int64_t i = 0; i < t.numel(); ++i) {
      const std::string& s = t.strings()[i];
      PyObject* u = PyUnicode_DecodeUTF8(s.data(), static_cast<py::ssize_t>(s.size()), nullptr);
      if (u) {
        items.append(py::reinterpret_steal<py::object>(u));
      } else {
        PyErr_Clear();
        items.append(py::bytes(s));
      }
    }
    py::array out(py::dtype("O"), std::vector<py::ssize_t>{static_cast<py::ssize_t>(items.size())});
    for (size_t i = 0; i < items.size(); ++i) out[py::int_(i)] = items[i];
    return out.attr("reshape")(py::tuple(py::cast(shape)));
  }
  // The capsule owns a reference to the tensor's storage: the array is a view, not a copy.
  auto* hold = new std::shared_ptr<void>(t.storage);
  py::capsule base(hold, [](void* p) { delete static_cast<std::shared_ptr<void>*>(p); });
  if (!t.data) return py::array(numpy_dtype(t.dtype), shape);  // an empty tensor
  return py::array(numpy_dtype(t.dtype), shape, t.data, base);
}

py::object object_from_value(const rt::RtValue& v) {
  if (v.is_tensor()) return array_from_tensor(v.tensor());
  if (const auto* s = std::get_if<rt::SequenceValue>(&v)) {
    py::list out;
    for (const rt::Tensor& t : s->items) out.append(array_from_tensor(t));
    for (const rt::MapValue& m : s->maps) out.append(object_from_value(rt::RtValue(m)));
    return out;
  }
  if (const auto* o = std::get_if<rt::OptionalValue>(&v))
    return o->value ? object_from_value(*o->value) : py::object(py::none());
  const auto& m = std::get<rt::MapValue>(v);
  py::dict out;
  py::list keys = array_from_tensor(m.keys).attr("tolist")();
  py::object values = array_from_tensor(m.values);
  for (size_t i = 0; i < keys.size(); ++i) out[keys[i]] = values[py::int_(i)];
  return out;
}

}  // namespace plumb::py_module
