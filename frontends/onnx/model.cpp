// ModelProto -> OnnxModel (see model.h).
#include "frontends/onnx/model.h"

#include <sys/stat.h>

#include <climits>
#include <set>

#include <google/protobuf/unknown_field_set.h>

#include "ir/utf8.h"
#include "onnx/onnx_pb.h"

namespace plumb::onnx {
namespace {

constexpr int kMaxNesting = 64;  // subgraphs / type nesting

struct Ctx {
  ExternalDataContext external;
};

Status bad(const std::string& place, const std::string& why) {
  return Status(ErrorCode::kInvalidModel, why, "", place);
}

// ONNX fields newer than libonnx 1.12's schema arrive as unknown fields; read them by number.
std::vector<std::string> unknown_len_fields(const google::protobuf::Message& m, int number) {
  std::vector<std::string> out;
  const auto& set = m.GetReflection()->GetUnknownFields(m);
  for (int i = 0; i < set.field_count(); ++i) {
    const auto& f = set.field(i);
    if (f.number() == number && f.type() == google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED)
      out.push_back(f.length_delimited());
  }
  return out;
}

Expected<std::optional<ir::Type>> convert_type(const ::onnx::TypeProto& tp, int depth,
                                               bool* sparse = nullptr);

Expected<std::optional<ir::Type>> convert_tensor_type(int32_t elem_type, bool has_shape,
                                                      const ::onnx::TensorShapeProto& shape) {
  if (elem_type == 0) return std::optional<ir::Type>();  // undefined element type: no usable type
  if (elem_type == 14 || elem_type == 15)
    return unsupported(strfmt("complex element type (ONNX code %d) is not supported", elem_type));
  auto dt = ir::dtype_from_onnx_code(elem_type);
  if (!dt) return invalid_model("", strfmt("unknown tensor element type %d", elem_type));
  if (!has_shape) return std::optional<ir::Type>(ir::Type::unranked_tensor(*dt));
  ir::Shape s;
  s.reserve(static_cast<size_t>(shape.dim_size()));
  for (const auto& d : shape.dim()) {
    if (d.has_dim_value()) {
      if (d.dim_value() < 0)
        return invalid_model("", strfmt("negative dimension %lld", (long long)d.dim_value()));
      s.emplace_back(d.dim_value());
    } else if (d.has_dim_param()) {
      s.push_back(ir::Dim::symbolic(d.dim_param()));
    } else {
      s.push_back(ir::Dim::symbolic());
    }
  }
  return std::optional<ir::Type>(ir::Type::tensor(*dt, std::move(s)));
}

Expected<std::optional<ir::Type>> convert_type(const ::onnx::TypeProto& tp, int depth, bool* sparse) {
  if (depth > kMaxNesting) return invalid_model("", "type nested too deeply");
  using V = ::onnx::TypeProto::ValueCase;
  switch (tp.value_case()) {
    case V::kTensorType:
      return convert_tensor_type(tp.tensor_type().elem_type(), tp.tensor_type().has_shape(),
                                 tp.tensor_type().shape());
    case V::kSparseTensorType:
      if (sparse != nullptr) *sparse = true;
      return convert_tensor_type(tp.sparse_tensor_type().elem_type(), tp.sparse_tensor_type().has_shape(),
                                 tp.sparse_tensor_type().shape());
    case V::kSequenceType: {
      if (!tp.sequence_type().has_elem_type()) return std::optional<ir::Type>();
      PLUMB_ASSIGN_OR_RETURN(auto e, convert_type(tp.sequence_type().elem_type(), depth + 1));
      if (!e) return std::optional<ir::Type>();
      return std::optional<ir::Type>(ir::Type::sequence(std::move(*e)));
    }
    case V::kOptionalType: {
      if (!tp.optional_type().has_elem_type()) return std::optional<ir::Type>();
      PLUMB_ASSIGN_OR_RETURN(auto e, convert_type(tp.optional_type().elem_type(), depth + 1));
      if (!e) return std::optional<ir::Type>();
      return std::optional<ir::Type>(ir::Type::optional(std::move(*e)));
    }
    case V::kMapType: {
      auto kdt = ir::dtype_from_onnx_code(tp.map_type().key_type());
      if (!kdt || !(ir::is_int(*kdt) || ir::is_string(*kdt)) || ir::is_packed(*kdt))
        return invalid_model(
            "", strfmt("map key type %d is not an integer or string type", tp.map_type().key_type()));
      if (!tp.map_type().has_value_type()) return std::optional<ir::Type>();
      PLUMB_ASSIGN_OR_RETURN(auto v, convert_type(tp.map_type().value_type(), depth + 1));
      if (!v) return std::optional<ir::Type>();
      return std::optional<ir::Type>(ir::Type::map(*kdt, std::move(*v)));
    }
    default: return std::optional<ir::Type>();  // opaque or no type
  }
}

Expected<OnnxValueInfo> convert_value_info(const ::onnx::ValueInfoProto& vi) {
  OnnxValueInfo out;
  if (!ir::is_valid_utf8(vi.name())) return bad("", "name is not valid UTF-8");
  out.name = vi.name();
  if (vi.has_type()) {
    auto t = convert_type(vi.type(), 0, &out.sparse);
    if (!t) return t.status().with_place("value '" + vi.name() + "'");
    out.type = std::move(*t);
  }
  return out;
}

Expected<OnnxGraph> convert_graph(const ::onnx::GraphProto& g, Ctx& ctx, int depth);

Expected<std::vector<OnnxNode>> convert_nodes(
    const google::protobuf::RepeatedPtrField<::onnx::NodeProto>& nodes, Ctx& ctx, int depth);

Expected<OnnxAttribute> convert_attribute(const ::onnx::AttributeProto& a, Ctx& ctx, int depth) {
  OnnxAttribute out;
  if (!ir::is_valid_utf8(a.name()) || !ir::is_valid_utf8(a.ref_attr_name()))
    return bad("", "attribute name is not valid UTF-8");
  out.name = a.name();
  out.ref_attr_name = a.ref_attr_name();
  int type = a.type();
  if (type == 0) {
    // IR < 2 models leave the type out: infer it from the one field that is set.
    if (a.has_f())
      type = 1;
    else if (a.has_i())
      type = 2;
    else if (a.has_s())
      type = 3;
    else if (a.has_t())
      type = 4;
    else if (a.has_g())
      type = 5;
    else if (a.has_sparse_tensor())
      type = 11;
    else if (a.has_tp())
      type = 13;
    else if (a.floats_size())
      type = 6;
    else if (a.ints_size())
      type = 7;
    else if (a.strings_size())
      type = 8;
    else if (a.tensors_size())
      type = 9;
    else if (a.graphs_size())
      type = 10;
    else if (a.sparse_tensors_size())
      type = 12;
    else if (a.type_protos_size())
      type = 14;
  }
  if (type < 0 || type > 14)
    return invalid_model("", strfmt("attribute '%s' has unknown type %d", a.name().c_str(), type));
  out.type = static_cast<AttrType>(type);
  if (!out.ref_attr_name.empty()) return out;  // a reference inside a function body: no value here
  switch (out.type) {
    case AttrType::Undefined: break;
    case AttrType::Float: out.f = a.f(); break;
    case AttrType::Int: out.i = a.i(); break;
    case AttrType::String: out.s = a.s(); break;
    case AttrType::Tensor: {
      PLUMB_ASSIGN_OR_RETURN(out.t, tensor_from_proto(a.t(), &ctx.external));
      break;
    }
    case AttrType::SparseTensor: {
      PLUMB_ASSIGN_OR_RETURN(out.t, sparse_tensor_from_proto(a.sparse_tensor(), &ctx.external));
      break;
    }
    case AttrType::Graph: {
      PLUMB_ASSIGN_OR_RETURN(auto sub, convert_graph(a.g(), ctx, depth + 1));
      out.g = std::make_shared<const OnnxGraph>(std::move(sub));
      break;
    }
    case AttrType::TypeProto: {
      PLUMB_ASSIGN_OR_RETURN(out.tp, convert_type(a.tp(), 0));
      break;
    }
    case AttrType::Floats: out.floats.assign(a.floats().begin(), a.floats().end()); break;
    case AttrType::Ints: out.ints.assign(a.ints().begin(), a.ints().end()); break;
    case AttrType::Strings: out.strings.assign(a.strings().begin(), a.strings().end()); break;
    case AttrType::Tensors:
      for (const auto& t : a.tensors()) {
        PLUMB_ASSIGN_OR_RETURN(auto x, tensor_from_proto(t, &ctx.external));
        out.tensors.push_back(std::move(x));
      }
      break;
    case AttrType::SparseTensors:
      for (const auto& t : a.sparse_tensors()) {
        PLUMB_ASSIGN_OR_RETURN(auto x, sparse_tensor_from_proto(t, &ctx.external));
        out.tensors.push_back(std::move(x));
      }
      break;
    case AttrType::Graphs:
      for (const auto& g : a.graphs()) {
        PLUMB_ASSIGN_OR_RETURN(auto sub, convert_graph(g, ctx, depth + 1));
        out.graphs.push_back(std::make_shared<const OnnxGraph>(std::move(sub)));
      }
      break;
    case AttrType::TypeProtos:
      for (const auto& t : a.type_protos()) {
        PLUMB_ASSIGN_OR_RETURN(auto x, convert_type(t, 0));
        out.type_protos.push_back(std::move(x));
      }
      break;
  }
  return out;
}

// The node's names (its own, op_type, domain, inputs, outputs): "" when all are UTF-8, or which one
// is not.
std::string non_utf8_name(const ::onnx::NodeProto& n) {
  if (!ir::is_valid_utf8(n.name())) return "name";
  if (!ir::is_valid_utf8(n.op_type())) return "op_type";
  if (!ir::is_valid_utf8(n.domain())) return "domain";
  for (int i = 0; i < n.input_size(); ++i)
    if (!ir::is_valid_utf8(n.input(i))) return strfmt("input %d", i);
  for (int i = 0; i < n.output_size(); ++i)
    if (!ir::is_valid_utf8(n.output(i))) return strfmt("output %d", i);
  return {};
}

Expected<OnnxNode> convert_node(const ::onnx::NodeProto& n, Ctx& ctx, int depth) {
  const std::string non_utf8 = non_utf8_name(n);
  if (!non_utf8.empty()) return bad("", "the node's " + non_utf8 + " is not valid UTF-8");
  OnnxNode out;
  out.name = n.name();
  out.op_type = n.op_type();
  out.domain = canonical_domain(n.domain());
  for (const auto& s : unknown_len_fields(n, 8)) out.overload = s;  // NodeProto.overload (IR 10)
  out.inputs.assign(n.input().begin(), n.input().end());
  out.outputs.assign(n.output().begin(), n.output().end());
  for (const auto& a : n.attribute()) {
    auto attr = convert_attribute(a, ctx, depth);
    if (!attr) return attr.status().with_place(out.place() + ": attribute '" + a.name() + "'");
    for (const auto& prev : out.attributes)
      if (prev.name == attr->name) return bad(out.place(), "attribute '" + a.name() + "' appears twice");
    out.attributes.push_back(std::move(*attr));
  }
  if (out.op_type.empty()) return bad(out.place(), "node has no op_type");
  return out;
}

Expected<std::vector<OnnxNode>> convert_nodes(
    const google::protobuf::RepeatedPtrField<::onnx::NodeProto>& nodes, Ctx& ctx, int depth) {
  std::vector<OnnxNode> out;
  out.reserve(static_cast<size_t>(nodes.size()));
  for (int i = 0; i < nodes.size(); ++i) {
    auto n = convert_node(nodes.Get(i), ctx, depth);
    if (!n) {
      const bool printable =
          ir::is_valid_utf8(nodes.Get(i).name()) && ir::is_valid_utf8(nodes.Get(i).op_type());
      std::string where = !printable ? strfmt("node #%d", i)
                          : nodes.Get(i).name().empty()
                              ? strfmt("node #%d (%s)", i, nodes.Get(i).op_type().c_str())
                              : "node '" + nodes.Get(i).name() + "' (" + nodes.Get(i).op_type() + ")";
      return n.status().with_place(where);
    }
    out.push_back(std::move(*n));
  }
  return out;
}

// ONNX's single assignment: a graph's inputs, initializers and node outputs each define a name
// once (an initializer may repeat an input's name: IR < 4 lists initializers as inputs too), and
// none is empty. A repeated definition was once taken silently, the later one winning.
Status check_names(const std::vector<OnnxNode>& nodes, std::map<std::string, std::string> defined,
                   const std::string& place) {
  for (const OnnxNode& n : nodes)
    for (const std::string& o : n.outputs) {
      if (o.empty()) continue;  // an omitted optional output
      auto [it, fresh] = defined.emplace(o, n.place());
      if (!fresh)
        return bad(place + ": " + n.place(), "output '" + o + "' is already defined by " + it->second);
    }
  return Status::ok();
}

Status check_definitions(const OnnxGraph& g, const std::string& gplace) {
  std::map<std::string, std::string> defined;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const std::string& name = g.inputs[i].name;
    if (name.empty()) return bad(gplace, strfmt("input #%zu has an empty name", i));
    if (!defined.emplace(name, "graph input '" + name + "'").second)
      return bad(gplace, "input '" + name + "' is declared twice");
  }
  std::set<std::string> initializers;
  for (size_t i = 0; i < g.initializers.size(); ++i) {
    const std::string& name = g.initializers[i].name;
    if (name.empty()) return bad(gplace, strfmt("initializer #%zu has an empty name", i));
    if (!initializers.insert(name).second) return bad(gplace, "initializer '" + name + "' is given twice");
    defined.emplace(name, "initializer '" + name + "'");
  }
  return check_names(g.nodes, std::move(defined), gplace);
}

Expected<OnnxGraph> convert_graph(const ::onnx::GraphProto& g, Ctx& ctx, int depth) {
  if (depth > kMaxNesting) return invalid_model("", "subgraphs nested too deeply");
  OnnxGraph out;
  out.name = g.name();
  const std::string gplace = g.name().empty() ? std::string("graph") : "graph '" + g.name() + "'";
  for (const auto& t : g.initializer()) {
    auto x = tensor_from_proto(t, &ctx.external);
    if (!x) return x.status().with_place(gplace + ": initializer '" + t.name() + "'");
    out.initializers.push_back(std::move(*x));
  }
  for (const auto& t : g.sparse_initializer()) {
    auto x = sparse_tensor_from_proto(t, &ctx.external);
    if (!x) return x.status().with_place(gplace + ": sparse initializer '" + t.values().name() + "'");
    out.initializers.push_back(std::move(*x));
  }
  for (const auto& vi : g.input()) {
    auto x = convert_value_info(vi);
    if (!x) return x.status().with_place(gplace + ": input '" + vi.name() + "'");
    out.inputs.push_back(std::move(*x));
  }
  for (const auto& vi : g.output()) {
    auto x = convert_value_info(vi);
    if (!x) return x.status().with_place(gplace + ": output '" + vi.name() + "'");
    out.outputs.push_back(std::move(*x));
  }
  for (const auto& vi : g.value_info()) {
    auto x = convert_value_info(vi);
    if (!x) return x.status().with_place(gplace + ": value_info '" + vi.name() + "'");
    out.value_info.push_back(std::move(*x));
  }
  PLUMB_ASSIGN_OR_RETURN(out.nodes, convert_nodes(g.node(), ctx, depth));
  // (the main graph's initializers are converted apart; convert_model checks it once they are in)
  if (depth > 0) PLUMB_RETURN_IF_ERROR(check_definitions(out, gplace));
  return out;
}

Status convert_opsets(const google::protobuf::RepeatedPtrField<::onnx::OperatorSetIdProto>& imports,
                      std::map<std::string, int64_t>* out, const std::string& place) {
  for (const auto& op : imports) {
    const std::string d = canonical_domain(op.domain());
    auto it = out->find(d);
    if (it != out->end() && it->second != op.version())
      return bad(place, strfmt("domain '%s' imported twice, at versions %lld and %lld", op.domain().c_str(),
                               (long long)it->second, (long long)op.version()));
    (*out)[d] = op.version();
  }
  return Status::ok();
}

Expected<OnnxFunction> convert_function(const ::onnx::FunctionProto& f, Ctx& ctx) {
  OnnxFunction out;
  out.name = f.name();
  out.domain = canonical_domain(f.domain());
  const std::string place = "function '" + f.domain() + "." + f.name() + "'";
  out.inputs.assign(f.input().begin(), f.input().end());
  out.outputs.assign(f.output().begin(), f.output().end());
  out.attributes.assign(f.attribute().begin(), f.attribute().end());
  PLUMB_RETURN_IF_ERROR(convert_opsets(f.opset_import(), &out.opsets, place));
  // Fields after libonnx 1.12: attribute_proto = 11, value_info = 12, overload = 13.
  for (const auto& bytes : unknown_len_fields(f, 11)) {
    ::onnx::AttributeProto a;
    if (!a.ParseFromString(bytes)) return bad(place, "malformed attribute_proto");
    auto x = convert_attribute(a, ctx, 0);
    if (!x) return x.status().with_place(place);
    out.attribute_defaults.push_back(std::move(*x));
  }
  for (const auto& bytes : unknown_len_fields(f, 12)) {
    ::onnx::ValueInfoProto vi;
    if (!vi.ParseFromString(bytes)) return bad(place, "malformed value_info");
    auto x = convert_value_info(vi);
    if (!x) return x.status().with_place(place);
    out.value_info.push_back(std::move(*x));
  }
  for (const auto& s : unknown_len_fields(f, 13)) out.overload = s;
  auto nodes = convert_nodes(f.node(), ctx, 0);
  if (!nodes) return nodes.status().with_place(place);
  out.nodes = std::move(*nodes);
  std::map<std::string, std::string> defined;
  for (const std::string& in : out.inputs) defined.emplace(in, "function input '" + in + "'");
  PLUMB_RETURN_IF_ERROR(check_names(out.nodes, std::move(defined), place));
  return out;
}

std::string dirname_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

Status check_versions(const OnnxModel& m) {
  if (m.ir_version < kMinIrVersion)
    return unsupported(strfmt("IR version %lld is older than the oldest supported (%lld)",
                              (long long)m.ir_version, (long long)kMinIrVersion));
  if (m.ir_version > kMaxIrVersion)
    return unsupported(strfmt("IR version %lld is newer than the newest supported (%lld)",
                              (long long)m.ir_version, (long long)kMaxIrVersion));
  for (const auto& [domain, version] : m.opsets) {
    const std::string shown = domain.empty() ? std::string("ai.onnx") : domain;
    if (version < 1)
      return invalid_model(
          "", strfmt("opset %s version %lld is not positive", shown.c_str(), (long long)version));
    int64_t max = 0;
    if (domain.empty())
      max = kMaxOnnxOpset;
    else if (domain == "ai.onnx.ml")
      max = kMaxMlOpset;
    else if (domain == "ai.onnx.preview.training")
      max = kMaxTrainingOpset;
    if (max > 0 && version > max)
      return unsupported(strfmt("opset %s version %lld is newer than the newest supported (%lld)",
                                shown.c_str(), (long long)version, (long long)max));
  }
  bool uses_onnx = false;
  for (const auto& n : m.graph.nodes)
    if (n.domain.empty()) uses_onnx = true;
  if (uses_onnx && m.opset("") == 0)
    return invalid_model("", "nodes of domain ai.onnx but no ai.onnx opset import");
  return Status::ok();
}

namespace {

Expected<::onnx::ModelProto> parse_proto(const std::string& bytes, const LoadOptions& options) {
  if (bytes.size() > options.max_model_bytes || bytes.size() > static_cast<size_t>(INT_MAX))
    return invalid_model("", strfmt("model is %zu bytes, more than the limit of %llu", bytes.size(),
                                    (unsigned long long)options.max_model_bytes));
  ::onnx::ModelProto proto;
  // protobuf says only that it failed: bad bytes, or messages nested past its limit of 100 (one
  // If / Loop level is three: node, attribute, graph), which the hostile models' 100,000 levels hit.
  if (!proto.ParseFromString(bytes))
    return invalid_model("",
                         "malformed ModelProto (protobuf parse failed: corrupt, or nested deeper than 100 "
                         "messages, i.e. subgraphs past about 31 levels)");
  return proto;
}

// Converts `proto`, releasing each top-level initializer's bytes from it as soon as they are
// copied, so a large inline model is not held twice.
Expected<OnnxModel> convert_model(::onnx::ModelProto& proto, const std::string& base_dir,
                                  const LoadOptions& options) {
  if (!proto.has_graph()) return invalid_model("", "model has no graph");
  OnnxModel m;
  m.ir_version = proto.ir_version();
  m.producer_name = proto.producer_name();
  m.producer_version = proto.producer_version();
  m.domain = proto.domain();
  m.model_version = proto.model_version();
  m.base_dir = base_dir;
  PLUMB_RETURN_IF_ERROR(convert_opsets(proto.opset_import(), &m.opsets, "model"));
  if (proto.opset_import_size() == 0 && m.ir_version < 3) m.opsets[""] = 1;  // IR 1/2: implicit opset 1
  if (options.check_versions) {
    Status s = check_versions(m);
    if (!s) return s;
  }
  Ctx ctx;
  ctx.external.base_dir = base_dir;
  std::vector<Tensor> dense;
  auto* inits = proto.mutable_graph()->mutable_initializer();
  const std::string gplace =
      proto.graph().name().empty() ? std::string("graph") : "graph '" + proto.graph().name() + "'";
  for (int i = 0; i < inits->size(); ++i) {
    auto x = tensor_from_proto(inits->Get(i), &ctx.external);
    if (!x) return x.status().with_place(gplace + ": initializer '" + inits->Get(i).name() + "'");
    dense.push_back(std::move(*x));
    ::onnx::TensorProto* t = inits->Mutable(i);
    t->clear_raw_data();
    t->clear_float_data();
    t->clear_int32_data();
    t->clear_int64_data();
    t->clear_double_data();
    t->clear_uint64_data();
    t->clear_string_data();
  }
  proto.mutable_graph()->clear_initializer();
  PLUMB_ASSIGN_OR_RETURN(m.graph, convert_graph(proto.graph(), ctx, 0));
  m.graph.initializers.insert(m.graph.initializers.begin(), std::make_move_iterator(dense.begin()),
                              std::make_move_iterator(dense.end()));
  PLUMB_RETURN_IF_ERROR(check_definitions(m.graph, gplace));
  for (const auto& f : proto.functions()) {
    PLUMB_ASSIGN_OR_RETURN(auto fn, convert_function(f, ctx));
    PLUMB_RETURN_IF_ERROR(m.add_function(std::move(fn)));
  }
  if (options.check_versions) {
    Status s = check_versions(m);  // again, now that the graph's node domains are known
    if (!s) return s;
  }
  return m;
}

}  // namespace

Expected<OnnxModel> parse_model(const std::string& bytes, const std::string& base_dir,
                                const LoadOptions& options) {
  PLUMB_ASSIGN_OR_RETURN(::onnx::ModelProto proto, parse_proto(bytes, options));
  return convert_model(proto, base_dir, options);
}

Expected<std::vector<DataValue>> read_test_data_set(const std::string& dir, const OnnxGraph& graph,
                                                    bool outputs) {
  std::vector<const OnnxValueInfo*> decl;
  if (outputs) {
    for (const auto& o : graph.outputs) decl.push_back(&o);
  } else {
    decl = graph.real_inputs();
  }
  std::vector<DataValue> out;
  for (size_t k = 0;; ++k) {
    const std::string path = dir + "/" + (outputs ? "output_" : "input_") + std::to_string(k) + ".pb";
    struct stat st;
    if (stat(path.c_str(), &st) != 0) break;
    Expected<DataValue> v = (k < decl.size() && decl[k]->type)
                                ? read_data_file(path, data_kind_of(*decl[k]->type))
                                : read_data_file(path);
    if (!v) return v.status();
    out.push_back(std::move(*v));
  }
  return out;
}

Expected<OnnxModel> load_model(const std::string& path, const LoadOptions& options) {
  PLUMB_ASSIGN_OR_RETURN(std::string bytes, read_file_bytes(path, options.max_model_bytes));
  auto proto = parse_proto(bytes, options);
  if (!proto) return place_in_file(proto.status(), path);
  std::string().swap(bytes);  // the file's bytes are no longer needed
  auto m = convert_model(*proto, dirname_of(path), options);
  if (!m) return place_in_file(m.status(), path);
  m->path = path;
  return m;
}

}  // namespace plumb::onnx
