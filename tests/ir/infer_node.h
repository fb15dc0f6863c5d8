// Shared by the inference tests: one node of an op, with attributes and operand types, run
// through check_node_structure and infer_types; and the check of an expected error label.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/infer.h"

namespace plumb::ir::testing {

class InferNode {
 public:
  explicit InferNode(Op op) { node_.op = op; }
  InferNode& attr(std::string name, AttrValue v) {
    node_.attrs.push_back(Attr{std::move(name), std::move(v)});
    return *this;
  }
  // All of an op's attributes from its typed struct (ir/attrs.h), in ops.def order.
  template <Op O>
  InferNode& attrs(const Attrs<O>& a) {
    for (Attr& at : attr_list(a)) node_.attrs.push_back(std::move(at));
    return *this;
  }
  InferNode& in(Type t) {
    types_.push_back(std::move(t));
    return *this;
  }
  InferNode& outputs(int n) {  // default: the op's minimum
    outputs_ = n;
    return *this;
  }
  InferNode& runtime() {  // infer as at run time (every shape static)
    at_runtime_ = true;
    return *this;
  }
  Expected<std::vector<Type>> run() {
    node_.inputs.assign(types_.size(), 0);
    node_.outputs.assign(outputs_ > 0 ? outputs_ : op_info(node_.op).min_outputs, 0);
    Status st = check_node_structure(node_);
    if (!st.is_ok()) return st;
    std::vector<Operand> operands;
    for (const Type& t : types_) operands.push_back(Operand{&t, nullptr});
    Graph g;
    InferCtx cx{node_, operands, g, at_runtime_};
    return infer_types(cx);
  }

 private:
  Node node_;
  std::vector<Type> types_;
  int outputs_ = 0;
  bool at_runtime_ = false;
};

inline Type t(DType dt, Shape s) { return Type::tensor(dt, std::move(s)); }

// Expects failure with `label`, an invalid model.
inline void expect_label(const Expected<std::vector<Type>>& r, const std::string& label) {
  ASSERT_FALSE(r.has_value()) << "expected " << label;
  EXPECT_EQ(r.status().label(), label) << r.status().to_string();
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidModel);
}

}  // namespace plumb::ir::testing
