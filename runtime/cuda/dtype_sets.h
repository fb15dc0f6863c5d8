// The dtype sets the cuda backend's kernels hold: what claims.cpp claims and what the launchers
// (cast.cu, matmul.cu) accept are the same sets, said once here.
#pragma once

#include "ir/dtype.h"

namespace plumb::rt::cuda {

// The floats the kernels compute in (f8 and sub-byte floats are declined).
inline bool is_computed_float(ir::DType dt) {
  return dt == ir::DType::F16 || dt == ir::DType::BF16 || dt == ir::DType::F32 || dt == ir::DType::F64;
}

// The 8- to 64-bit integers.
inline bool is_wide_int(ir::DType dt) {
  switch (dt) {
    case ir::DType::I8:
    case ir::DType::I16:
    case ir::DType::I32:
    case ir::DType::I64:
    case ir::DType::U8:
    case ir::DType::U16:
    case ir::DType::U32:
    case ir::DType::U64: return true;
    default: return false;
  }
}

// The dtypes a cast reads or writes on the device.
inline bool castable(ir::DType dt) {
  return dt == ir::DType::Bool || is_wide_int(dt) || is_computed_float(dt);
}

}  // namespace plumb::rt::cuda
