// .plumb flatbuffer -> Graph (spec/file_format.md). Every count, index, code and byte range a file
// claims is checked against the buffer or a limit before it is used or allocated for.
#include "ir/load.h"

// PLUMB_POSIX_FILES (CMake option, OFF on bare metal, which defines it 0 for this file): load_file
// and external weights read and map files with POSIX calls; without them a model loads from memory
// only, and both say so (kUnsupported).
#ifndef PLUMB_POSIX_FILES
#define PLUMB_POSIX_FILES 1
#endif
#if PLUMB_POSIX_FILES
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "ir/infer.h"
#include "ir/schema/plumb_generated.h"
#include "ir/verify.h"

namespace plumb::ir {

namespace {

namespace fbs = flatbuffers;
constexpr uint64_t kDataAlign = 64;
constexpr int kMaxRegionNesting = 64;  // as the verifier's graph.V11

Status file_error(const char* label, std::string place, std::string message) {
  return Status(ErrorCode::kInvalidModel, std::move(message), label, std::move(place));
}

uint32_t read_u32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
uint16_t read_u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }

// Model.core_version read by hand with every offset bounds-checked, so that a newer file is
// refused with the version message even when the rest does not verify against this schema.
// nullopt when the header is not readable (the flatbuffers verifier then reports it).
std::optional<uint32_t> peek_core_version(const uint8_t* b, uint64_t n) {
  if (n < 8) return std::nullopt;
  const uint64_t table = read_u32(b);
  if (table % 4 || table + 4 > n) return std::nullopt;
  const int32_t soff = static_cast<int32_t>(read_u32(b + table));
  const int64_t vt = static_cast<int64_t>(table) - soff;
  if (vt < 0 || vt % 2 || static_cast<uint64_t>(vt) + 4 > n) return std::nullopt;
  const uint16_t vt_size = read_u16(b + vt);
  if (vt_size < 6 || static_cast<uint64_t>(vt) + vt_size > n) return uint32_t{0};  // field absent: default 0
  const uint16_t field = read_u16(b + vt + 4);                                     // field 0: core_version
  if (field == 0) return uint32_t{0};
  if (table + field + 4 > n) return std::nullopt;
  return read_u32(b + table + field);
}

class Decoder {
 public:
  // `size`: the file's size, the budget for everything decoded from it.
  explicit Decoder(uint64_t size) : budget_(size) {}

  Status charge(uint64_t bytes, const std::string& place) {
    if (bytes > budget_)
      return file_error(
          "file.F9", place,
          "the file's tables are shared or overlap (decoding needs more bytes than the file holds)");
    budget_ -= bytes;
    return Status::ok();
  }

  // flatbuffers 2.0's verifier checks a vector's length field for 4-byte alignment, not its
  // elements for their own: a hostile file can place a [long] or [double] at an address that
  // reading them would be undefined behaviour (found by tests/fuzz/fuzz_plumb_load). The builder
  // aligns every non-empty one, so a misaligned one is a malformed file. It does not align an
  // empty one (FlatBufferBuilder::PreAlign returns early for zero bytes), and an empty vector has
  // nothing to read: it is accepted wherever it lies.
  template <typename T>
  Status aligned(const fbs::Vector<T>* v, const std::string& place) {
    if (v->size() > 0 && reinterpret_cast<uintptr_t>(v->Data()) % alignof(T) != 0)
      return file_error("file.F4", place,
                        strfmt("malformed flatbuffer (a vector of %zu-byte values is not %zu-byte aligned)",
                               sizeof(T), alignof(T)));
    return Status::ok();
  }

  Status str(const fbs::String* s, std::string& out, const std::string& place) {
    if (!s) return Status::ok();
    PLUMB_RETURN_IF_ERROR(charge(s->size() + 1, place));
    out.assign(s->c_str(), s->size());
    return Status::ok();
  }

  Status type(const fb::Type* t, Type& out, int nesting, const std::string& place) {
    if (!t) return file_error("file.F5", place, "missing type");
    if (nesting > kMaxTypeNesting) return file_error("file.F5", place, "type nested too deeply");
    PLUMB_RETURN_IF_ERROR(charge(4, place));
    const int kind = static_cast<int>(t->kind()), dt = static_cast<int>(t->dtype());
    if (kind > static_cast<int>(TypeKind::Map))
      return file_error("file.F5", place, strfmt("type kind %d is unknown", kind));
    if (dt >= kNumDTypes) return file_error("file.F5", place, strfmt("dtype code %d is unknown", dt));
    out.kind = static_cast<TypeKind>(kind);
    out.dtype = static_cast<DType>(dt);
    out.ranked = t->ranked();
    const auto* shape = t->shape();
    if (out.kind == TypeKind::Tensor) {
      if (t->elem()) return file_error("file.F5", place, "a tensor type has an element type");
      if (!out.ranked && shape && shape->size())
        return file_error("file.F5", place, "an unranked tensor type has dims");
      if (shape) {
        if (shape->size() > static_cast<uint64_t>(kMaxRank))
          return file_error(
              "file.F5", place,
              strfmt("rank %u is above %lld", static_cast<unsigned>(shape->size()), (long long)kMaxRank));
        PLUMB_RETURN_IF_ERROR(charge(uint64_t{shape->size()} * 4, place));
        out.shape.reserve(shape->size());
        for (const fb::Dim* d : *shape) {
          PLUMB_RETURN_IF_ERROR(charge(4, place));
          Dim dim;
          dim.size = d->size();
          if (dim.size < kDynamic)
            return file_error("file.F5", place, strfmt("dim size %lld", (long long)dim.size));
          PLUMB_RETURN_IF_ERROR(str(d->sym(), dim.sym, place));
          if (dim.is_static() && !dim.sym.empty())
            return file_error("file.F5", place, "a static dim has a symbol name");
          out.shape.push_back(std::move(dim));
        }
      }
      return Status::ok();
    }
    if (shape && shape->size()) return file_error("file.F5", place, "a container type has dims");
    if (!t->elem()) return file_error("file.F5", place, "a container type has no element type");
    auto elem = std::make_shared<Type>();
    PLUMB_RETURN_IF_ERROR(type(t->elem(), *elem, nesting + 1, place));
    out.elem = std::move(elem);
    return Status::ok();
  }

  Status ids(const fbs::Vector<uint32_t>* v, std::vector<ValueId>& out, const std::string& place,
             const char* what) {
    if (!v) return Status::ok();
    PLUMB_RETURN_IF_ERROR(charge(uint64_t{v->size()} * 4, place));
    out.reserve(v->size());
    for (uint32_t id : *v) {
      if (id >= num_values_)
        return file_error("file.F6", place,
                          strfmt("%s value id %u is not in the value table (%llu values)", what,
                                 static_cast<unsigned>(id), static_cast<unsigned long long>(num_values_)));
      out.push_back(id);
    }
    return Status::ok();
  }

  Status region(const fb::Region* r, Region& out, int nesting, const std::string& place) {
    if (!r) return file_error("file.F5", place, "missing region");
    PLUMB_RETURN_IF_ERROR(charge(4, place));
    PLUMB_RETURN_IF_ERROR(ids(r->params(), out.params, place, "parameter"));
    if (const auto* nodes = r->nodes()) {
      PLUMB_RETURN_IF_ERROR(charge(uint64_t{nodes->size()} * 4, place));
      out.nodes.reserve(nodes->size());
      for (const fb::Node* n : *nodes) {
        out.nodes.emplace_back();
        PLUMB_RETURN_IF_ERROR(node(n, out.nodes.back(), nesting));
      }
    }
    return ids(r->results(), out.results, place, "result");
  }

  Status node(const fb::Node* n, Node& out, int nesting) {
    const int64_t index = next_node_++;
    std::string place = "node #" + std::to_string(index);
    PLUMB_RETURN_IF_ERROR(charge(4, place));
    const int code = static_cast<int>(n->opcode());
    if (code >= kNumOps) return file_error("file.F5", place, strfmt("op code %d is not a core op", code));
    out.op = static_cast<Op>(code);
    place += " " + std::string(op_name(out.op));
    PLUMB_RETURN_IF_ERROR(ids(n->inputs(), out.inputs, place, "operand"));
    PLUMB_RETURN_IF_ERROR(ids(n->outputs(), out.outputs, place, "result"));
    if (const auto* attrs = n->attrs()) {
      PLUMB_RETURN_IF_ERROR(charge(uint64_t{attrs->size()} * 4, place));
      out.attrs.reserve(attrs->size());
      for (const fb::Attr* a : *attrs) {
        Attr attr;
        PLUMB_RETURN_IF_ERROR(str(a->name(), attr.name, place));
        if (!find_attr_spec(out.op, attr.name))
          return file_error("file.F5", place,
                            "'" + attr.name + "' is not an attribute of " + std::string(op_name(out.op)));
        PLUMB_RETURN_IF_ERROR(attr_value(a, attr.value, place + ": attribute '" + attr.name + "'"));
        out.attrs.push_back(std::move(attr));
      }
    }
    if (const auto* p = n->prov()) {
      PLUMB_RETURN_IF_ERROR(str(p->node_name(), out.prov.node_name, place));
      PLUMB_RETURN_IF_ERROR(str(p->op_type(), out.prov.op_type, place));
      PLUMB_RETURN_IF_ERROR(str(p->step(), out.prov.step, place));
      out.prov.opset = p->opset();
    }
    if (const auto* regions = n->regions()) {
      if (regions->size() && nesting + 1 > kMaxRegionNesting)
        return file_error("file.F5", place, strfmt("regions nested deeper than %d", kMaxRegionNesting));
      PLUMB_RETURN_IF_ERROR(charge(uint64_t{regions->size()} * 4, place));
      out.regions.reserve(regions->size());
      for (const fb::Region* r : *regions) {
        out.regions.emplace_back();
        PLUMB_RETURN_IF_ERROR(region(r, out.regions.back(), nesting + 1, place));
      }
    }
    return Status::ok();
  }

  Status attr_value(const fb::Attr* a, AttrValue& out, const std::string& place) {
    PLUMB_RETURN_IF_ERROR(charge(8, place));
    switch (a->value_type()) {
      case fb::AttrValue::IntAttr: out = static_cast<int64_t>(a->value_as_IntAttr()->value()); break;
      case fb::AttrValue::FloatAttr: out = a->value_as_FloatAttr()->value(); break;
      case fb::AttrValue::BoolAttr: out = a->value_as_BoolAttr()->value(); break;
      case fb::AttrValue::IntsAttr: {
        std::vector<int64_t> v;
        if (const auto* xs = a->value_as_IntsAttr()->values()) {
          PLUMB_RETURN_IF_ERROR(charge(uint64_t{xs->size()} * 8, place));
          PLUMB_RETURN_IF_ERROR(aligned(xs, place));
          v.assign(xs->begin(), xs->end());
        }
        out = std::move(v);
        break;
      }
      case fb::AttrValue::FloatsAttr: {
        std::vector<double> v;
        if (const auto* xs = a->value_as_FloatsAttr()->values()) {
          PLUMB_RETURN_IF_ERROR(charge(uint64_t{xs->size()} * 8, place));
          PLUMB_RETURN_IF_ERROR(aligned(xs, place));
          v.assign(xs->begin(), xs->end());
        }
        out = std::move(v);
        break;
      }
      case fb::AttrValue::StrAttr: {
        std::string s;
        PLUMB_RETURN_IF_ERROR(str(a->value_as_StrAttr()->value(), s, place));
        out = std::move(s);
        break;
      }
      case fb::AttrValue::DTypeAttr: {
        const int dt = static_cast<int>(a->value_as_DTypeAttr()->value());
        if (dt >= kNumDTypes) return file_error("file.F5", place, strfmt("dtype code %d is unknown", dt));
        out = static_cast<DType>(dt);
        break;
      }
      case fb::AttrValue::EnumAttr: out = EnumValue{a->value_as_EnumAttr()->code()}; break;
      case fb::AttrValue::ConstAttr: {
        const uint32_t index = a->value_as_ConstAttr()->index();
        if (index >= num_constants_)
          return file_error(
              "file.F7", place,
              strfmt("constant #%u does not exist (%llu constants)", static_cast<unsigned>(index),
                     static_cast<unsigned long long>(num_constants_)));
        out = ConstRef{index};
        break;
      }
      case fb::AttrValue::TypeAttr: {
        TypeAttr t;
        PLUMB_RETURN_IF_ERROR(type(a->value_as_TypeAttr()->type(), t.type, 0, place));
        out = std::move(t);
        break;
      }
      default:
        return file_error("file.F5", place,
                          strfmt("attribute value kind %d is unknown", static_cast<int>(a->value_type())));
    }
    return Status::ok();
  }

  uint64_t num_values_ = 0;
  uint64_t num_constants_ = 0;

 private:
  uint64_t budget_;
  int64_t next_node_ = 0;
};

// A read-only mapping of a whole file, unmapped when the last constant that views it is gone.
struct Mapping {
  void* addr = nullptr;
  size_t size = 0;
#if PLUMB_POSIX_FILES
  ~Mapping() {
    if (addr) munmap(addr, size);
  }
#endif
};

// The external weights file named `name` in `base_dir`: a relative path with no '..' that resolves
// (through any symlinks) to a regular file inside base_dir.
Expected<std::shared_ptr<Mapping>> map_external(const std::string& base_dir, const std::string& name) {
  const std::string place = "external weights '" + name + "'";
  if (name.empty() || name[0] == '/' || name.find('\\') != std::string::npos ||
      name.find('\0') != std::string::npos)
    return file_error("file.F8", place, "the name must be a relative path");
  size_t start = 0;
  while (start <= name.size()) {
    size_t slash = name.find('/', start);
    if (slash == std::string::npos) slash = name.size();
    if (name.compare(start, slash - start, "..") == 0 && slash - start == 2)
      return file_error("file.F8", place, "the name may not contain '..'");
    start = slash + 1;
  }
  if (base_dir.empty())
    return file_error("file.F8", place,
                      "external weights need the .plumb file's folder (load it with load_file)");
#if !PLUMB_POSIX_FILES
  return Status(ErrorCode::kUnsupported,
                "this build reads no files (PLUMB_POSIX_FILES=OFF): external weights cannot be loaded",
                "file.F8", place);
#else
  char dir_real[PATH_MAX], file_real[PATH_MAX];
  if (!realpath(base_dir.c_str(), dir_real))
    return file_error("file.F8", place, "cannot resolve the model's folder");
  const std::string full = base_dir + "/" + name;
  if (!realpath(full.c_str(), file_real))
    return file_error("file.F8", place, std::string("cannot open: ") + std::strerror(errno));
  const std::string dir_s = std::string(dir_real) == "/" ? "/" : std::string(dir_real) + "/";
  if (std::string(file_real).compare(0, dir_s.size(), dir_s) != 0)
    return file_error("file.F8", place, "resolves outside the model's folder");
  const int fd = open(file_real, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return file_error("file.F8", place, std::string("cannot open: ") + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return file_error("file.F8", place, "is not a regular file");
  }
  auto m = std::make_shared<Mapping>();
  m->size = static_cast<size_t>(st.st_size);
  if (m->size > 0) {
    void* p = mmap(nullptr, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      close(fd);
      return file_error("file.F8", place, std::string("cannot map: ") + std::strerror(errno));
    }
    m->addr = p;
  }
  close(fd);
  return m;
#endif
}

// `owner` keeps the n bytes at b alive (null: the caller does); inline constants point into them.
Expected<Graph> decode_memory(const uint8_t* b, uint64_t n, const std::shared_ptr<const void>& owner,
                              const std::string& base_dir) {
  if (!b && n) return invalid_input("no buffer");
  // file.F1: size
  if (n < kMinFileBytes)
    return file_error("file.F1", "header",
                      strfmt("%llu bytes is too short for a .plumb file", (unsigned long long)n));
  if (n > kMaxFileBytes)
    return file_error("file.F1", "header", "file larger than 2 GiB (use external weights)");
  // file.F2: identifier
  if (!fbs::BufferHasIdentifier(b, fb::ModelIdentifier()))
    return file_error("file.F2", "header", "not a .plumb file (file identifier is not \"PLMB\")");
  // file.F3: core version, before anything else is decoded
  if (auto v = peek_core_version(b, n)) {
    if (*v > kCoreVersion)
      return file_error("file.F3", "header",
                        strfmt("core version %u is newer than this runtime's %u", static_cast<unsigned>(*v),
                               static_cast<unsigned>(kCoreVersion)));
  }
  // file.F4: the flatbuffers verifier
  {
    const uint64_t max_tables = std::min<uint64_t>(n / 4 + 64, uint64_t{1} << 30);
    fbs::Verifier verifier(b, n, kMaxFlatbufferDepth, static_cast<fbs::uoffset_t>(max_tables));
    if (!fb::VerifyModelBuffer(verifier))
      return file_error("file.F4", "file", "malformed flatbuffer (the flatbuffers verifier rejects it)");
  }
  const fb::Model* m = fb::GetModel(b);
  Graph g;
  g.core_version = m->core_version();
  if (g.core_version == 0) return file_error("file.F3", "header", "core version 0 is not a version");
  Decoder d(n);
  PLUMB_RETURN_IF_ERROR(d.str(m->producer(), g.producer, "header"));

  // Constants (file.F7): inside Model.data (64-byte aligned there, and Model.data 64-byte aligned in
  // the file) or inside the external weights file.
  const auto* data = m->data();
  const uint64_t data_size = data ? data->size() : 0;
  if (data && data_size && static_cast<uint64_t>(data->data() - b) % kDataAlign != 0)
    return file_error("file.F7", "data section", "the data section is not 64-byte aligned in the file");
  std::shared_ptr<Mapping> ext;
  if (const auto* cs = m->constants()) {
    PLUMB_RETURN_IF_ERROR(d.charge(uint64_t{cs->size()} * 4, "constants"));
    g.constants.reserve(cs->size());
    for (uint32_t i = 0; i < cs->size(); ++i) {
      const fb::Constant* c = cs->Get(i);
      const std::string place = "constant #" + std::to_string(i);
      ConstantData cd;
      PLUMB_RETURN_IF_ERROR(d.type(c->type(), cd.type, 0, place));
      const uint64_t off = c->offset(), size = c->size();
      if (off % kDataAlign != 0)
        return file_error("file.F7", place,
                          strfmt("offset %llu is not 64-byte aligned", (unsigned long long)off));
      if (c->external()) {
        if (!ext) {
          if (!m->external_data())
            return file_error("file.F8", place, "external constant, but the model names no weights file");
          PLUMB_ASSIGN_OR_RETURN(ext, map_external(base_dir, m->external_data()->str()));
        }
        if (off > ext->size || size > ext->size - off)
          return file_error("file.F8", place,
                            strfmt("bytes [%llu, %llu+%llu) are outside the weights file (%llu bytes)",
                                   (unsigned long long)off, (unsigned long long)off, (unsigned long long)size,
                                   (unsigned long long)ext->size));
        cd.owner = ext;
        cd.data = static_cast<const uint8_t*>(ext->addr) + off;
      } else {
        if (off > data_size || size > data_size - off)
          return file_error("file.F7", place,
                            strfmt("bytes [%llu, %llu+%llu) are outside the data section (%llu bytes)",
                                   (unsigned long long)off, (unsigned long long)off, (unsigned long long)size,
                                   (unsigned long long)data_size));
        cd.owner = owner;
        cd.data = data_size ? data->data() + off : nullptr;
      }
      cd.size = size;
      if (size == 0) cd.data = nullptr;
      g.constants.push_back(std::move(cd));
    }
  }
  d.num_constants_ = g.constants.size();

  const fb::Graph* fg = m->graph();
  if (const auto* values = fg->values()) {
    if (values->size() >= kNoValue) return file_error("file.F6", "value table", "too many values");
    PLUMB_RETURN_IF_ERROR(d.charge(uint64_t{values->size()} * 4, "value table"));
    g.values.resize(values->size());
    for (uint32_t i = 0; i < values->size(); ++i) {
      const fb::Value* v = values->Get(i);
      const std::string place = "value %" + std::to_string(i);
      PLUMB_RETURN_IF_ERROR(d.type(v->type(), g.values[i].type, 0, place));
      PLUMB_RETURN_IF_ERROR(d.str(v->onnx_name(), g.values[i].onnx_name, place));
    }
  }
  d.num_values_ = g.values.size();
  PLUMB_RETURN_IF_ERROR(d.region(fg->body(), g.body, 0, "graph"));
  for (int k = 0; k < 2; ++k) {
    const auto* names = k == 0 ? fg->input_names() : fg->output_names();
    auto& out = k == 0 ? g.input_names : g.output_names;
    if (!names) continue;
    PLUMB_RETURN_IF_ERROR(d.charge(uint64_t{names->size()} * 4, "graph"));
    out.resize(names->size());
    for (uint32_t i = 0; i < names->size(); ++i) PLUMB_RETURN_IF_ERROR(d.str(names->Get(i), out[i], "graph"));
  }
  return g;
}

}  // namespace

Expected<Graph> decode_buffer(std::shared_ptr<const std::vector<uint8_t>> buffer,
                              const std::string& base_dir) {
  if (!buffer) return invalid_input("no buffer");
  const uint8_t* b = buffer->data();
  return decode_memory(b, buffer->size(), std::shared_ptr<const void>(std::move(buffer), b), base_dir);
}

Expected<Graph> load_buffer(std::shared_ptr<const std::vector<uint8_t>> buffer, const std::string& base_dir) {
  PLUMB_ASSIGN_OR_RETURN(Graph g, decode_buffer(std::move(buffer), base_dir));
  PLUMB_RETURN_IF_ERROR(verify(g));
  return g;
}

Expected<Graph> load_memory(const uint8_t* data, uint64_t size, std::shared_ptr<const void> owner,
                            const std::string& base_dir) {
  PLUMB_ASSIGN_OR_RETURN(Graph g, decode_memory(data, size, owner, base_dir));
  PLUMB_RETURN_IF_ERROR(verify(g));
  return g;
}

Expected<Graph> load_file(const std::string& path) {
#if !PLUMB_POSIX_FILES
  (void)path;
  return unsupported(
      "this build reads no files (PLUMB_POSIX_FILES=OFF, bare metal): load the model's bytes from memory "
      "(load_memory; C API: plumb_model_load_memory)");
#else
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return invalid_input("cannot open: " + std::string(std::strerror(errno)));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return invalid_input("not a regular file");
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < kMinFileBytes || size > kMaxFileBytes) {
    close(fd);
    return file_error("file.F1", "header",
                      size < kMinFileBytes
                          ? strfmt("%llu bytes is too short for a .plumb file", (unsigned long long)size)
                          : std::string("file larger than 2 GiB (use external weights)"));
  }
  auto buf = std::make_shared<std::vector<uint8_t>>(size);
  uint64_t got = 0;
  while (got < size) {
    const ssize_t r = read(fd, buf->data() + got, size - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<uint64_t>(r);
  }
  close(fd);
  if (got != size) return invalid_input("cannot read the whole file");
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  return load_buffer(std::move(buf), dir);
#endif
}

}  // namespace plumb::ir
