#include "hunt/onnx_proto.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <climits>
#include <fstream>
#include <set>

#include "frontends/onnx/model.h"

namespace plumb::hunt {

namespace {

// libonnx reports errors by exceptions; only this file calls it, and turns them into a Status.
std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

void collect_types(const ::onnx::GraphProto& g, std::map<std::string, ::onnx::TypeProto>& out) {
  for (const auto* list : {&g.input(), &g.output(), &g.value_info()})
    for (const ::onnx::ValueInfoProto& vi : *list)
      if (vi.has_type() && vi.type().value_case() != ::onnx::TypeProto::VALUE_NOT_SET)
        out.emplace(vi.name(), vi.type());
  for (const ::onnx::TensorProto& t : g.initializer()) {
    ::onnx::TypeProto tp;
    tp.mutable_tensor_type()->set_elem_type(t.data_type());
    auto* shape = tp.mutable_tensor_type()->mutable_shape();
    for (int64_t d : t.dims()) shape->add_dim()->set_dim_value(d);
    out.emplace(t.name(), tp);
  }
  for (const ::onnx::NodeProto& n : g.node())
    for (const ::onnx::AttributeProto& a : n.attribute()) {
      if (a.has_g()) collect_types(a.g(), out);
      for (const ::onnx::GraphProto& sg : a.graphs()) collect_types(sg, out);
    }
}

// Names a graph defines for its own nodes: its inputs, initializers and node outputs.
std::set<std::string> defined_in(const ::onnx::GraphProto& g) {
  std::set<std::string> d;
  for (const auto& i : g.input()) d.insert(i.name());
  for (const auto& t : g.initializer()) d.insert(t.name());
  for (const auto& n : g.node())
    for (const std::string& o : n.output()) d.insert(o);
  return d;
}

void outer_names(const ::onnx::GraphProto& g, std::vector<std::string>& out, std::set<std::string>& seen) {
  const std::set<std::string> own = defined_in(g);
  auto use = [&](const std::string& name) {
    if (!name.empty() && !own.count(name) && seen.insert(name).second) out.push_back(name);
  };
  for (const ::onnx::NodeProto& n : g.node())
    for (const std::string& name : names_read(n)) use(name);
  for (const auto& o : g.output()) use(o.name());  // a subgraph may return an outer value as is
}

}  // namespace

Expected<::onnx::ModelProto> read_model_proto(const std::string& path) {
  PLUMB_ASSIGN_OR_RETURN(std::string bytes, onnx::read_file_bytes(path));
  ::onnx::ModelProto m;
  if (bytes.size() > static_cast<size_t>(INT_MAX) || !m.ParseFromString(bytes))
    return invalid_model("", "malformed ModelProto (protobuf parse failed)").with_place(path);
  if (!m.has_graph()) return invalid_model("", "model has no graph").with_place(path);
  return m;
}

Status write_model_proto(const std::string& path, const ::onnx::ModelProto& model) {
  std::string bytes;
  if (!model.SerializeToString(&bytes)) return internal_error("cannot serialize the model").with_place(path);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) return invalid_input("cannot write the file").with_place(path);
  return Status::ok();
}

std::map<std::string, ::onnx::TypeProto> value_types(const ::onnx::ModelProto& model) {
  std::map<std::string, ::onnx::TypeProto> out;
  collect_types(model.graph(), out);  // the declarations first: they win over inference
  ::onnx::ModelProto inferred = model;
  try {
    ::onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/0, /*data_prop=*/true);
    ::onnx::shape_inference::InferShapes(inferred, ::onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception&) {
    return out;  // e.g. a model newer than libonnx: the declared types only
  }
  collect_types(inferred.graph(), out);
  return out;
}

std::optional<TensorTypeInfo> tensor_type_info(const ::onnx::TypeProto& type) {
  if (type.value_case() != ::onnx::TypeProto::kTensorType) return std::nullopt;
  const auto& tt = type.tensor_type();
  if (tt.elem_type() == 0) return std::nullopt;
  TensorTypeInfo info;
  info.elem_type = tt.elem_type();
  info.rank_known = tt.has_shape();
  for (const auto& d : tt.shape().dim()) info.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
  return info;
}

std::map<std::string, onnx::Tensor> constant_tensors(const ::onnx::GraphProto& graph) {
  std::map<std::string, onnx::Tensor> out;
  onnx::ExternalDataContext no_external;  // shape-like constants are never external
  for (const ::onnx::TensorProto& t : graph.initializer())
    if (auto x = onnx::tensor_from_proto(t, &no_external)) out.emplace(t.name(), std::move(*x));
  for (const ::onnx::NodeProto& n : graph.node()) {
    if (n.op_type() != "Constant" || !n.domain().empty() || n.output_size() != 1) continue;
    for (const ::onnx::AttributeProto& a : n.attribute()) {
      std::optional<onnx::Tensor> t;
      auto ints = [&](std::vector<int64_t> v, std::vector<int64_t> dims) {
        std::vector<uint8_t> bytes(v.size() * 8);
        for (size_t k = 0; k < v.size(); ++k)
          for (int b = 0; b < 8; ++b)
            bytes[k * 8 + b] = static_cast<uint8_t>(static_cast<uint64_t>(v[k]) >> (8 * b));
        return onnx::Tensor::owned(n.output(0), ir::DType::I64, std::move(dims), std::move(bytes));
      };
      if (a.name() == "value" && a.has_t()) {
        if (auto x = onnx::tensor_from_proto(a.t(), &no_external)) t = std::move(*x);
      } else if (a.name() == "value_int") {
        t = ints({a.i()}, {});
      } else if (a.name() == "value_ints") {
        t = ints(std::vector<int64_t>(a.ints().begin(), a.ints().end()), {a.ints_size()});
      }
      if (t) {
        t->name = n.output(0);
        out.emplace(n.output(0), std::move(*t));
      }
    }
  }
  return out;
}

std::optional<std::vector<int64_t>> tensor_ints(const onnx::Tensor& t) {
  const int width = t.dtype == ir::DType::I64 ? 8 : t.dtype == ir::DType::I32 ? 4 : 0;
  if (width == 0 || t.size != static_cast<uint64_t>(t.num_elements()) * width) return std::nullopt;
  std::vector<int64_t> v(static_cast<size_t>(t.num_elements()));
  for (size_t k = 0; k < v.size(); ++k) {
    uint64_t u = 0;
    for (int b = 0; b < width; ++b) u |= static_cast<uint64_t>(t.data[k * width + b]) << (8 * b);
    v[k] = width == 8 ? static_cast<int64_t>(u) : static_cast<int64_t>(static_cast<int32_t>(u));
  }
  return v;
}

std::optional<::onnx::TypeProto> type_of_value(const onnx::DataValue& v, const ::onnx::TypeProto* declared) {
  ::onnx::TypeProto tp;
  switch (v.kind) {
    case onnx::DataValue::Kind::Tensor: {
      auto* tt = tp.mutable_tensor_type();
      tt->set_elem_type(ir::dtype_onnx_code(v.tensor.dtype));
      auto* shape = tt->mutable_shape();
      for (int64_t d : v.tensor.dims) shape->add_dim()->set_dim_value(d);
      return tp;
    }
    case onnx::DataValue::Kind::Sequence:
    case onnx::DataValue::Kind::Optional: {
      const bool seq = v.kind == onnx::DataValue::Kind::Sequence;
      const ::onnx::TypeProto* inner_decl = nullptr;
      if (declared && seq && declared->has_sequence_type())
        inner_decl = &declared->sequence_type().elem_type();
      if (declared && !seq && declared->has_optional_type())
        inner_decl = &declared->optional_type().elem_type();
      std::optional<::onnx::TypeProto> inner;
      if (!v.elems.empty()) inner = type_of_value(v.elems[0], inner_decl);
      if (inner && seq && inner->has_tensor_type())
        inner->mutable_tensor_type()->clear_shape();  // elements differ
      if (!inner && inner_decl) inner = *inner_decl;
      if (!inner) return std::nullopt;
      *(seq ? tp.mutable_sequence_type()->mutable_elem_type()
            : tp.mutable_optional_type()->mutable_elem_type()) = *inner;
      return tp;
    }
    case onnx::DataValue::Kind::Map:
      if (declared && declared->has_map_type()) return *declared;
      return std::nullopt;
  }
  return std::nullopt;
}

std::vector<std::string> names_read(const ::onnx::NodeProto& node) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& i : node.input())
    if (!i.empty() && seen.insert(i).second) out.push_back(i);
  for (const ::onnx::AttributeProto& a : node.attribute()) {
    if (a.has_g()) outer_names(a.g(), out, seen);
    for (const ::onnx::GraphProto& g : a.graphs()) outer_names(g, out, seen);
  }
  return out;
}

Status check_model_proto(const ::onnx::ModelProto& model) {
  if (model.ir_version() > ::onnx::IR_VERSION)
    return unsupported(strfmt("IR version %lld is newer than libonnx's checker (%d)",
                              static_cast<long long>(model.ir_version()),
                              static_cast<int>(::onnx::IR_VERSION)));
  const auto& known = ::onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  for (const auto& op : model.opset_import()) {
    auto it = known.find(op.domain() == "ai.onnx" ? std::string() : op.domain());
    if (it != known.end() && op.version() > it->second.second)
      return unsupported(strfmt("opset %lld of '%s' is newer than libonnx's checker (%d)",
                                static_cast<long long>(op.version()), op.domain().c_str(),
                                it->second.second));
  }
  try {
    ::onnx::checker::check_model(model);
    ::onnx::ModelProto copy = model;
    ::onnx::ShapeInferenceOptions options(/*check_type=*/true, /*error_mode=*/1, /*data_prop=*/false);
    ::onnx::shape_inference::InferShapes(copy, ::onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    return invalid_model("", "onnx checker: " + first_line(e.what()));
  }
  return Status::ok();
}

}  // namespace plumb::hunt
