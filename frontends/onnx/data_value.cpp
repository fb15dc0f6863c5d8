// The ONNX test-data containers (SequenceProto, OptionalProto, MapProto) <-> DataValue, and the
// test-data files that hold them (see tensor_proto.h); tensors themselves are tensor_proto.cpp's.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>

#include "frontends/onnx/tensor_proto.h"
#include "onnx/onnx-data_pb.h"
#include "onnx/onnx_pb.h"

namespace plumb::onnx {

// --- containers ---------------------------------------------------------------------------------

DataValue DataValue::of_tensor(Tensor t) {
  DataValue v;
  v.kind = Kind::Tensor;
  v.name = t.name;
  v.tensor = std::move(t);
  return v;
}

DataKind data_kind_of(const ir::Type& type) {
  switch (type.kind) {
    case ir::TypeKind::Tensor: return DataKind::Tensor;
    case ir::TypeKind::Sequence: return DataKind::Sequence;
    case ir::TypeKind::Optional: return DataKind::Optional;
    case ir::TypeKind::Map: return DataKind::Map;
  }
  return DataKind::Tensor;
}

namespace {
constexpr int kDepthLimit = 64;

Expected<DataValue> seq_from(const ::onnx::SequenceProto& p, int depth);
Expected<DataValue> opt_from(const ::onnx::OptionalProto& p, int depth);
Expected<DataValue> map_from(const ::onnx::MapProto& p, int depth);

Expected<DataValue> tensor_value(const ::onnx::TensorProto& p) {
  PLUMB_ASSIGN_OR_RETURN(Tensor t, tensor_from_proto(p, nullptr));
  return DataValue::of_tensor(std::move(t));
}
Expected<DataValue> sparse_value(const ::onnx::SparseTensorProto& p) {
  PLUMB_ASSIGN_OR_RETURN(Tensor t, sparse_tensor_from_proto(p, nullptr));
  return DataValue::of_tensor(std::move(t));
}

Expected<DataValue> seq_from(const ::onnx::SequenceProto& p, int depth) {
  if (depth > kDepthLimit) return invalid_input("containers nested too deeply");
  DataValue v;
  v.kind = DataValue::Kind::Sequence;
  v.name = p.name();
  v.elem_type = p.elem_type();
  const int kinds = (p.tensor_values_size() > 0) + (p.sparse_tensor_values_size() > 0) +
                    (p.sequence_values_size() > 0) + (p.map_values_size() > 0) +
                    (p.optional_values_size() > 0);
  if (kinds > 1) return invalid_input("sequence '" + p.name() + "' mixes element kinds");
  for (const auto& e : p.tensor_values()) {
    PLUMB_ASSIGN_OR_RETURN(auto x, tensor_value(e));
    v.elems.push_back(std::move(x));
  }
  for (const auto& e : p.sparse_tensor_values()) {
    PLUMB_ASSIGN_OR_RETURN(auto x, sparse_value(e));
    v.elems.push_back(std::move(x));
  }
  for (const auto& e : p.sequence_values()) {
    PLUMB_ASSIGN_OR_RETURN(auto x, seq_from(e, depth + 1));
    v.elems.push_back(std::move(x));
  }
  for (const auto& e : p.map_values()) {
    PLUMB_ASSIGN_OR_RETURN(auto x, map_from(e, depth + 1));
    v.elems.push_back(std::move(x));
  }
  for (const auto& e : p.optional_values()) {
    PLUMB_ASSIGN_OR_RETURN(auto x, opt_from(e, depth + 1));
    v.elems.push_back(std::move(x));
  }
  return v;
}

Expected<DataValue> opt_from(const ::onnx::OptionalProto& p, int depth) {
  if (depth > kDepthLimit) return invalid_input("containers nested too deeply");
  DataValue v;
  v.kind = DataValue::Kind::Optional;
  v.name = p.name();
  v.elem_type = p.elem_type();
  if (p.has_tensor_value()) {
    PLUMB_ASSIGN_OR_RETURN(auto x, tensor_value(p.tensor_value()));
    v.elems.push_back(std::move(x));
  } else if (p.has_sparse_tensor_value()) {
    PLUMB_ASSIGN_OR_RETURN(auto x, sparse_value(p.sparse_tensor_value()));
    v.elems.push_back(std::move(x));
  } else if (p.has_sequence_value()) {
    PLUMB_ASSIGN_OR_RETURN(auto x, seq_from(p.sequence_value(), depth + 1));
    v.elems.push_back(std::move(x));
  } else if (p.has_map_value()) {
    PLUMB_ASSIGN_OR_RETURN(auto x, map_from(p.map_value(), depth + 1));
    v.elems.push_back(std::move(x));
  } else if (p.has_optional_value()) {
    PLUMB_ASSIGN_OR_RETURN(auto x, opt_from(p.optional_value(), depth + 1));
    v.elems.push_back(std::move(x));
  }
  return v;
}

Expected<DataValue> map_from(const ::onnx::MapProto& p, int depth) {
  if (depth > kDepthLimit) return invalid_input("containers nested too deeply");
  DataValue v;
  v.kind = DataValue::Kind::Map;
  v.name = p.name();
  auto kdt = ir::dtype_from_onnx_code(p.key_type());
  if (!kdt || !(ir::is_int(*kdt) || ir::is_string(*kdt)) || ir::is_packed(*kdt))
    return invalid_input(
        strfmt("map '%s': key_type %d is not an integer or string type", p.name().c_str(), p.key_type()));
  int64_t nkeys = 0;
  if (*kdt == ir::DType::String) {
    if (p.keys_size() != 0)
      return invalid_input("map '" + p.name() + "': string keys in the integer key field");
    std::vector<std::string> keys(p.string_keys().begin(), p.string_keys().end());
    nkeys = static_cast<int64_t>(keys.size());
    v.tensor = Tensor::from_strings(p.name(), {nkeys}, keys);
  } else {
    if (p.string_keys_size() != 0)
      return invalid_input("map '" + p.name() + "': integer map with string keys");
    nkeys = p.keys_size();
    const int w = ir::dtype_bits(*kdt) / 8;
    std::vector<uint8_t> bytes;
    bytes.reserve(static_cast<size_t>(nkeys) * w);
    for (int64_t k : p.keys())  // little-endian, w bytes
      for (int i = 0; i < w; ++i) bytes.push_back(static_cast<uint8_t>(static_cast<uint64_t>(k) >> (8 * i)));
    v.tensor = Tensor::owned(p.name(), *kdt, {nkeys}, std::move(bytes));
  }
  PLUMB_ASSIGN_OR_RETURN(auto values, seq_from(p.values(), depth + 1));
  if (static_cast<int64_t>(values.elems.size()) != nkeys)
    return invalid_input(strfmt("map '%s': %lld keys but %zu values", p.name().c_str(), (long long)nkeys,
                                values.elems.size()));
  v.elems.push_back(std::move(values));
  return v;
}

Status seq_to(const DataValue& v, ::onnx::SequenceProto* p, int depth);
Status opt_to(const DataValue& v, ::onnx::OptionalProto* p, int depth);
Status map_to(const DataValue& v, ::onnx::MapProto* p, int depth);

int32_t elem_type_code(const DataValue& e) {
  switch (e.kind) {
    case DataValue::Kind::Tensor: return 1;
    case DataValue::Kind::Sequence: return 3;
    case DataValue::Kind::Map: return 4;
    case DataValue::Kind::Optional: return 5;
  }
  return 0;
}

Status seq_to(const DataValue& v, ::onnx::SequenceProto* p, int depth) {
  if (depth > kDepthLimit) return invalid_input("containers nested too deeply");
  if (v.kind != DataValue::Kind::Sequence) return invalid_input("value '" + v.name + "' is not a sequence");
  p->Clear();
  p->set_name(v.name);
  int32_t et = v.elem_type;
  if (!v.elems.empty()) et = elem_type_code(v.elems[0]);
  p->set_elem_type(et);
  for (const auto& e : v.elems) {
    if (elem_type_code(e) != et) return invalid_input("sequence '" + v.name + "' mixes element kinds");
    switch (e.kind) {
      case DataValue::Kind::Tensor:
        PLUMB_RETURN_IF_ERROR(tensor_to_proto(e.tensor, p->add_tensor_values()));
        break;
      case DataValue::Kind::Sequence:
        PLUMB_RETURN_IF_ERROR(seq_to(e, p->add_sequence_values(), depth + 1));
        break;
      case DataValue::Kind::Map: PLUMB_RETURN_IF_ERROR(map_to(e, p->add_map_values(), depth + 1)); break;
      case DataValue::Kind::Optional:
        PLUMB_RETURN_IF_ERROR(opt_to(e, p->add_optional_values(), depth + 1));
        break;
    }
  }
  return Status::ok();
}

Status opt_to(const DataValue& v, ::onnx::OptionalProto* p, int depth) {
  if (depth > kDepthLimit) return invalid_input("containers nested too deeply");
  if (v.kind != DataValue::Kind::Optional) return invalid_input("value '" + v.name + "' is not an optional");
  if (v.elems.size() > 1) return invalid_input("optional '" + v.name + "' holds more than one value");
  p->Clear();
  p->set_name(v.name);
  if (v.elems.empty()) {
    p->set_elem_type(v.elem_type);
    return Status::ok();
  }
  const DataValue& e = v.elems[0];
  p->set_elem_type(elem_type_code(e));
  switch (e.kind) {
    case DataValue::Kind::Tensor: return tensor_to_proto(e.tensor, p->mutable_tensor_value());
    case DataValue::Kind::Sequence: return seq_to(e, p->mutable_sequence_value(), depth + 1);
    case DataValue::Kind::Map: return map_to(e, p->mutable_map_value(), depth + 1);
    case DataValue::Kind::Optional: return opt_to(e, p->mutable_optional_value(), depth + 1);
  }
  return Status::ok();
}

Status map_to(const DataValue& v, ::onnx::MapProto* p, int depth) {
  if (depth > kDepthLimit) return invalid_input("containers nested too deeply");
  if (v.kind != DataValue::Kind::Map || v.elems.size() != 1)
    return invalid_input("value '" + v.name + "' is not a map");
  p->Clear();
  p->set_name(v.name);
  const Tensor& keys = v.tensor;
  p->set_key_type(ir::dtype_onnx_code(keys.dtype));
  if (keys.dtype == ir::DType::String) {
    PLUMB_ASSIGN_OR_RETURN(auto strs, keys.strings());
    for (auto& s : strs) p->add_string_keys(std::move(s));
  } else {
    if (!ir::is_int(keys.dtype) || ir::is_packed(keys.dtype))
      return invalid_input("map '" + v.name + "': keys must be integers or strings");
    const int w = ir::dtype_bits(keys.dtype) / 8;
    for (uint64_t off = 0; off + w <= keys.size; off += w) {
      uint64_t u = 0;
      for (int b = 0; b < w; ++b) u |= static_cast<uint64_t>(keys.data[off + b]) << (8 * b);
      int64_t k = static_cast<int64_t>(u);
      if (ir::is_signed_int(keys.dtype) && w < 8 && (u >> (8 * w - 1)) & 1)
        k = static_cast<int64_t>(u | (~uint64_t{0} << (8 * w)));
      p->add_keys(k);
    }
  }
  return seq_to(v.elems[0], p->mutable_values(), depth + 1);
}

const char* kind_name(DataKind k) {
  switch (k) {
    case DataKind::Tensor: return "TensorProto";
    case DataKind::Sequence: return "SequenceProto";
    case DataKind::Map: return "MapProto";
    case DataKind::Optional: return "OptionalProto";
  }
  return "?";
}

template <typename P>
Expected<DataValue> parse_as(const std::string& bytes, DataKind k) {
  P p;
  if (bytes.size() > INT_MAX || !p.ParseFromString(bytes))
    return invalid_input(std::string("malformed ") + kind_name(k) + " (protobuf parse failed)");
  return data_value_from_proto(p);
}

}  // namespace

Expected<DataValue> data_value_from_proto(const ::onnx::TensorProto& proto) { return tensor_value(proto); }
Expected<DataValue> data_value_from_proto(const ::onnx::SequenceProto& proto) { return seq_from(proto, 0); }
Expected<DataValue> data_value_from_proto(const ::onnx::OptionalProto& proto) { return opt_from(proto, 0); }
Expected<DataValue> data_value_from_proto(const ::onnx::MapProto& proto) { return map_from(proto, 0); }
Status data_value_to_proto(const DataValue& v, ::onnx::SequenceProto* proto) { return seq_to(v, proto, 0); }
Status data_value_to_proto(const DataValue& v, ::onnx::OptionalProto* proto) { return opt_to(v, proto, 0); }
Status data_value_to_proto(const DataValue& v, ::onnx::MapProto* proto) { return map_to(v, proto, 0); }

Expected<DataValue> parse_data_value(const std::string& bytes, DataKind kind) {
  switch (kind) {
    case DataKind::Tensor: return parse_as<::onnx::TensorProto>(bytes, kind);
    case DataKind::Sequence: return parse_as<::onnx::SequenceProto>(bytes, kind);
    case DataKind::Map: return parse_as<::onnx::MapProto>(bytes, kind);
    case DataKind::Optional: return parse_as<::onnx::OptionalProto>(bytes, kind);
  }
  return internal_error("bad DataKind");
}

Expected<DataKind> guess_data_kind(const std::string& bytes) {
  google::protobuf::UnknownFieldSet fields;
  if (bytes.size() > INT_MAX || !fields.ParseFromString(bytes))
    return invalid_input("malformed protobuf (not a TensorProto, SequenceProto, OptionalProto or MapProto)");
  using UF = google::protobuf::UnknownField;
  int64_t field2 = -1;
  bool present[8] = {false};
  for (int i = 0; i < fields.field_count(); ++i) {
    const UF& f = fields.field(i);
    const int num = f.number();
    if (num >= 8) return DataKind::Tensor;  // name, raw_data, double_data, ...: only in TensorProto
    if (num == 1 && f.type() == UF::TYPE_VARINT) return DataKind::Tensor;  // dims
    if (num == 2 && f.type() == UF::TYPE_VARINT) field2 = static_cast<int64_t>(f.varint());
    if (num >= 3) present[num] = true;
  }
  // MapProto: keys (3) or string_keys (4) next to values (5).
  if (present[5] && (present[3] || present[4])) return DataKind::Map;
  // SequenceProto / OptionalProto: elem_type e holds its elements in field e + 2.
  bool container = field2 >= 0 && field2 <= 5;
  for (int num = 3; num <= 7; ++num)
    // num - 2, not field2 + 2: a hostile elem_type of INT64_MAX must not overflow.
    if (present[num] && num - 2 != field2) container = false;
  // A sequence of one element and an optional have the same bytes; prefer a sequence.
  if (container) return DataKind::Sequence;
  return DataKind::Tensor;
}

Status place_in_file(const Status& s, const std::string& file) {
  if (s.is_ok()) return s;
  const std::string place = s.place().empty() ? file : file + ": " + s.place();
  return Status(s.code(), s.message(), s.label(), place);
}

Expected<std::string> read_file_bytes(const std::string& path, uint64_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(ErrorCode::kInvalidInput, "cannot open file", "", path);
  in.seekg(0, std::ios::end);
  const std::streamoff len = in.tellg();
  if (len < 0) return Status(ErrorCode::kInvalidInput, "cannot read file", "", path);
  if (static_cast<uint64_t>(len) > max_bytes)
    return Status(ErrorCode::kInvalidInput,
                  strfmt("file is %lld bytes, more than the limit of %llu", (long long)len,
                         (unsigned long long)max_bytes),
                  "", path);
  in.seekg(0, std::ios::beg);
  std::string s(static_cast<size_t>(len), '\0');
  if (len > 0 && !in.read(&s[0], len)) return Status(ErrorCode::kInvalidInput, "cannot read file", "", path);
  return s;
}

Expected<DataValue> read_data_file(const std::string& path, DataKind kind) {
  PLUMB_ASSIGN_OR_RETURN(std::string bytes, read_file_bytes(path));
  auto v = parse_data_value(bytes, kind);
  if (!v) return place_in_file(v.status(), path);
  return v;
}

Expected<DataValue> read_data_file(const std::string& path) {
  PLUMB_ASSIGN_OR_RETURN(std::string bytes, read_file_bytes(path));
  auto kind = guess_data_kind(bytes);
  if (!kind) return place_in_file(kind.status(), path);
  auto v = parse_data_value(bytes, *kind);
  if (!v) return place_in_file(v.status(), path);
  return v;
}

Expected<std::string> serialize_data_value(const DataValue& v) {
  std::string out;
  bool ok = false;
  switch (v.kind) {
    case DataValue::Kind::Tensor: {
      ::onnx::TensorProto p;
      PLUMB_RETURN_IF_ERROR(tensor_to_proto(v.tensor, &p));
      if (!v.name.empty()) p.set_name(v.name);
      ok = p.SerializeToString(&out);
      break;
    }
    case DataValue::Kind::Sequence: {
      ::onnx::SequenceProto p;
      PLUMB_RETURN_IF_ERROR(seq_to(v, &p, 0));
      ok = p.SerializeToString(&out);
      break;
    }
    case DataValue::Kind::Map: {
      ::onnx::MapProto p;
      PLUMB_RETURN_IF_ERROR(map_to(v, &p, 0));
      ok = p.SerializeToString(&out);
      break;
    }
    case DataValue::Kind::Optional: {
      ::onnx::OptionalProto p;
      PLUMB_RETURN_IF_ERROR(opt_to(v, &p, 0));
      ok = p.SerializeToString(&out);
      break;
    }
  }
  if (!ok) return invalid_input("value '" + v.name + "' cannot be serialized (over 2 GiB?)");
  return out;
}

Status write_data_file(const std::string& path, const DataValue& v) {
  auto bytes = serialize_data_value(v);
  if (!bytes) return place_in_file(bytes.status(), path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status(ErrorCode::kInvalidInput, "cannot create file", "", path);
  out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
  if (!out) return Status(ErrorCode::kInvalidInput, "cannot write file", "", path);
  return Status::ok();
}

}  // namespace plumb::onnx
