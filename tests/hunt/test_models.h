// Small ONNX models built in code for the tests of hunt/ (op sequences, reduce), and their data
// written in the ONNX test layout.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "frontends/onnx/tensor_proto.h"
#include "hunt/onnx_proto.h"

namespace plumb::hunt::testing {

class ModelBuilder {
 public:
  explicit ModelBuilder(int64_t opset = 17) {
    m_.set_ir_version(8);
    auto* o = m_.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    m_.mutable_graph()->set_name("g");
  }
  static void set_type(::onnx::ValueInfoProto* vi, const std::string& name, int32_t elem,
                       const std::vector<int64_t>& dims) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  void input(const std::string& name, const std::vector<int64_t>& dims, int32_t elem = 1) {
    set_type(m_.mutable_graph()->add_input(), name, elem, dims);
  }
  void output(const std::string& name, const std::vector<int64_t>& dims, int32_t elem = 1) {
    set_type(m_.mutable_graph()->add_output(), name, elem, dims);
  }
  ::onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& in,
                          const std::vector<std::string>& out, const std::string& name = {}) {
    return add_node(m_.mutable_graph(), op, in, out, name);
  }
  static ::onnx::NodeProto& add_node(::onnx::GraphProto* g, const std::string& op,
                                     const std::vector<std::string>& in, const std::vector<std::string>& out,
                                     const std::string& name = {}) {
    ::onnx::NodeProto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : in) n->add_input(i);
    for (const auto& o : out) n->add_output(o);
    return *n;
  }
  static void attr_int(::onnx::NodeProto& n, const std::string& name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void attr_ints(::onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
  }
  void init_f32(const std::string& name, const std::vector<int64_t>& dims, const std::vector<float>& v) {
    ::onnx::TensorProto* t = m_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(1);
    for (int64_t d : dims) t->add_dims(d);
    for (float x : v) t->add_float_data(x);
  }
  void init_i64(const std::string& name, const std::vector<int64_t>& dims, const std::vector<int64_t>& v) {
    ::onnx::TensorProto* t = m_.mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(7);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t x : v) t->add_int64_data(x);
  }
  ::onnx::ModelProto& model() { return m_; }

 private:
  ::onnx::ModelProto m_;
};

inline onnx::DataValue f32_value(const std::string& name, const std::vector<int64_t>& dims,
                                 const std::vector<float>& v) {
  std::vector<uint8_t> bytes(v.size() * 4);
  std::memcpy(bytes.data(), v.data(), bytes.size());
  onnx::DataValue d =
      onnx::DataValue::of_tensor(onnx::Tensor::owned(name, ir::DType::F32, dims, std::move(bytes)));
  d.name = name;
  return d;
}

inline std::vector<float> floats_of(const onnx::DataValue& d) {
  std::vector<float> v(static_cast<size_t>(d.tensor.num_elements()));
  std::memcpy(v.data(), d.tensor.data, v.size() * 4);
  return v;
}

// A fresh folder under the test's temporary directory.
inline std::string fresh_dir(const std::string& name) {
  const std::filesystem::path p = std::filesystem::temp_directory_path() / ("plumb_hunt_test_" + name);
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

}  // namespace plumb::hunt::testing
