// numpy arrays <-> plumb run-time values, for the Python module (python/module.cpp).
//
// A numpy array becomes a tensor of the dtype its numpy dtype names (bool, int8..int64,
// uint8..uint64, float16/32/64, str/bytes/object as string). Where the value feeds a declared
// type, plumb's dtypes that numpy lacks are taken in raw form: bf16 from uint16 (the bits),
// every f8 kind from uint8 (the bits), i4/i2 from int8 and u4/u2/f4e2m1 from uint8 (one element
// per byte, the value in the low bits, as plumb holds them at run time). Outputs come back the
// same way. A C-contiguous, aligned, native-order array is shared, not copied (the tensor keeps
// the array alive); other arrays are copied once into that layout.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>

#include "ir/status.h"
#include "ir/type.h"
#include "runtime/value.h"

namespace plumb::py_module {

namespace py = pybind11;

// `declared` (may be null) lets raw forms through and is the type the value must have; `what`
// names the value in messages ("input 0 'x'").
Expected<rt::Tensor> tensor_from_array(const py::handle& obj, const ir::Type* declared,
                                       const std::string& what);

// A tensor as a numpy array sharing its storage (raw forms as above; strings as a str object array).
py::object array_from_tensor(const rt::Tensor& t);
// Tensors as arrays; a sequence as a list, an optional as None or its value, a map as a dict.
py::object object_from_value(const rt::RtValue& v);

}  // namespace plumb::py_module
