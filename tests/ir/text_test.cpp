// The text form (spec/text_form.md): exact printing, parse(print(g)) round trips, parse errors
// with line:col, and the narrow-float encodings used for dense literals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "ir/attrs.h"
#include "ir/narrow_float.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "tests/ir/graph_fixtures.h"

namespace plumb::ir {
namespace {

std::string roundtrip_print(const std::string& text) {
  auto g1 = parse_graph(text);
  EXPECT_TRUE(g1.has_value()) << g1.status().to_string();
  if (!g1) return {};
  const std::string p1 = print_graph(*g1);
  auto g2 = parse_graph(p1);
  EXPECT_TRUE(g2.has_value()) << g2.status().to_string() << "\n" << p1;
  if (!g2) return {};
  EXPECT_EQ(print_graph(*g2), p1);
  return p1;
}

const ConstantData& const_of_node(const Graph& g, size_t node) {
  return g.constants[attrs<Op::Constant>(g.body.nodes[node]).value.index];
}

std::vector<uint8_t> bytes_of(const ConstantData& c) { return std::vector<uint8_t>(c.data, c.data + c.size); }

TEST(NarrowFloat, EncodesRoundToNearestEven) {
  // Hand-computed bit patterns (IEEE 754 binary16, bfloat16, OCP FP8 / FP4 tables).
  EXPECT_EQ(*double_to_float_bits(DType::F16, 1.0), 0x3c00u);
  EXPECT_EQ(*double_to_float_bits(DType::F16, 0.1), 0x2e66u);
  EXPECT_EQ(*double_to_float_bits(DType::F16, 65504.0), 0x7bffu);
  EXPECT_EQ(*double_to_float_bits(DType::F16, 65519.0), 0x7bffu);
  EXPECT_EQ(*double_to_float_bits(DType::F16, 65520.0), 0x7c00u);  // rounds to inf
  EXPECT_EQ(*double_to_float_bits(DType::F16, -0.0), 0x8000u);
  EXPECT_EQ(*double_to_float_bits(DType::F16, std::ldexp(1.0, -24)), 0x0001u);  // smallest subnormal
  EXPECT_EQ(*double_to_float_bits(DType::F16, std::ldexp(1.0, -25)), 0x0000u);  // tie to even: 0
  EXPECT_EQ(*double_to_float_bits(DType::F16, std::ldexp(3.0, -25)), 0x0002u);  // tie to even: 2
  EXPECT_EQ(*double_to_float_bits(DType::BF16, 1.0), 0x3f80u);
  EXPECT_EQ(*double_to_float_bits(DType::BF16, 0.1), 0x3dcdu);
  EXPECT_EQ(*double_to_float_bits(DType::F32, 0.1), 0x3dcccccdu);
  EXPECT_EQ(*double_to_float_bits(DType::F8E4M3FN, 448.0), 0x7eu);
  EXPECT_EQ(*double_to_float_bits(DType::F8E4M3FN, 464.0), 0x7eu);  // tie, to even
  EXPECT_FALSE(double_to_float_bits(DType::F8E4M3FN, 480.0).has_value());
  EXPECT_FALSE(double_to_float_bits(DType::F8E4M3FN, INFINITY).has_value());
  EXPECT_EQ(*double_to_float_bits(DType::F8E4M3FN, NAN), 0x7fu);
  EXPECT_EQ(*double_to_float_bits(DType::F8E4M3FNUZ, 240.0), 0x7fu);
  EXPECT_EQ(*double_to_float_bits(DType::F8E4M3FNUZ, -0.0), 0x00u);
  EXPECT_EQ(*double_to_float_bits(DType::F8E4M3FNUZ, NAN), 0x80u);
  EXPECT_EQ(*double_to_float_bits(DType::F8E5M2, 57344.0), 0x7bu);
  EXPECT_EQ(*double_to_float_bits(DType::F8E5M2, -INFINITY), 0xfcu);
  EXPECT_EQ(*double_to_float_bits(DType::F8E5M2FNUZ, 57344.0), 0x7fu);
  EXPECT_EQ(*double_to_float_bits(DType::F4E2M1, 6.0), 0x7u);
  EXPECT_EQ(*double_to_float_bits(DType::F4E2M1, -0.5), 0x9u);
  EXPECT_EQ(*double_to_float_bits(DType::F4E2M1, 5.0), 0x6u);  // tie between 4 and 6, to even
  EXPECT_FALSE(double_to_float_bits(DType::F4E2M1, NAN).has_value());
  EXPECT_EQ(*double_to_float_bits(DType::F8E8M0, 1.0), 0x7fu);
  EXPECT_EQ(*double_to_float_bits(DType::F8E8M0, 0.5), 0x7eu);
  EXPECT_FALSE(double_to_float_bits(DType::F8E8M0, 3.0).has_value());
}

TEST(NarrowFloat, DecodesExactly) {
  EXPECT_EQ(float_bits_to_double(DType::F16, 0x3555), 0.333251953125);
  EXPECT_EQ(float_bits_to_double(DType::F16, 0x0001), std::ldexp(1.0, -24));
  EXPECT_TRUE(std::isinf(float_bits_to_double(DType::F16, 0xfc00)));
  EXPECT_EQ(float_bits_to_double(DType::F8E4M3FN, 0x7e), 448.0);
  EXPECT_TRUE(std::isnan(float_bits_to_double(DType::F8E4M3FN, 0xff)));
  EXPECT_EQ(float_bits_to_double(DType::F8E4M3FNUZ, 0x01), std::ldexp(1.0, -10));
  EXPECT_EQ(float_bits_to_double(DType::F4E2M1, 0xf), -6.0);
  EXPECT_EQ(float_bits_to_double(DType::F8E8M0, 0x00), std::ldexp(1.0, -127));
}

TEST(NarrowFloat, EveryPatternRoundTrips) {
  for (DType dt : {DType::F4E2M1, DType::F8E4M3FN, DType::F8E4M3FNUZ, DType::F8E5M2, DType::F8E5M2FNUZ,
                   DType::F8E8M0, DType::F16, DType::BF16}) {
    const uint64_t count = uint64_t{1} << dtype_bits(dt);
    for (uint64_t b = 0; b < count; ++b) {
      const double v = float_bits_to_double(dt, b);
      if (std::isnan(v)) continue;
      auto back = double_to_float_bits(dt, v);
      ASSERT_TRUE(back.has_value()) << dtype_name(dt) << " " << b;
      EXPECT_EQ(*back, b) << dtype_name(dt);
    }
  }
}

TEST(TextForm, PrintsExactly) {
  const std::string text =
      "plumb 1\n"
      "func @main(%x: f32[3], %y: f32[3]) -> (f32[3]) {\n"
      "  %z = binary %x, %y {kind = add} : f32[3]\n"
      "  return %z\n"
      "}\n";
  auto g = parse_graph(text);
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  EXPECT_TRUE(verify(*g).is_ok()) << verify(*g).to_string();
  EXPECT_EQ(print_graph(*g), text);
  EXPECT_EQ(g->input_names, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(g->output_names, (std::vector<std::string>{"z"}));
  EXPECT_EQ(g->values[g->body.results[0]].onnx_name, "z");
}

TEST(TextForm, DuplicateOnnxNamesGetSuffixes) {
  Graph g;
  const ValueId a = g.add_value(Type::tensor(DType::F32, {Dim(2)}), "x");
  const ValueId b = g.add_value(Type::tensor(DType::F32, {Dim(2)}), "x");
  const ValueId c = g.add_value(Type::tensor(DType::F32, {Dim(2)}), "x#1");  // not an identifier
  g.body.params = {a};
  g.input_names = {"x"};
  for (ValueId out : {b, c}) {
    Node n;
    n.op = Op::Unary;
    n.inputs = {a};
    n.outputs = {out};
    n.attrs = {{"kind", EnumValue{UnaryKind::Neg}}};
    g.body.nodes.push_back(n);
  }
  g.body.results = {b, c};
  g.output_names = {"x", "x#1"};
  const std::string expected =
      "plumb 1\n"
      "func @main(%x: f32[2]) -> (f32[2], f32[2]) {\n"
      "  %x#1 = unary %x {kind = neg} : f32[2]\n"
      "  %\"x#1\" = unary %x {kind = neg} : f32[2]\n"
      "  return %x#1, %\"x#1\"\n"
      "}\n";
  EXPECT_EQ(print_graph(g), expected);
  auto parsed = parse_graph(expected);
  ASSERT_TRUE(parsed.has_value()) << parsed.status().to_string();
  EXPECT_EQ(print_graph(*parsed), expected);
  EXPECT_EQ(parsed->values[parsed->body.results[0]].onnx_name, "x");
  EXPECT_EQ(parsed->values[parsed->body.results[1]].onnx_name, "x#1");
}

TEST(TextForm, FloatAttributesPrintShortestWithBitsForOddNaNs) {
  // No core v1 op has Float/Floats attributes; the printer still writes them (unverified node).
  Graph g;
  const ValueId x = g.add_value(Type::tensor(DType::F32, {}), "x");
  g.body.params = {x};
  g.input_names = {"x"};
  Node n;
  n.op = Op::Unary;
  n.inputs = {x};
  n.outputs = {g.add_value(Type::tensor(DType::F32, {}))};
  uint64_t odd_nan_bits = 0xfff8000000000001ull;
  double odd_nan;
  std::memcpy(&odd_nan, &odd_nan_bits, 8);
  n.attrs = {{"kind", EnumValue{UnaryKind::Neg}},
             {"alpha", 1.0},
             {"beta", std::vector<double>{0.1, -0.0, NAN, -INFINITY, 1e300, odd_nan}}};
  g.body.nodes.push_back(n);
  g.body.results = {n.outputs[0]};
  g.output_names = {""};
  EXPECT_NE(print_graph(g).find("{kind = neg, alpha = 1.0, beta = [0.1, -0.0, nan, -inf, 1e+300, "
                                "0xfff8000000000001]}"),
            std::string::npos)
      << print_graph(g);
}

TEST(TextForm, AnonymousValuesAreNumberedInDefinitionOrder) {
  Graph g;
  // Value ids deliberately out of definition order.
  const ValueId out = g.add_value(Type::tensor(DType::F32, {Dim(2)}));
  const ValueId in = g.add_value(Type::tensor(DType::F32, {Dim(2)}));
  testing::set_neg_body(g, in, out, "");
  EXPECT_EQ(print_graph(g),
            "plumb 1\n"
            "func @main(%0: f32[2]) -> (f32[2] as \"y\") {\n"
            "  %1 = unary %0 {kind = neg} : f32[2]\n"
            "  return %1\n"
            "}\n");
}

const std::string kRich = R"(plumb 1
producer "test \"producer\"\n"
// a comment
func @main(%x: f32[2,N], %"in/1:0": i64[], %7: string[*] as "renamed", %p: bool[]) -> (f32[2,N] as "out", i64[]) {
)" + std::string(testing::kEveryDtypeConstant) +
                          R"(  %s = constant {value = dense<string[2]>["a\tb\x01", ""]} : string[2]
  %e = constant {value = dense<f32[0,3]>[]} : f32[0,3]
  %m = string %s {kind = regex_full_match, pattern = "a.*\\d", maxsplit = -1} : bool[2]
  %q = sequence {kind = empty, axis = 0, elem = f32[*]} : seq<f32[*]>
  %o = optional {kind = none, elem = map<string,opt<i64[?,"batch size"]>>} : opt<map<string,opt<i64[?,"batch size"]>>>
  %r = if %p {
    then () {
      %z = unary %x {kind = exp} : f32[2,N] loc("Exp_1", Exp, 13, "exp")
      yield %z
    }
    else () {
      yield %x
    }
  } : f32[2,N]
  %w1, %w2 = while %x, %"in/1:0" {
    cond (%a: f32[2,N], %k: i64[]) {
      %t = compare %k, %k {kind = lt} : bool[]
      yield %t
    }
    body (%a: f32[2,N], %k: i64[]) {
      yield %a, %k
    }
  } : f32[2,N], i64[] loc("", "ai.onnx.ml.Loop", 0)
  return %r, %w2
}
// input %x = ignored trailing comment
)";

TEST(TextForm, RichGraphRoundTrips) {
  const std::string p = roundtrip_print(kRich);
  ASSERT_FALSE(p.empty());
  // Spot checks of the canonical form (hand-written expectations).
  EXPECT_NE(p.find("producer \"test \\\"producer\\\"\\n\"\n"), std::string::npos) << p;
  EXPECT_NE(
      p.find("func @main(%x: f32[2,N], %\"in/1:0\": i64[], %0: string[*] as \"renamed\", %p: bool[]) -> "
             "(f32[2,N] as \"out\", i64[]) {"),
      std::string::npos)
      << p;
  EXPECT_NE(p.find("dense<f16[4]>[0.099975586, -inf, -0, 0x7e01]"), std::string::npos) << p;
  EXPECT_NE(p.find("dense<f8e4m3fn[3]>[448, -0.001953125, nan]"), std::string::npos) << p;
  EXPECT_NE(p.find("dense<f8e5m2[3]>[57344, -inf, 0x7f]"), std::string::npos) << p;
  EXPECT_NE(p.find("dense<bf16[2]>[0.100097656, 3.140625]"), std::string::npos) << p;
  EXPECT_NE(p.find("dense<f8e8m0[2]>[1, 0.5]"), std::string::npos) << p;
  EXPECT_NE(p.find("dense<string[2]>[\"a\\tb\\x01\", \"\"]"), std::string::npos) << p;
  EXPECT_NE(p.find("dense<f32[3]>[0.1, 1e-45, 3.4028235e+38]"), std::string::npos) << p;
  EXPECT_NE(p.find("%a#1: f32[2,N], %k#1: i64[]"), std::string::npos) << p;  // sibling region reuse
  EXPECT_NE(p.find("loc(\"Exp_1\", Exp, 13, \"exp\")"), std::string::npos) << p;
  EXPECT_NE(p.find("loc(\"\", ai.onnx.ml.Loop, 0)"), std::string::npos) << p;
  EXPECT_NE(p.find("opt<map<string,opt<i64[?,\"batch size\"]>>>"), std::string::npos) << p;
}

TEST(TextForm, DenseLiteralsPackAsTheFileFormat) {
  auto g = parse_graph(kRich);
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  EXPECT_EQ(bytes_of(const_of_node(*g, 0)), (std::vector<uint8_t>{1, 0}));
  EXPECT_EQ(bytes_of(const_of_node(*g, 1)), (std::vector<uint8_t>{0x06}));        // 10, 01, 00 low first
  EXPECT_EQ(bytes_of(const_of_node(*g, 2)), (std::vector<uint8_t>{0x1b, 0x03}));  // 3,2,1,0 | 3
  EXPECT_EQ(bytes_of(const_of_node(*g, 3)), (std::vector<uint8_t>{0x78, 0x01}));
  EXPECT_EQ(bytes_of(const_of_node(*g, 4)), (std::vector<uint8_t>{0x0f}));
  EXPECT_EQ(bytes_of(const_of_node(*g, 6)), (std::vector<uint8_t>{0x00, 0x80, 0xff, 0x7f}));
  EXPECT_EQ(bytes_of(const_of_node(*g, 13)), (std::vector<uint8_t>{0x97, 0x00}));  // 6 = 0x7, -0.5 = 0x9
  EXPECT_EQ(bytes_of(const_of_node(*g, 19)),
            (std::vector<uint8_t>{0x66, 0x2e, 0x00, 0xfc, 0x00, 0x80, 0x01, 0x7e}));
  EXPECT_EQ(bytes_of(const_of_node(*g, 23)),
            (std::vector<uint8_t>{4, 0, 0, 0, 'a', '\t', 'b', 1, 0, 0, 0, 0}));
  EXPECT_EQ(const_of_node(*g, 24).size, 0u);
  EXPECT_EQ(g->input_names, (std::vector<std::string>{"x", "in/1:0", "renamed", "p"}));
  EXPECT_EQ(g->output_names, (std::vector<std::string>{"out", "w2"}));
  EXPECT_TRUE(g->values[g->body.params[2]].onnx_name.empty());
}

TEST(TextForm, TruncatedAndMutatedTextIsAnErrorOrRoundTrips) {
  const std::string text = kRich;
  auto check = [](const std::string& t) {
    auto g = parse_graph(t);
    if (!g) {
      EXPECT_EQ(g.status().code(), ErrorCode::kInvalidModel);
      EXPECT_NE(g.status().message().find(':'), std::string::npos);
      return;
    }
    const std::string p = print_graph(*g);
    auto again = parse_graph(p);
    ASSERT_TRUE(again.has_value()) << again.status().to_string() << "\n" << p;
    EXPECT_EQ(print_graph(*again), p);
  };
  for (size_t n = 0; n < text.size(); n += 5) check(text.substr(0, n));
  const char kBytes[] = "%\"\\#{}[]()<>,:=?*-0123456789.ex \n\x01\xff";
  uint64_t state = 12345;
  for (int i = 0; i < 800; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    std::string t = text;
    t[(state >> 33) % t.size()] = kBytes[(state >> 13) % (sizeof(kBytes) - 1)];
    check(t);
  }
}

void expect_parse_error(const std::string& text, const std::string& expected) {
  auto g = parse_graph(text);
  ASSERT_FALSE(g.has_value()) << text;
  EXPECT_EQ(g.status().code(), ErrorCode::kInvalidModel);
  EXPECT_EQ(g.status().message(), expected) << text;
}

TEST(TextForm, ParseErrorsNameLineAndColumn) {
  const std::string head = "plumb 1\nfunc @main(%x: f32[2]) -> (f32[2]) {\n";
  expect_parse_error(head + "  %y = bogus %x : f32[2]\n  return %y\n}\n", "3:8: unknown op 'bogus'");
  expect_parse_error(head + "  %y = unary %q {kind = neg} : f32[2]\n  return %y\n}\n",
                     "3:14: value %q is not defined here");
  expect_parse_error(head + "  %x = unary %x {kind = neg} : f32[2]\n  return %x\n}\n",
                     "3:3: value %x is already defined");
  expect_parse_error(head + "  %y = unary %x {kind = nope} : f32[2]\n  return %y\n}\n",
                     "3:25: expected a UnaryKind value, found 'nope'");
  expect_parse_error(head + "  %y = unary %x {kind = neg, axis = 1} : f32[2]\n  return %y\n}\n",
                     "3:30: unary has no attribute 'axis'");
  expect_parse_error(head + "  %c = constant {value = dense<i4[1]>[8]} : i4[1]\n  return %x\n}\n",
                     "3:39: 8 is out of range for i4");
  expect_parse_error(
      head + "  %c = constant {value = dense<f8e4m3fn[1]>[1000]} : f8e4m3fn[1]\n  return %x\n}\n",
      "3:45: 1000 is not representable in f8e4m3fn");
  expect_parse_error(head + "  %c = constant {value = dense<f32[3]>[1, 2]} : f32[3]\n  return %x\n}\n",
                     "3:44: 2 elements for f32[3], which holds 3");
  expect_parse_error(head + "  %c = constant {value = dense<f32[300]>[...]} : f32[300]\n  return %x\n}\n",
                     "3:42: an elided constant cannot be parsed (print it in full)");
  expect_parse_error(head + "  %c = string %x {pattern = \"abc\n", "3:29: unterminated string");
  expect_parse_error(head + "  %y = unary %x {kind = neg}\n  return %y\n}\n",
                     "3:8: 1 results but 0 result types");
  expect_parse_error(head + "  return\n}\n", "3:3: return has 0 values, the signature declares 1");
  expect_parse_error("plumb 1\nfunc @main() -> () {\n  return\n}\nextra",
                     "5:1: expected the end of the text after the function");
  expect_parse_error(head + "  %y = unary %x {kind = neg} : f32[2]\n  return %y\n",
                     "5:1: expected '}', found the end of the text");
}

}  // namespace
}  // namespace plumb::ir
