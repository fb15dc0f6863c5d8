// Graph -> .plumb flatbuffer (spec/file_format.md).
#include "ir/save.h"

#include <cstdio>
#include <cstring>

#include "ir/schema/plumb_generated.h"

namespace plumb::ir {

namespace {

namespace fbs = flatbuffers;
constexpr uint64_t kDataAlign = 64;
// Keep the flatbuffer well below its 2 GiB limit; larger models need external weights.
constexpr uint64_t kMaxInlineBytes = uint64_t{1} << 30;

uint64_t align_up(uint64_t x) { return (x + kDataAlign - 1) / kDataAlign * kDataAlign; }

class Writer {
 public:
  explicit Writer(const Graph& g) : g_(g), fbb_(1 << 16) {}

  // `external[i]`: constant i goes to the weights file at external_offset[i].
  Expected<std::vector<uint8_t>> run(const std::vector<bool>& external,
                                     const std::vector<uint64_t>& ext_offset,
                                     const std::string& external_name) {
    // The data section first: the builder writes back to front, so it ends up last in the file.
    std::vector<uint64_t> offset(g_.constants.size(), 0);
    uint64_t total = 0;
    for (size_t i = 0; i < g_.constants.size(); ++i) {
      if (external[i]) {
        offset[i] = ext_offset[i];
        continue;
      }
      total = align_up(total);
      offset[i] = total;
      total += g_.constants[i].size;
      if (total > kMaxInlineBytes)
        return invalid_input(strfmt("constants need more than %llu bytes inline; save with external weights",
                                    static_cast<unsigned long long>(kMaxInlineBytes)));
    }
    fbs::Offset<fbs::Vector<uint8_t>> data;
    if (total > 0) {
      // force_align: 64. flatbuffers 2.0.8's ForceVectorAlignment asserts alignment <= 32
      // (FLATBUFFERS_MAX_ALIGNMENT), so pad directly: PreAlign is what it does after the check.
      fbb_.PreAlign(total, kDataAlign);
      uint8_t* dst = nullptr;
      data = fbs::Offset<fbs::Vector<uint8_t>>(fbb_.CreateUninitializedVector(total, 1, &dst));
      std::memset(dst, 0, total);
      for (size_t i = 0; i < g_.constants.size(); ++i)
        if (!external[i] && g_.constants[i].size)
          std::memcpy(dst + offset[i], g_.constants[i].data, g_.constants[i].size);
    }
    std::vector<fbs::Offset<fb::Constant>> constants;
    for (size_t i = 0; i < g_.constants.size(); ++i) {
      const ConstantData& c = g_.constants[i];
      auto type = write_type(c.type);
      constants.push_back(fb::CreateConstant(fbb_, type, offset[i], c.size, external[i]));
    }
    std::vector<fbs::Offset<fb::Value>> values;
    values.reserve(g_.values.size());
    for (const Value& v : g_.values) {
      auto type = write_type(v.type);
      auto name = v.onnx_name.empty() ? 0 : fbb_.CreateString(v.onnx_name);
      values.push_back(fb::CreateValue(fbb_, type, name));
    }
    auto values_vec = fbb_.CreateVector(values);
    auto body = write_region(g_.body);
    auto input_names = fbb_.CreateVectorOfStrings(g_.input_names);
    auto output_names = fbb_.CreateVectorOfStrings(g_.output_names);
    auto graph = fb::CreateGraph(fbb_, values_vec, body, input_names, output_names);
    auto producer = g_.producer.empty() ? 0 : fbb_.CreateString(g_.producer);
    auto constants_vec = fbb_.CreateVector(constants);
    auto ext = external_name.empty() ? 0 : fbb_.CreateString(external_name);
    fb::ModelBuilder mb(fbb_);
    mb.add_core_version(g_.core_version);
    mb.add_producer(producer);
    mb.add_graph(graph);
    mb.add_constants(constants_vec);
    if (total > 0) mb.add_data(data);
    mb.add_external_data(ext);
    fb::FinishModelBuffer(fbb_, mb.Finish());
    return std::vector<uint8_t>(fbb_.GetBufferPointer(), fbb_.GetBufferPointer() + fbb_.GetSize());
  }

 private:
  fbs::Offset<fb::Type> write_type(const Type& t) {
    fbs::Offset<fb::Type> elem = t.elem ? write_type(*t.elem) : 0;
    fbs::Offset<fbs::Vector<fbs::Offset<fb::Dim>>> shape = 0;
    if (t.is_tensor() && t.ranked) {
      std::vector<fbs::Offset<fb::Dim>> dims;
      dims.reserve(t.shape.size());
      for (const Dim& d : t.shape) {
        auto sym = d.sym.empty() ? 0 : fbb_.CreateString(d.sym);
        dims.push_back(fb::CreateDim(fbb_, d.size, sym));
      }
      shape = fbb_.CreateVector(dims);
    }
    return fb::CreateType(fbb_, static_cast<fb::TypeKind>(t.kind), static_cast<fb::DType>(t.dtype), t.ranked,
                          shape, elem);
  }

  fbs::Offset<fb::Region> write_region(const Region& r) {
    std::vector<fbs::Offset<fb::Node>> nodes;
    nodes.reserve(r.nodes.size());
    for (const Node& n : r.nodes) nodes.push_back(write_node(n));
    auto params = fbb_.CreateVector(r.params);
    auto nodes_vec = fbb_.CreateVector(nodes);
    auto results = fbb_.CreateVector(r.results);
    return fb::CreateRegion(fbb_, params, nodes_vec, results);
  }

  fbs::Offset<void> write_attr_value(const AttrValue& v) {
    struct V {
      Writer& w;
      fbs::Offset<void> operator()(int64_t x) const { return fb::CreateIntAttr(w.fbb_, x).Union(); }
      fbs::Offset<void> operator()(double x) const { return fb::CreateFloatAttr(w.fbb_, x).Union(); }
      fbs::Offset<void> operator()(bool x) const { return fb::CreateBoolAttr(w.fbb_, x).Union(); }
      fbs::Offset<void> operator()(const std::vector<int64_t>& x) const {
        return fb::CreateIntsAttr(w.fbb_, w.fbb_.CreateVector(x)).Union();
      }
      fbs::Offset<void> operator()(const std::vector<double>& x) const {
        return fb::CreateFloatsAttr(w.fbb_, w.fbb_.CreateVector(x)).Union();
      }
      fbs::Offset<void> operator()(const std::string& x) const {
        return fb::CreateStrAttr(w.fbb_, w.fbb_.CreateString(x)).Union();
      }
      fbs::Offset<void> operator()(DType x) const {
        return fb::CreateDTypeAttr(w.fbb_, static_cast<fb::DType>(x)).Union();
      }
      fbs::Offset<void> operator()(EnumValue x) const { return fb::CreateEnumAttr(w.fbb_, x.code).Union(); }
      fbs::Offset<void> operator()(ConstRef x) const { return fb::CreateConstAttr(w.fbb_, x.index).Union(); }
      fbs::Offset<void> operator()(const TypeAttr& x) const {
        return fb::CreateTypeAttr(w.fbb_, w.write_type(x.type)).Union();
      }
    };
    return std::visit(V{*this}, v);
  }

  fbs::Offset<fb::Node> write_node(const Node& n) {
    std::vector<fbs::Offset<fb::Region>> regions;
    for (const Region& r : n.regions) regions.push_back(write_region(r));
    std::vector<fbs::Offset<fb::Attr>> attrs;
    for (const Attr& a : n.attrs) {
      auto value = write_attr_value(a.value);
      auto name = fbb_.CreateString(a.name);
      // fb::AttrValue lists the kinds in AttrKind order after NONE.
      attrs.push_back(fb::CreateAttr(fbb_, name, static_cast<fb::AttrValue>(a.value.index() + 1), value));
    }
    fbs::Offset<fb::Provenance> prov = 0;
    const Provenance& p = n.prov;
    if (!p.node_name.empty() || !p.op_type.empty() || p.opset != 0 || !p.step.empty()) {
      auto nn = p.node_name.empty() ? 0 : fbb_.CreateString(p.node_name);
      auto ot = p.op_type.empty() ? 0 : fbb_.CreateString(p.op_type);
      auto st = p.step.empty() ? 0 : fbb_.CreateString(p.step);
      prov = fb::CreateProvenance(fbb_, nn, ot, p.opset, st);
    }
    auto inputs = fbb_.CreateVector(n.inputs);
    auto outputs = fbb_.CreateVector(n.outputs);
    auto attrs_vec = fbb_.CreateVector(attrs);
    auto regions_vec = fbb_.CreateVector(regions);
    return fb::CreateNode(fbb_, static_cast<fb::Opcode>(n.op), inputs, outputs, attrs_vec, regions_vec, prov);
  }

  const Graph& g_;
  fbs::FlatBufferBuilder fbb_;
};

static_assert(static_cast<int>(fb::AttrValue::IntAttr) == 1 &&
                  static_cast<int>(fb::AttrValue::TypeAttr) == 10,
              "fb::AttrValue must list the attribute kinds in AttrKind order");

Status write_file(const std::string& path, const uint8_t* data, uint64_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return invalid_input("cannot open '" + path + "' for writing: " + std::strerror(errno));
  const bool ok = (size == 0 || std::fwrite(data, 1, size, f) == size);
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) return invalid_input("cannot write '" + path + "'");
  return Status::ok();
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
std::string dir_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

}  // namespace

Expected<std::vector<uint8_t>> save_buffer_checked(const Graph& g) {
  std::vector<bool> external(g.constants.size(), false);
  std::vector<uint64_t> ext_offset(g.constants.size(), 0);
  return Writer(g).run(external, ext_offset, "");
}

std::vector<uint8_t> save_buffer(const Graph& g) {
  auto r = save_buffer_checked(g);
  return r ? std::move(r).value() : std::vector<uint8_t>();
}

Status save_file(const Graph& g, const std::string& path, const SaveOptions& options) {
  std::vector<bool> external(g.constants.size(), false);
  std::vector<uint64_t> ext_offset(g.constants.size(), 0);
  std::string ext_name;
  if (options.external_threshold > 0) {
    ext_name = options.external_name.empty() ? base_name(path) + ".weights" : options.external_name;
    if (ext_name.empty() || ext_name.find('/') != std::string::npos || ext_name == "." || ext_name == "..")
      return invalid_input("external weights name '" + ext_name + "' must be a plain file name");
    uint64_t total = 0;
    bool any = false;
    for (size_t i = 0; i < g.constants.size(); ++i) {
      if (g.constants[i].size < options.external_threshold) continue;
      external[i] = true;
      any = true;
      total = align_up(total);
      ext_offset[i] = total;
      total += g.constants[i].size;
    }
    if (any) {
      std::vector<uint8_t> blob(total, 0);
      for (size_t i = 0; i < g.constants.size(); ++i)
        if (external[i] && g.constants[i].size)
          std::memcpy(blob.data() + ext_offset[i], g.constants[i].data, g.constants[i].size);
      PLUMB_RETURN_IF_ERROR(write_file(dir_of(path) + ext_name, blob.data(), blob.size()));
    } else {
      ext_name.clear();
    }
  }
  PLUMB_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, Writer(g).run(external, ext_offset, ext_name));
  return write_file(path, bytes.data(), bytes.size());
}

}  // namespace plumb::ir
