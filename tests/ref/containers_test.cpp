// ref kernels of sequence, optional, map, string (expected values by hand).
#include <gtest/gtest.h>

#include "ir/text.h"
#include "ir/verify.h"
#include "runtime/session.h"
#include "tests/ref/kernel_test_util.h"

namespace plumb::rt {
namespace {

const ir::Type kF32Any = ir::Type::tensor(ir::DType::F32, {ir::Dim::symbolic()});

KernelRun seq(ir::SequenceKind kind, int64_t axis = 0, ir::Type elem = kF32Any) {
  KernelRun k(ir::Op::Sequence);
  k.attr("kind", ir::EnumValue{kind}).attr("axis", axis).attr("elem", ir::TypeAttr{std::move(elem)});
  return k;
}

SequenceValue two_items() {
  return SequenceValue{kF32Any, {make_tensor<float>({2}, {1, 2}), make_tensor<float>({3}, {3, 4, 5})}, {}};
}

Tensor pos(int64_t p) { return make_tensor<int64_t>({}, {p}); }

TEST(RefSequence, ConstructLengthConcat) {
  auto c = seq(ir::SequenceKind::Construct)
               .input(make_tensor<float>({2}, {1, 2}))
               .input(make_tensor<float>({1}, {3}))
               .run();
  ASSERT_TRUE(c.status.is_ok()) << c.status.to_string();
  const auto& s = std::get<SequenceValue>(c.outputs[0]);
  ASSERT_EQ(s.items.size(), 2u);
  EXPECT_EQ(values<float>(s.items[1]), std::vector<float>{3});

  auto n = seq(ir::SequenceKind::Length).input(s).run();
  ASSERT_TRUE(n.status.is_ok()) << n.status.to_string();
  EXPECT_EQ(values<int64_t>(n.out(0)), std::vector<int64_t>{2});

  auto cat = seq(ir::SequenceKind::ConcatAxis).input(s).run();
  ASSERT_TRUE(cat.status.is_ok()) << cat.status.to_string();
  EXPECT_EQ(values<float>(cat.out(0)), (std::vector<float>{1, 2, 3}));
}

TEST(RefSequence, StackAlongInnerAxis) {
  const ir::Type elem = ir::Type::tensor(ir::DType::F32, {2});
  SequenceValue s{elem, {make_tensor<float>({2}, {1, 2}), make_tensor<float>({2}, {3, 4})}, {}};
  auto r = seq(ir::SequenceKind::StackAxis, 1, elem).input(s).run();
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values<float>(r.out(0)), (std::vector<float>{1, 3, 2, 4}));
}

TEST(RefSequence, ConcatAlongAxisOneOfMatrices) {
  const ir::Type elem = ir::Type::tensor(ir::DType::I64, {2, ir::Dim::symbolic()});
  SequenceValue s{
      elem, {make_tensor<int64_t>({2, 1}, {1, 2}), make_tensor<int64_t>({2, 2}, {3, 4, 5, 6})}, {}};
  auto r = seq(ir::SequenceKind::ConcatAxis, 1, elem).input(s).run();
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(r.out(0).shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<int64_t>(r.out(0)), (std::vector<int64_t>{1, 3, 4, 2, 5, 6}));
}

TEST(RefSequence, InsertAtEraseOfStrings) {
  const ir::Type elem = ir::Type::tensor(ir::DType::String, {ir::Dim::symbolic()});
  SequenceValue s{
      elem, {make_tensor<std::string>({1}, {"a"}), make_tensor<std::string>({2}, {"b", "c"})}, {}};
  auto ins = seq(ir::SequenceKind::Insert, 0, elem)
                 .input(s)
                 .input(make_tensor<std::string>({1}, {"z"}))
                 .input(pos(1))
                 .run();
  ASSERT_TRUE(ins.status.is_ok()) << ins.status.to_string();
  const auto& s2 = std::get<SequenceValue>(ins.outputs[0]);
  ASSERT_EQ(s2.items.size(), 3u);
  EXPECT_EQ(values<std::string>(s2.items[1]), std::vector<std::string>{"z"});
  EXPECT_EQ(s.items.size(), 2u);  // the operand is unchanged

  auto at = seq(ir::SequenceKind::At, 0, elem).input(s2).input(pos(2)).run();
  ASSERT_TRUE(at.status.is_ok()) << at.status.to_string();
  EXPECT_EQ(values<std::string>(at.out(0)), (std::vector<std::string>{"b", "c"}));

  auto er = seq(ir::SequenceKind::Erase, 0, elem).input(s2).input(pos(0)).run();
  ASSERT_TRUE(er.status.is_ok());
  EXPECT_EQ(values<std::string>(std::get<SequenceValue>(er.outputs[0]).items[0]),
            std::vector<std::string>{"z"});
}

TEST(RefSequence, SplitIntoPieces) {
  auto r = seq(ir::SequenceKind::Split, 1, ir::Type::tensor(ir::DType::F32, {2, ir::Dim::symbolic()}))
               .input(make_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}))
               .input(make_tensor<int64_t>({2}, {1, 2}))
               .run();
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  const auto& s = std::get<SequenceValue>(r.outputs[0]);
  ASSERT_EQ(s.items.size(), 2u);
  EXPECT_EQ(values<float>(s.items[0]), (std::vector<float>{1, 4}));
  EXPECT_EQ(values<float>(s.items[1]), (std::vector<float>{2, 3, 5, 6}));
}

TEST(RefSequence, R1InsertPositionOutOfRange) {
  auto r = seq(ir::SequenceKind::Insert)
               .input(two_items())
               .input(make_tensor<float>({1}, {9}))
               .input(pos(3))
               .run();
  EXPECT_EQ(r.status.label(), "sequence.R1");
}

TEST(RefSequence, R2PositionOutOfRange) {
  EXPECT_EQ(seq(ir::SequenceKind::At).input(two_items()).input(pos(2)).run().status.label(), "sequence.R2");
  EXPECT_EQ(seq(ir::SequenceKind::Erase).input(two_items()).input(pos(-1)).run().status.label(),
            "sequence.R2");
}

TEST(RefSequence, R3JoinOfEmptySequence) {
  EXPECT_EQ(seq(ir::SequenceKind::ConcatAxis).input(SequenceValue{kF32Any, {}, {}}).run().status.label(),
            "sequence.R3");
}

TEST(RefSequence, R4ShapesDoNotFit) {
  EXPECT_EQ(seq(ir::SequenceKind::StackAxis).input(two_items()).run().status.label(), "sequence.R4");
}

TEST(RefSequence, R5SplitSizesWrong) {
  auto r = seq(ir::SequenceKind::Split)
               .input(make_tensor<float>({3}, {1, 2, 3}))
               .input(make_tensor<int64_t>({2}, {1, 1}))
               .run();
  EXPECT_EQ(r.status.label(), "sequence.R5");
  auto neg = seq(ir::SequenceKind::Split)
                 .input(make_tensor<float>({3}, {1, 2, 3}))
                 .input(make_tensor<int64_t>({2}, {4, -1}))
                 .run();
  EXPECT_EQ(neg.status.label(), "sequence.R5");
}

KernelRun opt(ir::OptionalKind kind, ir::Type elem = kF32Any) {
  KernelRun k(ir::Op::Optional);
  k.attr("kind", ir::EnumValue{kind}).attr("elem", ir::TypeAttr{std::move(elem)});
  return k;
}

TEST(RefOptional, WrapHasGet) {
  auto w = opt(ir::OptionalKind::Wrap).input(make_tensor<float>({1}, {2.5f})).run();
  ASSERT_TRUE(w.status.is_ok()) << w.status.to_string();
  auto h = opt(ir::OptionalKind::Has).input(w.outputs[0]).run();
  ASSERT_TRUE(h.status.is_ok());
  EXPECT_EQ(values<bool>(h.out(0)), std::vector<bool>{true});
  auto g = opt(ir::OptionalKind::Get).input(w.outputs[0]).run();
  ASSERT_TRUE(g.status.is_ok()) << g.status.to_string();
  EXPECT_EQ(values<float>(g.out(0)), std::vector<float>{2.5f});
}

TEST(RefOptional, R1GetOfEmpty) {
  auto none = opt(ir::OptionalKind::None).run();
  ASSERT_TRUE(none.status.is_ok()) << none.status.to_string();
  auto h = opt(ir::OptionalKind::Has).input(none.outputs[0]).run();
  EXPECT_EQ(values<bool>(h.out(0)), std::vector<bool>{false});
  EXPECT_EQ(opt(ir::OptionalKind::Get).input(none.outputs[0]).run().status.label(), "optional.R1");
}

KernelRun map(ir::MapKind kind) {
  KernelRun k(ir::Op::Map);
  k.attr("kind", ir::EnumValue{kind});
  return k;
}

TEST(RefMap, ConstructKeysValues) {
  auto m = map(ir::MapKind::Construct)
               .input(make_tensor<std::string>({2}, {"b", "a"}))
               .input(make_tensor<float>({2}, {1, 2}))
               .run();
  ASSERT_TRUE(m.status.is_ok()) << m.status.to_string();
  auto k = map(ir::MapKind::Keys).input(m.outputs[0]).run();
  ASSERT_TRUE(k.status.is_ok()) << k.status.to_string();
  EXPECT_EQ(values<std::string>(k.out(0)), (std::vector<std::string>{"b", "a"}));  // insertion order
  auto v = map(ir::MapKind::Values).input(m.outputs[0]).run();
  EXPECT_EQ(values<float>(v.out(0)), (std::vector<float>{1, 2}));
}

TEST(RefMap, R1RepeatedKey) {
  auto m = map(ir::MapKind::Construct)
               .input(make_tensor<int64_t>({3}, {4, 5, 4}))
               .input(make_tensor<float>({3}, {1, 2, 3}))
               .run();
  EXPECT_EQ(m.status.label(), "map.R1");
}

KernelRun str(ir::StringKind kind, std::string pattern = "", int64_t maxsplit = -1) {
  KernelRun k(ir::Op::String);
  k.attr("kind", ir::EnumValue{kind}).attr("pattern", std::move(pattern)).attr("maxsplit", maxsplit);
  return k;
}

TEST(RefString, ConcatAndCaseMapping) {
  auto c = str(ir::StringKind::Concat)
               .input(make_tensor<std::string>({2}, {"ab", "\xC3\xBF\xC3\xA9"}))  // "ÿé"
               .input(make_tensor<std::string>({2}, {"c", "x"}))
               .run();
  ASSERT_TRUE(c.status.is_ok()) << c.status.to_string();
  auto u = str(ir::StringKind::Upper).input(c.outputs[0]).run();
  ASSERT_TRUE(u.status.is_ok()) << u.status.to_string();
  // ÿ (U+00FF) has no 1:1 upper case in the spec's table; é -> É (U+00C9).
  EXPECT_EQ(values<std::string>(u.out(0)), (std::vector<std::string>{"ABC", "\xC3\xBF\xC3\x89X"}));
  auto l =
      str(ir::StringKind::Lower).input(make_tensor<std::string>({1}, {"\xD0\x9F\xCE\xA3Z"})).run();  // "ПΣZ"
  ASSERT_TRUE(l.status.is_ok());
  EXPECT_EQ(values<std::string>(l.out(0)), std::vector<std::string>{"\xD0\xBF\xCF\x83z"});  // "пσz"
}

TEST(RefString, R1InvalidUtf8) {
  EXPECT_EQ(str(ir::StringKind::Lower).input(make_tensor<std::string>({1}, {"a\xC3"})).run().status.label(),
            "string.R1");
  EXPECT_EQ(
      str(ir::StringKind::Upper).input(make_tensor<std::string>({1}, {"\xED\xA0\x80"})).run().status.label(),
      "string.R1");  // a UTF-16 surrogate
}

TEST(RefString, SplitWhitespaceAndDelimiter) {
  auto ws = str(ir::StringKind::Split, "", -1)
                .input(make_tensor<std::string>({2}, {"  a bb\tc ", ""}))
                .outputs(2)
                .run();
  ASSERT_TRUE(ws.status.is_ok()) << ws.status.to_string();
  EXPECT_EQ(ws.out(0).shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<std::string>(ws.out(0)), (std::vector<std::string>{"a", "bb", "c", "", "", ""}));
  EXPECT_EQ(values<int64_t>(ws.out(1)), (std::vector<int64_t>{3, 0}));
  auto d =
      str(ir::StringKind::Split, ",", 1).input(make_tensor<std::string>({1}, {"a,,b,c"})).outputs(2).run();
  ASSERT_TRUE(d.status.is_ok());
  EXPECT_EQ(values<std::string>(d.out(0)), (std::vector<std::string>{"a", ",b,c"}));
  auto keep =
      str(ir::StringKind::Split, ",", -1).input(make_tensor<std::string>({1}, {"a,,b"})).outputs(2).run();
  EXPECT_EQ(values<std::string>(keep.out(0)), (std::vector<std::string>{"a", "", "b"}));
}

TEST(RefString, RegexFullMatch) {
  auto r = str(ir::StringKind::RegexFullMatch, "[a-z]+@[a-z]+\\.com")
               .input(make_tensor<std::string>({3}, {"me@x.com", "me@x.com.au", "ME@x.com"}))
               .run();
#ifdef PLUMB_TEST_NO_RE2
  GTEST_SKIP();
#endif
  if (!r.status.is_ok() && r.status.message().find("needs RE2") != std::string::npos)
    GTEST_SKIP() << "no RE2 in this build";
  ASSERT_TRUE(r.status.is_ok()) << r.status.to_string();
  EXPECT_EQ(values<bool>(r.out(0)), (std::vector<bool>{true, false, false}));
}

TEST(RefString, R2InvalidPattern) {
  auto r = str(ir::StringKind::RegexFullMatch, "(unclosed").input(make_tensor<std::string>({1}, {"x"})).run();
  EXPECT_EQ(r.status.label(), "string.R2");
}

// Through the executor: a container op whose result type is static gets a preallocated result,
// which the kernel must fill in place (found by the core conformance vectors, spec/vectors).
TEST(RefContainers, StaticResultsFillPreallocatedBuffers) {
  auto g = ir::parse_graph(R"(plumb 1
func @main(%x: f32[2]) -> (bool[], f32[2], i64[], f32[2], i64[?]) {
  %o = optional %x {kind = wrap, elem = f32[2]} : opt<f32[2]>
  %h = optional %o {kind = has, elem = f32[2]} : bool[]
  %v = optional %o {kind = get, elem = f32[2]} : f32[2]
  %s = sequence %x, %x {kind = construct, axis = 0, elem = f32[2]} : seq<f32[2]>
  %n = sequence %s {kind = length, axis = 0, elem = f32[2]} : i64[]
  %p = constant {value = dense<i64[]>[1]} : i64[]
  %a = sequence %s, %p {kind = at, axis = 0, elem = f32[2]} : f32[2]
  %k = constant {value = dense<i64[2]>[4, 9]} : i64[2]
  %m = map %k, %x {kind = construct} : map<i64,f32[]>
  %ks = map %m {kind = keys} : i64[?]
  return %h, %v, %n, %a, %ks
}
)");
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  auto s = Session::create(std::move(*g));
  ASSERT_TRUE(s.has_value()) << s.status().to_string();
  ASSERT_TRUE((*s)->set_input(0, make_tensor<float>({2}, {1.5f, -2.0f})).is_ok());
  const Status st = (*s)->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(values<bool>((*s)->output(0).tensor()), (std::vector<bool>{true}));
  EXPECT_EQ(values<float>((*s)->output(1).tensor()), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(values<int64_t>((*s)->output(2).tensor()), (std::vector<int64_t>{2}));
  EXPECT_EQ(values<float>((*s)->output(3).tensor()), (std::vector<float>{1.5f, -2.0f}));
  EXPECT_EQ(values<int64_t>((*s)->output(4).tensor()), (std::vector<int64_t>{4, 9}));
}

// Sequences of maps (sequence.C2: the kinds that move whole elements), as ONNX ZipMap returns.
TEST(RefContainers, SequenceOfMaps) {
  auto g = ir::parse_graph(R"(plumb 1
func @main(%k: i64[2], %v: f32[2], %w: f32[2]) -> (i64[], f32[?], i64[]) {
  %m = map %k, %v {kind = construct} : map<i64,f32[]>
  %n = map %k, %w {kind = construct} : map<i64,f32[]>
  %s = sequence %m {kind = construct, axis = 0, elem = map<i64,f32[]>} : seq<map<i64,f32[]>>
  %p0 = constant {value = dense<i64[]>[0]} : i64[]
  %s2 = sequence %s, %n, %p0 {kind = insert, axis = 0, elem = map<i64,f32[]>} : seq<map<i64,f32[]>>
  %len = sequence %s2 {kind = length, axis = 0, elem = map<i64,f32[]>} : i64[]
  %first = sequence %s2, %p0 {kind = at, axis = 0, elem = map<i64,f32[]>} : map<i64,f32[]>
  %vals = map %first {kind = values} : f32[?]
  %s3 = sequence %s2, %p0 {kind = erase, axis = 0, elem = map<i64,f32[]>} : seq<map<i64,f32[]>>
  %len3 = sequence %s3 {kind = length, axis = 0, elem = map<i64,f32[]>} : i64[]
  return %len, %vals, %len3
}
)");
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  auto s = Session::create(std::move(*g));
  ASSERT_TRUE(s.has_value()) << s.status().to_string();
  ASSERT_TRUE((*s)->set_input(0, make_tensor<int64_t>({2}, {3, 7})).is_ok());
  ASSERT_TRUE((*s)->set_input(1, make_tensor<float>({2}, {1.0f, 2.0f})).is_ok());
  ASSERT_TRUE((*s)->set_input(2, make_tensor<float>({2}, {-0.5f, 9.0f})).is_ok());
  const Status st = (*s)->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_EQ(values<int64_t>((*s)->output(0).tensor()), (std::vector<int64_t>{2}));
  EXPECT_EQ(values<float>((*s)->output(1).tensor()), (std::vector<float>{-0.5f, 9.0f}));  // inserted first
  EXPECT_EQ(values<int64_t>((*s)->output(2).tensor()), (std::vector<int64_t>{1}));
}

// Map elements are refused by the kinds that look inside elements (concat, stack, split).
TEST(RefContainers, SequenceOfMapsRefusesConcat) {
  auto g = ir::parse_graph(R"(plumb 1
func @main(%k: i64[2], %v: f32[2]) -> (f32[?]) {
  %m = map %k, %v {kind = construct} : map<i64,f32[]>
  %s = sequence %m {kind = construct, axis = 0, elem = map<i64,f32[]>} : seq<map<i64,f32[]>>
  %c = sequence %s {kind = concat, axis = 0, elem = map<i64,f32[]>} : f32[?]
  return %c
}
)");
  ASSERT_TRUE(g.has_value()) << g.status().to_string();
  const Status v = ir::verify(*g);
  EXPECT_EQ(v.label(), "sequence.C2") << v.to_string();
}

}  // namespace
}  // namespace plumb::rt
