// Fixtures shared by the IR tests: a constant of every dtype in the text form, and a hand-built
// graph of one node (no builder, so that tests can choose its value ids).
#pragma once

#include <string>

#include "ir/attrs.h"
#include "ir/graph.h"

namespace plumb::ir::testing {

// Text-form lines (a function body's) defining one constant of each dtype: the sub-byte packed
// ones, the narrow floats with their special values, hex bit patterns, the extremes of the
// integers; value names %b, %i2, ..., %d. Each test adds a string constant and what it needs.
inline const char* const kEveryDtypeConstant =
    R"(  %b = constant {value = dense<bool[2]>[true, false]} : bool[2]
  %i2 = constant {value = dense<i2[3]>[-2, 1, 0]} : i2[3]
  %u2 = constant {value = dense<u2[5]>[3, 2, 1, 0, 3]} : u2[5]
  %i4 = constant {value = dense<i4[3]>[-8, 7, 1]} : i4[3]
  %u4 = constant {value = dense<u4[2]>[15, 0]} : u4[2]
  %i8 = constant {value = dense<i8[2]>[-128, 127]} : i8[2]
  %i16 = constant {value = dense<i16[2]>[-32768, 32767]} : i16[2]
  %i32 = constant {value = dense<i32[2,1]>[-2147483648, 2147483647]} : i32[2,1]
  %i64 = constant {value = dense<i64[2]>[-9223372036854775808, 9223372036854775807]} : i64[2]
  %u8 = constant {value = dense<u8[1]>[255]} : u8[1]
  %u16 = constant {value = dense<u16[1]>[65535]} : u16[1]
  %u32 = constant {value = dense<u32[1]>[4294967295]} : u32[1]
  %u64 = constant {value = dense<u64[1]>[18446744073709551615]} : u64[1]
  %f4 = constant {value = dense<f4e2m1[3]>[6, -0.5, 0]} : f4e2m1[3]
  %e4 = constant {value = dense<f8e4m3fn[3]>[448, -0.001953125, nan]} : f8e4m3fn[3]
  %e4uz = constant {value = dense<f8e4m3fnuz[2]>[240, nan]} : f8e4m3fnuz[2]
  %e5 = constant {value = dense<f8e5m2[3]>[57344, -inf, 0x7f]} : f8e5m2[3]
  %e5uz = constant {value = dense<f8e5m2fnuz[1]>[-1.5]} : f8e5m2fnuz[1]
  %e8 = constant {value = dense<f8e8m0[2]>[1, 0.5]} : f8e8m0[2]
  %h = constant {value = dense<f16[4]>[0.1, -inf, -0, 0x7e01]} : f16[4]
  %bf = constant {value = dense<bf16[2]>[0.1, 3.140625]} : bf16[2]
  %f = constant {value = dense<f32[3]>[0.1, 1e-45, 3.4028235e+38]} : f32[3]
  %d = constant {value = dense<f64[3]>[0.1, -0, 1.7976931348623157e+308]} : f64[3]
)";

// g's body becomes y = neg(x), f32 values added by the caller: x its only param (input name
// `x_name`), y its only result, named "y".
inline void set_neg_body(Graph& g, ValueId x, ValueId y, const std::string& x_name) {
  g.body.params = {x};
  g.input_names = {x_name};
  Node n;
  n.op = Op::Unary;
  n.inputs = {x};
  n.outputs = {y};
  n.attrs = {{"kind", EnumValue{UnaryKind::Neg}}};
  g.body.nodes.push_back(n);
  g.body.results = {y};
  g.output_names = {"y"};
}

}  // namespace plumb::ir::testing
