// ONNX TensorProto / SequenceProto / OptionalProto / MapProto <-> frontend values.
//
// A frontend Tensor holds its elements in plumb's FILE format (the format of ir::ConstantData):
// little-endian, sub-byte types packed low bits first (as ONNX packs them), strings as a u32
// little-endian byte length followed by the bytes, per element. Lowering wraps the bytes with
// `to_constant()`; converting to a runtime layout is the runtime's job.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/graph.h"
#include "ir/status.h"
#include "ir/type.h"

namespace onnx {
class TensorProto;
class SparseTensorProto;
class SequenceProto;
class OptionalProto;
class MapProto;
}  // namespace onnx

namespace plumb::onnx {

struct Tensor {
  std::string name;
  ir::DType dtype = ir::DType::F32;
  std::vector<int64_t> dims;
  // The bytes, in file format: owned, or a view into a buffer kept alive by `owner` (a mapped
  // external-data file).
  std::shared_ptr<const void> owner;
  const uint8_t* data = nullptr;
  uint64_t size = 0;

  static Tensor owned(std::string name, ir::DType dtype, std::vector<int64_t> dims,
                      std::vector<uint8_t> bytes);
  int64_t num_elements() const;  // product of dims (1 for rank 0)
  ir::Type type() const { return ir::Type::tensor(dtype, ir::static_shape(dims)); }
  std::vector<uint8_t> bytes() const { return std::vector<uint8_t>(data, data + size); }
  // Shares the bytes (no copy) with an ir::ConstantData of this tensor's static type.
  ir::ConstantData to_constant() const;
  // Strings of a string tensor (decodes the u32-length framing); an error if malformed.
  Expected<std::vector<std::string>> strings() const;
  static Tensor from_strings(std::string name, std::vector<int64_t> dims,
                             const std::vector<std::string>& values);
};

// How to find external data: the folder of the model file (empty: external data is refused).
// `file_cache` lets tensors of one model share one mapping per file; it belongs to one load.
struct ExternalDataContext {
  std::string base_dir;
  std::shared_ptr<void> file_cache;  // opaque; created on first use
};

// Product of dims with checks: every dim >= 0, no int64 overflow. `what` names the tensor.
Expected<int64_t> checked_num_elements(const std::vector<int64_t>& dims, const std::string& what);

// TensorProto -> Tensor. Checks the dtype, the dims, and that the data (raw_data, the typed field
// or the external file range) holds exactly the elements the dims claim, before allocating.
Expected<Tensor> tensor_from_proto(const ::onnx::TensorProto& proto, ExternalDataContext* external = nullptr);
// Tensor -> TensorProto (raw_data for every dtype but string, which uses string_data).
Status tensor_to_proto(const Tensor& tensor, ::onnx::TensorProto* proto);
// SparseTensorProto -> dense Tensor (zeros where no value is given). Refuses a dense result over
// `max_dense_bytes`.
Expected<Tensor> sparse_tensor_from_proto(const ::onnx::SparseTensorProto& proto,
                                          ExternalDataContext* external = nullptr,
                                          uint64_t max_dense_bytes = uint64_t{1} << 32);

// A value of the ONNX test-data layout: a tensor, a sequence, a map or an optional.
struct DataValue {
  enum class Kind { Tensor, Sequence, Map, Optional };
  Kind kind = Kind::Tensor;
  std::string name;
  Tensor tensor;                 // Tensor; Map: the keys (1-D)
  std::vector<DataValue> elems;  // Sequence: elements; Optional: none or one; Map: one Sequence of values
  // Sequence / Optional: the ONNX elem_type code (SequenceProto.DataType: 0 undefined, 1 tensor,
  // 2 sparse tensor, 3 sequence, 4 map, 5 optional), kept so that empty containers round-trip.
  int32_t elem_type = 0;

  static DataValue of_tensor(Tensor t);
  bool has_value() const { return kind != Kind::Optional || !elems.empty(); }
};

enum class DataKind { Tensor, Sequence, Map, Optional };
// The container kind of an ir::Type (Tensor for tensors).
DataKind data_kind_of(const ir::Type& type);

Expected<DataValue> data_value_from_proto(const ::onnx::TensorProto& proto);
Expected<DataValue> data_value_from_proto(const ::onnx::SequenceProto& proto);
Expected<DataValue> data_value_from_proto(const ::onnx::OptionalProto& proto);
Expected<DataValue> data_value_from_proto(const ::onnx::MapProto& proto);
Status data_value_to_proto(const DataValue& v, ::onnx::SequenceProto* proto);
Status data_value_to_proto(const DataValue& v, ::onnx::OptionalProto* proto);
Status data_value_to_proto(const DataValue& v, ::onnx::MapProto* proto);

// Reads a serialized TensorProto/SequenceProto/OptionalProto/MapProto from a buffer, as `kind`.
Expected<DataValue> parse_data_value(const std::string& bytes, DataKind kind);
// Guesses the kind of a .pb from its top-level fields (TensorProto has fields 8..14 or scalar
// data fields; the containers hold messages in fields 3..7). Prefer parse_data_value with the
// kind of the graph input/output when it is known.
Expected<DataKind> guess_data_kind(const std::string& bytes);

// Files of the ONNX test layout (input_<k>.pb / output_<k>.pb). Errors carry the file as place.
Expected<DataValue> read_data_file(const std::string& path, DataKind kind);
Expected<DataValue> read_data_file(const std::string& path);  // kind guessed
Expected<std::string> serialize_data_value(const DataValue& v);
Status write_data_file(const std::string& path, const DataValue& v);

// `s` with its place prefixed by the file: "<file>" or "<file>: <inner place>".
Status place_in_file(const Status& s, const std::string& file);

// Reads a whole file (refusing more than max_bytes). Errors name the file.
Expected<std::string> read_file_bytes(const std::string& path, uint64_t max_bytes = (uint64_t{1} << 31) - 1);

}  // namespace plumb::onnx
