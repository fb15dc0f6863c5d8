// NumPy .npy files (format versions 1.0, 2.0, 3.0) for `plumb run --input NAME=FILE.npy` and the
// outputs it writes. Numeric dtypes and bool: b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8, either byte
// order on reading (written little-endian); C order only. Other plumb dtypes (bf16, f8, sub-byte,
// string) have no .npy form: Unsupported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/status.h"
#include "runtime/value.h"

namespace plumb::check {

// Largest .npy file read (bytes).
constexpr uint64_t kMaxNpyBytes = uint64_t{1} << 34;

Expected<rt::Tensor> parse_npy(const uint8_t* data, size_t size);
Expected<rt::Tensor> read_npy(const std::string& path);

Expected<std::vector<uint8_t>> encode_npy(const rt::Tensor& t);
Status write_npy(const std::string& path, const rt::Tensor& t);

}  // namespace plumb::check
