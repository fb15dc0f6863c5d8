#include "hunt/gen_graph.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <cstring>

namespace plumb::hunt::gen {

int64_t num_elements(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::vector<int64_t> random_dims(Rng& rng, int64_t n, int rank) {
  std::vector<int64_t> dims(static_cast<size_t>(rank), 1);
  if (rank == 0) return dims;
  for (int64_t p = 2; n > 1;) {
    if (n % p == 0) {
      dims[static_cast<size_t>(rng.below(rank))] *= p;
      n /= p;
    } else {
      p = p * p > n ? n : p + 1;
    }
  }
  return dims;
}

const ::onnx::OpSchema* Builder::schema(const std::string& op) const {
  return ::onnx::OpSchemaRegistry::Schema(op, opset, "");
}

bool Builder::has_input(const std::string& op, const std::string& name) const {
  const ::onnx::OpSchema* s = schema(op);
  if (s == nullptr) return false;
  for (const auto& p : s->inputs())
    if (p.GetName() == name) return true;
  return false;
}

bool Builder::has_attribute(const std::string& op, const std::string& name) const {
  const ::onnx::OpSchema* s = schema(op);
  return s != nullptr && s->attributes().count(name) != 0;
}

namespace {

void set_dims(::onnx::ValueInfoProto* vi, const std::string& name, const std::vector<int64_t>& dims) {
  vi->set_name(name);
  auto* t = vi->mutable_type()->mutable_tensor_type();
  t->set_elem_type(::onnx::TensorProto::FLOAT);
  auto* shape = t->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

}  // namespace

Value Builder::input(const std::vector<int64_t>& dims) {
  const std::string name = "x" + std::to_string(input_data.size());
  set_dims(graph_->add_input(), name, dims);
  const int64_t n = num_elements(dims);
  std::vector<uint8_t> bytes(static_cast<size_t>(n) * sizeof(float));
  for (int64_t e = 0; e < n; ++e) {
    const float v = rng.unit();
    std::memcpy(bytes.data() + e * sizeof(float), &v, sizeof v);
  }
  input_data.push_back(onnx::Tensor::owned(name, ir::DType::F32, dims, std::move(bytes)));
  return push(dims, 1.0, true, name);
}

std::string Builder::initializer(int32_t elem_type, const std::vector<int64_t>& dims, const void* data,
                                 size_t bytes) {
  const std::string name = fresh("c");
  auto* t = graph_->add_initializer();
  t->set_name(name);
  t->set_data_type(elem_type);
  for (int64_t d : dims) t->add_dims(d);
  t->set_raw_data(std::string(static_cast<const char*>(data), bytes));
  return name;
}

std::string Builder::const_strings(const std::vector<int64_t>& dims, const std::vector<std::string>& values) {
  const std::string name = fresh("c");
  auto* t = graph_->add_initializer();
  t->set_name(name);
  t->set_data_type(::onnx::TensorProto::STRING);
  for (int64_t d : dims) t->add_dims(d);
  for (const std::string& v : values) t->add_string_data(v);
  return name;
}

std::string Builder::const_f32(const std::vector<int64_t>& dims, const std::vector<float>& values) {
  return initializer(::onnx::TensorProto::FLOAT, dims, values.data(), values.size() * sizeof(float));
}

std::string Builder::const_f32_random(const std::vector<int64_t>& dims, float lo, float hi) {
  std::vector<float> v(static_cast<size_t>(num_elements(dims)));
  // (unit + 1) / 2 has 24 bits, so the double product is exact and the sum is rounded once, the
  // same with or without a fused multiply-add (the bytes of a run must not depend on the target).
  for (float& x : v)
    x = static_cast<float>(static_cast<double>(lo) +
                           static_cast<double>(hi - lo) * ((static_cast<double>(rng.unit()) + 1.0) / 2.0));
  return const_f32(dims, v);
}

std::string Builder::const_i64_dims(const std::vector<int64_t>& dims, const std::vector<int64_t>& values) {
  return initializer(::onnx::TensorProto::INT64, dims, values.data(), values.size() * sizeof(int64_t));
}

std::string Builder::const_i64(const std::vector<int64_t>& values, bool scalar) {
  return const_i64_dims(
      scalar ? std::vector<int64_t>{} : std::vector<int64_t>{static_cast<int64_t>(values.size())}, values);
}

::onnx::NodeProto* Builder::node(const std::string& op, const std::vector<std::string>& inputs,
                                 const std::vector<std::string>& outputs) {
  auto* n = graph_->add_node();
  n->set_op_type(op);
  n->set_name("n" + std::to_string(graph_->node_size() - 1));
  for (const auto& i : inputs) {
    n->add_input(i);
    consumed.insert(i);
  }
  for (const auto& o : outputs) n->add_output(o);
  return n;
}

Value& Builder::push(const std::vector<int64_t>& dims, double bound, bool exact, const std::string& name) {
  pool.push_back(Value{name.empty() ? fresh("v") : name, dims, bound, exact});
  return pool.back();
}

int Builder::nodes() const { return graph_->node_size(); }

void set_int(::onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}

void set_float(::onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void set_ints(::onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void set_string(::onnx::NodeProto* n, const std::string& name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s(v);
}

}  // namespace plumb::hunt::gen
