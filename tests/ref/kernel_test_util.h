// Test helpers for ref kernels: build one node, bind input tensors, infer the result types at run
// time (the same inference the executor uses), allocate static results, run the kernel.
//
//   auto r = KernelRun(ir::Op::Binary)
//                .attr("kind", ir::EnumValue{ir::BinaryKind::Add})
//                .input(make_tensor<float>({2}, {1, 2}))
//                .input(make_tensor<float>({2}, {3, 4}))
//                .run();
//   ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
//   EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{4, 6}));
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/infer.h"
#include "runtime/cpu/ref/dispatch.h"
#include "runtime/cpu/ref/kernel.h"

namespace plumb::rt::testing {

template <typename T>
Tensor make_tensor(std::vector<int64_t> shape, const std::vector<T>& data, ir::DType dt) {
  Tensor t = Tensor::allocate(dt, std::move(shape));
  if constexpr (std::is_same_v<T, std::string>) {
    for (size_t i = 0; i < data.size(); ++i) t.strings()[i] = data[i];
  } else if constexpr (std::is_same_v<T, bool>) {
    for (size_t i = 0; i < data.size(); ++i) t.as<bool>()[i] = data[i];
  } else {
    if (!data.empty()) std::memcpy(t.data, data.data(), data.size() * sizeof(T));
  }
  return t;
}

// The dtype whose storage type is T (make_tensor's default).
template <typename T>
constexpr ir::DType dtype_of() {
  using D = ir::DType;
  if constexpr (std::is_same_v<T, float>) return D::F32;
  if constexpr (std::is_same_v<T, double>) return D::F64;
  if constexpr (std::is_same_v<T, int8_t>) return D::I8;
  if constexpr (std::is_same_v<T, int16_t>) return D::I16;
  if constexpr (std::is_same_v<T, int32_t>) return D::I32;
  if constexpr (std::is_same_v<T, int64_t>) return D::I64;
  if constexpr (std::is_same_v<T, uint8_t>) return D::U8;
  if constexpr (std::is_same_v<T, uint16_t>) return D::U16;
  if constexpr (std::is_same_v<T, uint32_t>) return D::U32;
  if constexpr (std::is_same_v<T, uint64_t>) return D::U64;
  if constexpr (std::is_same_v<T, bool>) return D::Bool;
  if constexpr (std::is_same_v<T, std::string>) return D::String;
}

template <typename T>
Tensor make_tensor(std::vector<int64_t> shape, const std::vector<T>& data) {
  return make_tensor<T>(std::move(shape), data, dtype_of<T>());
}

template <typename T>
std::vector<T> values(const Tensor& t) {
  if constexpr (std::is_same_v<T, std::string>) {
    return std::vector<std::string>(t.strings(), t.strings() + t.numel());
  } else {
    return std::vector<T>(t.as<T>(), t.as<T>() + t.numel());
  }
}

// Conv attributes over `spatial` dims: an f32 result, unit strides and dilations, `pad` zeros on both
// sides of every dim, one group (a 3x3 conv that keeps the size: conv_attrs(2, 1)).
inline ir::ConvAttrs conv_attrs(size_t spatial, int64_t pad = 0) {
  ir::ConvAttrs a;
  a.to = ir::DType::F32;
  a.strides = a.dilations = a.lhs_dilations = std::vector<int64_t>(spatial, 1);
  a.pads_low = a.pads_high = std::vector<int64_t>(spatial, pad);
  a.groups = 1;
  return a;
}

struct KernelResult {
  Status status;
  std::vector<RtValue> outputs;
  const Tensor& out(size_t i) const { return std::get<Tensor>(outputs.at(i)); }
};

class KernelRun {
 public:
  explicit KernelRun(ir::Op op) { node_.op = op; }
  KernelRun& attr(std::string name, ir::AttrValue v) {
    node_.attrs.push_back(ir::Attr{std::move(name), std::move(v)});
    return *this;
  }
  // All of an op's attributes from its typed struct (ir/attrs.h), in ops.def order.
  template <ir::Op O>
  KernelRun& attrs(const ir::Attrs<O>& a) {
    for (ir::Attr& at : ir::attr_list(a)) node_.attrs.push_back(std::move(at));
    return *this;
  }
  KernelRun& input(RtValue v) {
    inputs_.push_back(std::move(v));
    return *this;
  }
  KernelRun& outputs(int n) {
    num_outputs_ = n;
    return *this;
  }
  KernelRun& mode(NumericMode m) {
    mode_ = m;
    return *this;
  }
  KernelRun& threads(int n) {
    threads_ = n;
    return *this;
  }
  // Runs `k` instead of ref's kernel (tests/ref_baseline: the kernels before issue 17).
  KernelRun& kernel(Status (*k)(ref::KernelCtx&)) {
    kernel_ = k;
    return *this;
  }
  // Runs structure check + run-time inference + the kernel. Attributes must be given in ops.def
  // order (check_node_structure enforces exactly the op's attributes).
  KernelResult run() {
    KernelResult r;
    const int nout = num_outputs_ >= 0 ? num_outputs_ : ir::op_info(node_.op).min_outputs;
    node_.inputs.assign(inputs_.size(), 0);
    node_.outputs.assign(nout, 0);
    std::vector<ir::Type> in_types;
    std::vector<std::vector<int64_t>> in_values(inputs_.size());
    for (size_t i = 0; i < inputs_.size(); ++i) {
      in_types.push_back(type_of(inputs_[i]));
      if (inputs_[i].is_tensor()) {
        const Tensor& t = inputs_[i].tensor();
        if (ir::is_int(t.dtype) && t.numel() <= ir::kMaxKnownValues)
          visit_dtype(t.dtype, [&](auto tag) {
            using T = typename decltype(tag)::type;
            if constexpr (std::is_integral_v<T>)
              for (int64_t k = 0; k < t.numel(); ++k)
                in_values[i].push_back(static_cast<int64_t>(t.as<T>()[k]));
          });
      }
    }
    std::vector<ir::Operand> operands;
    for (size_t i = 0; i < inputs_.size(); ++i)
      operands.push_back(ir::Operand{
          &in_types[i], inputs_[i].is_tensor() && ir::is_int(in_types[i].dtype) ? &in_values[i] : nullptr});
    r.status = ir::check_node_structure(node_);
    if (!r.status.is_ok()) return r;
    ir::Graph g;
    ir::InferCtx cx{node_, operands, g, /*at_runtime=*/true};
    auto types = ir::infer_types(cx);
    if (!types.has_value()) {
      r.status = types.status();
      return r;
    }
    r.outputs.resize(types->size());
    for (size_t i = 0; i < types->size(); ++i) {
      const ir::Type& t = (*types)[i];
      if (t.is_tensor() && t.ranked && ir::shape_is_static(t.shape)) {
        std::vector<int64_t> dims;
        for (const auto& d : t.shape) dims.push_back(d.size);
        r.outputs[i] = Tensor::allocate(t.dtype, dims);
      }
    }
    ref::KernelCtx kc{node_, {}, {}, mode_};
    kc.threads = threads_;
    for (auto& v : inputs_) kc.inputs.push_back(&v);
    for (auto& v : r.outputs) kc.outputs.push_back(&v);
    r.status = kernel_ ? kernel_(kc) : ref::run_kernel(kc);
    return r;
  }

 private:
  ir::Node node_;
  std::vector<RtValue> inputs_;
  int num_outputs_ = -1;
  NumericMode mode_ = NumericMode::kNative;
  int threads_ = 1;
  Status (*kernel_)(ref::KernelCtx&) = nullptr;
};

// Special values the kernel tests write expected results with.
inline const float kInfF = std::numeric_limits<float>::infinity();
inline const float kNaNF = std::numeric_limits<float>::quiet_NaN();
inline const double kInf = std::numeric_limits<double>::infinity();
inline const double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace plumb::rt::testing

namespace plumb::rt {
// What every kernel test uses, in the namespace the tests live in (using-declarations, not a
// using-directive: only these names).
using testing::KernelResult;
using testing::KernelRun;
using testing::kInf;
using testing::kInfF;
using testing::kNaN;
using testing::kNaNF;
using testing::make_tensor;
using testing::values;
}  // namespace plumb::rt
