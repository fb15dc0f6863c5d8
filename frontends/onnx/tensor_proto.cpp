// TensorProto (raw and typed fields, external data, sparse tensors) <-> frontend Tensors (see
// tensor_proto.h); the test-data containers are data_value.cpp's.
#include "frontends/onnx/tensor_proto.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>

#include <google/protobuf/unknown_field_set.h>

#include "ir/utf8.h"
#include "onnx/onnx-data_pb.h"
#include "onnx/onnx_pb.h"

namespace plumb::onnx {
namespace {

constexpr int64_t kMaxElements = int64_t{1} << 60;  // keeps byte counts of every dtype in range

Status bad(const std::string& what, const std::string& why) { return invalid_model("", what + ": " + why); }

std::string tensor_what(const ::onnx::TensorProto& p) {
  return p.name().empty() ? std::string("tensor") : "tensor '" + p.name() + "'";
}

void append_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

template <typename T>
void append_le(std::vector<uint8_t>& out, T v, int nbytes) {
  for (int i = 0; i < nbytes; ++i) out.push_back(static_cast<uint8_t>(static_cast<uint64_t>(v) >> (8 * i)));
}

// --- external data -----------------------------------------------------------------------------

struct MappedFile {
  void* addr = nullptr;
  uint64_t size = 0;
  ~MappedFile() {
    if (addr != nullptr) munmap(addr, size);
  }
};
using FileCache = std::map<std::string, std::shared_ptr<MappedFile>>;

Expected<uint64_t> parse_u64(const std::string& s, const std::string& what) {
  if (s.empty() || s.size() > 20)
    return bad(what, "external data number '" + s + "' is not a decimal integer");
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return bad(what, "external data number '" + s + "' is not a decimal integer");
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return bad(what, "external data number '" + s + "' overflows");
    v = v * 10 + d;
  }
  return v;
}

Expected<std::string> real_path(const std::string& p) {
  char buf[PATH_MAX];
  if (realpath(p.c_str(), buf) == nullptr) return std::string();
  return std::string(buf);
}

// Resolves `location` inside ctx->base_dir: relative, no '..', and (after symlinks) still inside.
Expected<std::shared_ptr<MappedFile>> open_external(ExternalDataContext* ctx, const std::string& location,
                                                    const std::string& what) {
  if (ctx == nullptr || ctx->base_dir.empty())
    return bad(what, "external data '" + location + "' but the model has no folder to resolve it in");
  if (location.empty()) return bad(what, "external data with an empty location");
  if (location.find('\0') != std::string::npos) return bad(what, "external data location holds a NUL byte");
  if (location[0] == '/' || location[0] == '\\')
    return bad(what, "external data location '" + location + "' is absolute (must be relative to the model)");
  size_t start = 0;
  while (start <= location.size()) {
    size_t end = location.find_first_of("/\\", start);
    if (end == std::string::npos) end = location.size();
    if (location.compare(start, end - start, "..") == 0 && end - start == 2)
      return bad(what, "external data location '" + location + "' leaves the model's folder ('..')");
    start = end + 1;
  }
  PLUMB_ASSIGN_OR_RETURN(std::string base, real_path(ctx->base_dir));
  PLUMB_ASSIGN_OR_RETURN(std::string full, real_path(ctx->base_dir + "/" + location));
  if (base.empty()) return bad(what, "model folder '" + ctx->base_dir + "' cannot be resolved");
  if (full.empty()) return bad(what, "external data file '" + location + "' not found next to the model");
  if (full.compare(0, base.size() + 1, base + "/") != 0)
    return bad(what, "external data file '" + location + "' resolves outside the model's folder");
  if (!ctx->file_cache) ctx->file_cache = std::make_shared<FileCache>();
  auto& cache = *static_cast<FileCache*>(ctx->file_cache.get());
  auto it = cache.find(full);
  if (it != cache.end()) return it->second;
  const int fd = open(full.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return bad(what, "cannot open external data file '" + location + "': " + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return bad(what, "external data '" + location + "' is not a regular file");
  }
  auto mf = std::make_shared<MappedFile>();
  mf->size = static_cast<uint64_t>(st.st_size);
  if (mf->size > 0) {
    void* a = mmap(nullptr, mf->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (a == MAP_FAILED) {
      close(fd);
      return bad(what, "cannot map external data file '" + location + "': " + std::strerror(errno));
    }
    mf->addr = a;
  }
  close(fd);
  cache.emplace(full, mf);
  return mf;
}

Expected<Tensor> external_tensor(const ::onnx::TensorProto& p, ir::DType dt, int64_t n,
                                 ExternalDataContext* ctx) {
  const std::string what = tensor_what(p);
  if (dt == ir::DType::String) return bad(what, "string tensors cannot use external data");
  std::string location;
  uint64_t offset = 0;
  bool has_length = false;
  uint64_t length = 0;
  for (const auto& kv : p.external_data()) {
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset") {
      PLUMB_ASSIGN_OR_RETURN(offset, parse_u64(kv.value(), what));
    } else if (kv.key() == "length") {
      PLUMB_ASSIGN_OR_RETURN(length, parse_u64(kv.value(), what));
      has_length = true;
    }
  }
  PLUMB_ASSIGN_OR_RETURN(auto file, open_external(ctx, location, what));
  if (offset > file->size)
    return bad(what, strfmt("external data offset %llu is past the end of '%s' (%llu bytes)",
                            (unsigned long long)offset, location.c_str(), (unsigned long long)file->size));
  if (!has_length) length = file->size - offset;
  if (length > file->size - offset)
    return bad(what, strfmt("external data range [%llu, +%llu) is past the end of '%s' (%llu bytes)",
                            (unsigned long long)offset, (unsigned long long)length, location.c_str(),
                            (unsigned long long)file->size));
  const uint64_t need = ir::dtype_storage_bytes(dt, static_cast<uint64_t>(n));
  if (length != need)
    return bad(what, strfmt("%llu bytes needed for %lld %s elements, external data has %llu",
                            (unsigned long long)need, (long long)n, std::string(ir::dtype_name(dt)).c_str(),
                            (unsigned long long)length));
  Tensor t;
  t.name = p.name();
  t.dtype = dt;
  t.dims.assign(p.dims().begin(), p.dims().end());
  t.owner = file;
  t.data = static_cast<const uint8_t*>(file->addr) + offset;
  t.size = length;
  if (length == 0) t.data = nullptr;
  return t;
}

// --- typed fields --------------------------------------------------------------------------------

enum class Field { Float, Int32, Int64, UInt64, Double, String };

Field field_of(ir::DType dt) {
  switch (dt) {
    case ir::DType::F32: return Field::Float;
    case ir::DType::I64: return Field::Int64;
    case ir::DType::U32:
    case ir::DType::U64: return Field::UInt64;
    case ir::DType::F64: return Field::Double;
    case ir::DType::String: return Field::String;
    default: return Field::Int32;  // every other type: one element (or packed byte) per int32
  }
}

const char* field_name(Field f) {
  switch (f) {
    case Field::Float: return "float_data";
    case Field::Int32: return "int32_data";
    case Field::Int64: return "int64_data";
    case Field::UInt64: return "uint64_data";
    case Field::Double: return "double_data";
    case Field::String: return "string_data";
  }
  return "?";
}

int field_count(const ::onnx::TensorProto& p, Field f) {
  switch (f) {
    case Field::Float: return p.float_data_size();
    case Field::Int32: return p.int32_data_size();
    case Field::Int64: return p.int64_data_size();
    case Field::UInt64: return p.uint64_data_size();
    case Field::Double: return p.double_data_size();
    case Field::String: return p.string_data_size();
  }
  return 0;
}

bool any_typed_field(const ::onnx::TensorProto& p) {
  return p.float_data_size() || p.int32_data_size() || p.int64_data_size() || p.uint64_data_size() ||
         p.double_data_size() || p.string_data_size();
}

}  // namespace

// --- Tensor ----------------------------------------------------------------------------------------

Tensor Tensor::owned(std::string name, ir::DType dtype, std::vector<int64_t> dims,
                     std::vector<uint8_t> bytes) {
  auto holder = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  Tensor t;
  t.name = std::move(name);
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.data = holder->data();
  t.size = holder->size();
  t.owner = std::move(holder);
  return t;
}

int64_t Tensor::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

ir::ConstantData Tensor::to_constant() const {
  ir::ConstantData c;
  c.type = type();
  c.owner = owner;
  c.data = data;
  c.size = size;
  return c;
}

Expected<std::vector<std::string>> Tensor::strings() const {
  if (dtype != ir::DType::String) return invalid_input("tensor '" + name + "' is not a string tensor");
  std::vector<std::string> out;
  uint64_t pos = 0;
  const int64_t n = num_elements();
  for (int64_t i = 0; i < n; ++i) {
    if (size - pos < 4) return invalid_input("string tensor '" + name + "' is truncated");
    uint32_t len = 0;
    for (int b = 0; b < 4; ++b) len |= static_cast<uint32_t>(data[pos + b]) << (8 * b);
    pos += 4;
    if (size - pos < len) return invalid_input("string tensor '" + name + "' is truncated");
    out.emplace_back(reinterpret_cast<const char*>(data + pos), len);
    pos += len;
  }
  if (pos != size) return invalid_input("string tensor '" + name + "' has trailing bytes");
  return out;
}

Tensor Tensor::from_strings(std::string name, std::vector<int64_t> dims,
                            const std::vector<std::string>& values) {
  std::vector<uint8_t> bytes;
  for (const auto& s : values) {
    append_u32(bytes, static_cast<uint32_t>(s.size()));
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  return owned(std::move(name), ir::DType::String, std::move(dims), std::move(bytes));
}

Expected<int64_t> checked_num_elements(const std::vector<int64_t>& dims, const std::string& what) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return bad(what, strfmt("negative dimension %lld", (long long)d));
    if (d != 0 && n > kMaxElements / d) return bad(what, "element count overflows");
    n *= d;
  }
  return n;
}

Expected<Tensor> tensor_from_proto(const ::onnx::TensorProto& p, ExternalDataContext* external) {
  if (!ir::is_valid_utf8(p.name())) return bad("tensor", "name is not valid UTF-8");
  const std::string what = tensor_what(p);
  const int code = p.data_type();
  if (code == 14 || code == 15)
    return unsupported(what + ": complex dtypes (ONNX codes 14, 15) are not supported");
  auto odt = ir::dtype_from_onnx_code(code);
  if (!odt) return bad(what, strfmt("unknown data_type %d", code));
  const ir::DType dt = *odt;
  std::vector<int64_t> dims(p.dims().begin(), p.dims().end());
  PLUMB_ASSIGN_OR_RETURN(int64_t n, checked_num_elements(dims, what));
  if (p.has_segment()) return unsupported(what + ": segmented tensors are not supported");
  if (p.data_location() == ::onnx::TensorProto_DataLocation_EXTERNAL)
    return external_tensor(p, dt, n, external);

  if (dt == ir::DType::String) {
    if (p.has_raw_data()) return bad(what, "string tensor with raw_data");
    if (p.string_data_size() != n)
      return bad(what, strfmt("dims %s claim %lld strings, string_data has %d",
                              ir::shape_to_string(ir::static_shape(dims)).c_str(), (long long)n,
                              p.string_data_size()));
    std::vector<std::string> vals(p.string_data().begin(), p.string_data().end());
    for (size_t i = 0; i < vals.size(); ++i) {
      if (vals[i].size() > UINT32_MAX) return bad(what, "string element longer than 4 GiB");
      if (!ir::is_valid_utf8(vals[i])) return bad(what, strfmt("string element %zu is not valid UTF-8", i));
    }
    return Tensor::from_strings(p.name(), std::move(dims), vals);
  }

  const uint64_t need = ir::dtype_storage_bytes(dt, static_cast<uint64_t>(n));
  const std::string dname(ir::dtype_name(dt));
  if (p.has_raw_data()) {
    if (any_typed_field(p)) return bad(what, "both raw_data and a typed data field are set");
    if (p.raw_data().size() != need)
      return bad(what, strfmt("%llu bytes needed for %lld %s elements, raw_data has %zu",
                              (unsigned long long)need, (long long)n, dname.c_str(), p.raw_data().size()));
    const auto* b = reinterpret_cast<const uint8_t*>(p.raw_data().data());
    return Tensor::owned(p.name(), dt, std::move(dims), std::vector<uint8_t>(b, b + need));
  }

  const Field f = field_of(dt);
  const int count = field_count(p, f);
  // Packed sub-byte types hold one packed byte per int32 element (onnx.helper.make_tensor).
  const uint64_t expect = ir::is_packed(dt) ? need : static_cast<uint64_t>(n);
  if (static_cast<uint64_t>(count) != expect) {
    if (count == 0 && !any_typed_field(p))
      return bad(what, strfmt("dims claim %lld %s elements but the tensor has no data", (long long)n,
                              dname.c_str()));
    return bad(what, strfmt("dims %s claim %lld %s elements (%llu values), %s has %d",
                            ir::shape_to_string(ir::static_shape(dims)).c_str(), (long long)n, dname.c_str(),
                            (unsigned long long)expect, field_name(f), count));
  }
  std::vector<uint8_t> out;
  out.reserve(need);
  const int width = ir::is_packed(dt) ? 1 : ir::dtype_bits(dt) / 8;
  switch (f) {
    case Field::Float:
      for (float v : p.float_data()) {
        uint32_t u;
        std::memcpy(&u, &v, 4);
        append_le(out, u, 4);
      }
      break;
    case Field::Double:
      for (double v : p.double_data()) {
        uint64_t u;
        std::memcpy(&u, &v, 8);
        append_le(out, u, 8);
      }
      break;
    case Field::Int64:
      for (int64_t v : p.int64_data()) append_le(out, static_cast<uint64_t>(v), 8);
      break;
    case Field::UInt64:
      for (uint64_t v : p.uint64_data()) append_le(out, v, width);
      break;
    case Field::Int32:
      for (int32_t v : p.int32_data()) append_le(out, static_cast<uint32_t>(v), width);
      break;
    case Field::String: break;
  }
  if (out.size() != need) return internal_error(what + ": converted size mismatch");
  return Tensor::owned(p.name(), dt, std::move(dims), std::move(out));
}

Status tensor_to_proto(const Tensor& t, ::onnx::TensorProto* p) {
  p->Clear();
  p->set_name(t.name);
  p->set_data_type(ir::dtype_onnx_code(t.dtype));
  for (int64_t d : t.dims) p->add_dims(d);
  PLUMB_ASSIGN_OR_RETURN(int64_t n, checked_num_elements(t.dims, "tensor '" + t.name + "'"));
  if (t.dtype == ir::DType::String) {
    PLUMB_ASSIGN_OR_RETURN(auto strs, t.strings());
    if (static_cast<int64_t>(strs.size()) != n)
      return invalid_input("tensor '" + t.name + "': dims/data mismatch");
    for (auto& s : strs) p->add_string_data(std::move(s));
    return Status::ok();
  }
  if (t.size != ir::dtype_storage_bytes(t.dtype, static_cast<uint64_t>(n)))
    return invalid_input(
        strfmt("tensor '%s': %llu bytes, its dims need %llu", t.name.c_str(), (unsigned long long)t.size,
               (unsigned long long)ir::dtype_storage_bytes(t.dtype, static_cast<uint64_t>(n))));
  p->set_raw_data(std::string(reinterpret_cast<const char*>(t.data), t.size));
  return Status::ok();
}

Expected<Tensor> sparse_tensor_from_proto(const ::onnx::SparseTensorProto& sp, ExternalDataContext* external,
                                          uint64_t max_dense_bytes) {
  const std::string what = sp.values().name().empty() ? std::string("sparse tensor")
                                                      : "sparse tensor '" + sp.values().name() + "'";
  std::vector<int64_t> dims(sp.dims().begin(), sp.dims().end());
  PLUMB_ASSIGN_OR_RETURN(int64_t n, checked_num_elements(dims, what));
  PLUMB_ASSIGN_OR_RETURN(Tensor values, tensor_from_proto(sp.values(), external));
  PLUMB_ASSIGN_OR_RETURN(Tensor indices, tensor_from_proto(sp.indices(), external));
  const ir::DType dt = values.dtype;
  if (dt == ir::DType::String) return unsupported(what + ": sparse string tensors are not supported");
  if (values.dims.size() != 1) return bad(what, "values must be 1-D");
  const int64_t nnz = values.dims[0];
  if (indices.dtype != ir::DType::I64) return bad(what, "indices must be int64");
  const int64_t rank = static_cast<int64_t>(dims.size());
  const bool linear = indices.dims.size() == 1;
  if (!(linear && indices.dims[0] == nnz) &&
      !(indices.dims.size() == 2 && indices.dims[0] == nnz && indices.dims[1] == rank))
    return bad(what, strfmt("indices shape %s fits neither [%lld] nor [%lld,%lld]",
                            ir::shape_to_string(ir::static_shape(indices.dims)).c_str(), (long long)nnz,
                            (long long)nnz, (long long)rank));
  const uint64_t dense_bytes = ir::dtype_storage_bytes(dt, static_cast<uint64_t>(n));
  if (dense_bytes > max_dense_bytes)
    return unsupported(what + strfmt(": densified size %llu bytes exceeds the limit of %llu",
                                     (unsigned long long)dense_bytes, (unsigned long long)max_dense_bytes));
  std::vector<uint8_t> dense(dense_bytes, 0);
  const int bits = ir::dtype_bits(dt);
  auto index_at = [&](int64_t k) {
    int64_t v;
    std::memcpy(&v, indices.data + 8 * k, 8);
    return v;
  };
  for (int64_t i = 0; i < nnz; ++i) {
    int64_t flat = 0;
    if (linear) {
      flat = index_at(i);
    } else {
      for (int64_t a = 0; a < rank; ++a) {
        const int64_t c = index_at(i * rank + a);
        if (c < 0 || c >= dims[a])
          return bad(what, strfmt("index %lld out of range on axis %lld", (long long)c, (long long)a));
        flat = flat * dims[a] + c;
      }
    }
    if (flat < 0 || flat >= n)
      return bad(what, strfmt("index %lld out of range [0, %lld)", (long long)flat, (long long)n));
    if (bits >= 8) {
      const int w = bits / 8;
      std::memcpy(dense.data() + flat * w, values.data + i * w, w);
    } else {
      const int per = 8 / bits;
      const uint8_t mask = static_cast<uint8_t>((1 << bits) - 1);
      const uint8_t v = (values.data[i / per] >> ((i % per) * bits)) & mask;
      uint8_t& dst = dense[flat / per];
      const int sh = (flat % per) * bits;
      dst = static_cast<uint8_t>((dst & ~(mask << sh)) | (v << sh));
    }
  }
  return Tensor::owned(sp.values().name(), dt, std::move(dims), std::move(dense));
}

}  // namespace plumb::onnx
