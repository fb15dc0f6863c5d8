#include "hunt/reduce_simplify.h"

#include <onnx/defs/schema.h>

#include <set>

#include "frontends/onnx/model.h"

namespace plumb::hunt {

namespace {

const ::onnx::OpSchema* schema_of(const ::onnx::ModelProto& m, const ::onnx::NodeProto& n) {
  const std::string domain = onnx::canonical_domain(n.domain());
  for (const auto& op : m.opset_import())
    if (onnx::canonical_domain(op.domain()) == domain)
      return ::onnx::OpSchemaRegistry::Schema(n.op_type(),
                                              static_cast<int>(std::min<int64_t>(op.version(), 1000)),
                                              domain.empty() ? std::string(::onnx::ONNX_DOMAIN) : domain);
  return nullptr;
}

// The attribute's value equals the schema's default (names and doc strings aside).
bool equals_default(const ::onnx::AttributeProto& a, const ::onnx::OpSchema::Attribute& s) {
  if (s.default_value.type() == 0) return false;  // no default
  ::onnx::AttributeProto x = a, y = s.default_value;
  x.clear_doc_string();
  y.clear_doc_string();
  x.set_name(a.name());
  y.set_name(a.name());
  return x.SerializeAsString() == y.SerializeAsString();
}

bool is_graph_attr(const ::onnx::AttributeProto& a) {
  return a.type() == ::onnx::AttributeProto::GRAPH || a.type() == ::onnx::AttributeProto::GRAPHS;
}

// Shrinks every axis of size `d` of the candidate's input tensors (and, with `weights`, its
// initializers) to `to`. False when nothing had such an axis.
bool shrink(Candidate& c, int64_t d, int64_t to, bool weights) {
  bool changed = false;
  ::onnx::GraphProto& g = *c.model.mutable_graph();
  for (size_t k = 0; k < c.inputs.size(); ++k) {
    onnx::DataValue& v = c.inputs[k];
    if (v.kind != onnx::DataValue::Kind::Tensor) continue;
    for (size_t axis = 0; axis < v.tensor.dims.size(); ++axis) {
      if (v.tensor.dims[axis] != d) continue;
      auto t = slice_prefix(v.tensor, axis, to);
      if (!t) continue;
      v.tensor = std::move(*t);
      auto* shape =
          g.mutable_input(static_cast<int>(k))->mutable_type()->mutable_tensor_type()->mutable_shape();
      shape->mutable_dim(static_cast<int>(axis))->set_dim_value(to);
      changed = true;
    }
  }
  if (!changed) return false;
  for (int i = 0; weights && i < g.initializer_size(); ++i) {
    onnx::ExternalDataContext none;
    auto t = onnx::tensor_from_proto(g.initializer(i), &none);
    if (!t) continue;
    bool hit = false;
    for (size_t axis = 0; axis < t->dims.size(); ++axis)
      if (t->dims[axis] == d)
        if (auto s = slice_prefix(*t, axis, to)) *t = std::move(*s), hit = true;
    if (!hit) continue;
    const std::string name = g.initializer(i).name();
    ::onnx::TensorProto p;
    if (!onnx::tensor_to_proto(*t, &p).is_ok()) continue;
    p.set_name(name);
    *g.mutable_initializer(i) = std::move(p);
  }
  g.clear_value_info();                        // the declared intermediate shapes no longer hold
  for (int i = 0; i < g.output_size(); ++i) {  // nor the outputs' dims: unknown, same rank
    auto* tt = g.mutable_output(i)->mutable_type()->mutable_tensor_type();
    for (auto& dim : *tt->mutable_shape()->mutable_dim()) dim.clear_dim_value();
  }
  return true;
}

}  // namespace

Expected<onnx::Tensor> slice_prefix(const onnx::Tensor& t, size_t axis, int64_t keep) {
  const int bits = ir::dtype_bits(t.dtype);
  if (bits < 8 || axis >= t.dims.size() || keep < 0 || keep > t.dims[axis])
    return unsupported("cannot slice this tensor");
  const size_t elem = static_cast<size_t>(bits / 8);
  size_t outer = 1, inner = elem;
  for (size_t k = 0; k < axis; ++k) outer *= static_cast<size_t>(t.dims[k]);
  for (size_t k = axis + 1; k < t.dims.size(); ++k) inner *= static_cast<size_t>(t.dims[k]);
  const size_t from = static_cast<size_t>(t.dims[axis]) * inner, to = static_cast<size_t>(keep) * inner;
  if (t.size != outer * from) return unsupported("cannot slice this tensor");
  std::vector<uint8_t> bytes(outer * to);
  for (size_t o = 0; o < outer; ++o)
    std::copy(t.data + o * from, t.data + o * from + to, bytes.begin() + o * to);
  std::vector<int64_t> dims = t.dims;
  dims[axis] = keep;
  return onnx::Tensor::owned(t.name, t.dtype, std::move(dims), std::move(bytes));
}

int simplify_attributes(Candidate& c, bool defaults_only, const KeepTest& keep) {
  int removed = 0;
  for (int k = 0; k < c.model.graph().node_size(); ++k) {
    const ::onnx::OpSchema* schema = schema_of(c.model, c.model.graph().node(k));
    if (!schema) continue;
    for (int a = 0; a < c.model.graph().node(k).attribute_size();) {
      const ::onnx::AttributeProto& attr = c.model.graph().node(k).attribute(a);
      auto s = schema->attributes().find(attr.name());
      const bool removable = s != schema->attributes().end() && !s->second.required && !is_graph_attr(attr) &&
                             (!defaults_only || equals_default(attr, s->second));
      if (removable) {
        Candidate next = c;
        next.model.mutable_graph()->mutable_node(k)->mutable_attribute()->DeleteSubrange(a, 1);
        if (keep(next)) {
          c = std::move(next);
          ++removed;
          continue;  // the next attribute moved to index a
        }
      }
      ++a;
    }
  }
  return removed;
}

int simplify_shapes(Candidate& c, const KeepTest& keep) {
  int shrunk = 0;
  for (int round = 0; round < 4; ++round) {
    std::set<int64_t, std::greater<int64_t>> sizes;
    for (const onnx::DataValue& v : c.inputs)
      if (v.kind == onnx::DataValue::Kind::Tensor)
        for (int64_t d : v.tensor.dims)
          if (d > 1) sizes.insert(d);
    bool changed = false;
    for (int64_t d : sizes) {
      bool done = false;
      std::vector<int64_t> targets{1};
      if (d / 2 > 1) targets.push_back(d / 2);
      for (int64_t to : targets) {
        for (bool weights : {false, true}) {
          Candidate next = c;
          if (!shrink(next, d, to, weights)) break;
          if (keep(next)) {
            c = std::move(next);
            ++shrunk;
            done = changed = true;
            break;
          }
        }
        if (done) break;
      }
    }
    if (!changed) break;
  }
  return shrunk;
}

}  // namespace plumb::hunt
