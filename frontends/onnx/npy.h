// NumPy .npy and .npz files <-> frontend Tensors (bytes in plumb's file format, see tensor_proto.h).
//
// Supported dtypes: bool (b1), i1..i8, u1..u8, f2 (f16), f4, f8 in either byte order (big-endian
// data is swapped on reading), and '<U<n>' unicode strings (UTF-32 in the file, UTF-8 in plumb).
// Fortran order, object arrays and other dtypes are Unsupported. .npz: stored (numpy.savez) and
// deflated (numpy.savez_compressed) entries, ZIP64 included; writing always stores.
#pragma once

#include <string>
#include <vector>

#include "frontends/onnx/tensor_proto.h"
#include "ir/status.h"

namespace plumb::onnx {

// Parses the bytes of a .npy file; the tensor gets `name`.
Expected<Tensor> parse_npy(const std::string& bytes, const std::string& name = {});
// A .npy file (format version 1.0, or 2.0 when the header needs it) for `tensor`.
Expected<std::string> serialize_npy(const Tensor& tensor);
// Files; errors carry the file as place. read_npy names the tensor after the file's stem.
Expected<Tensor> read_npy(const std::string& path);
Status write_npy(const std::string& path, const Tensor& tensor);

// Parses a .npz archive: one tensor per "<name>.npy" entry, named <name>, in archive order.
Expected<std::vector<Tensor>> parse_npz(const std::string& bytes);
// An uncompressed .npz with one "<name>.npy" entry per tensor (unnamed ones get arr_<i>).
Expected<std::string> serialize_npz(const std::vector<Tensor>& tensors);
Expected<std::vector<Tensor>> read_npz(const std::string& path);
Status write_npz(const std::string& path, const std::vector<Tensor>& tensors);

// CRC-32 (the zip / gzip polynomial), exposed for tests.
uint32_t crc32(const void* data, size_t size, uint32_t crc = 0);

}  // namespace plumb::onnx
