// The backend interface (runtime/backend.h, partition.h, schedule.h, executor.h) on the tests'
// backend (tests/test_backend/): partition into spans, the executor's refusals and fallbacks,
// compile-time declines, host<->device copies at span borders, per-span scratch, constants
// bound once per graph, and results bit for bit equal to ref's.
#include <gtest/gtest.h>

#include <cstring>

#include "ir/builder.h"
#include "runtime/session.h"
#include "tests/ref/kernel_test_util.h"
#include "tests/test_backend/test_backend.h"

namespace plumb::rt {
namespace {

using ir::BinaryKind;
using ir::Builder;
using ir::DType;
using ir::Type;
using ir::UnaryKind;

std::unique_ptr<Backend> make_claim_everything() {
  return std::make_unique<test::TestBackend>(test::TestBackendOptions{true});
}
std::unique_ptr<Backend> make_tiny_scratch() {
  return std::make_unique<test::TestBackend>(test::TestBackendOptions{false, 16});
}

SessionOptions on(const std::string& backend, NumericMode mode = NumericMode::kNative) {
  SessionOptions o;
  o.backend = backend;
  o.mode = mode;
  o.extra_backends = {{"test", test::make_backend},
                      {"test_claim_everything", make_claim_everything},
                      {"test_tiny_scratch", make_tiny_scratch}};
  return o;
}

std::unique_ptr<Session> open(const ir::Graph& g, const SessionOptions& o) {
  auto s = Session::create(g, o);
  EXPECT_TRUE(s.has_value()) << s.status().to_string();
  return s.has_value() ? std::move(*s) : nullptr;
}

bool same_bytes(const RtValue& a, const RtValue& b) {
  if (!a.is_tensor() || !b.is_tensor()) return false;
  const Tensor& x = a.tensor();
  const Tensor& y = b.tensor();
  return x.dtype == y.dtype && x.shape == y.shape && x.nbytes() == y.nbytes() &&
         (x.nbytes() == 0 || std::memcmp(x.data, y.data, static_cast<size_t>(x.nbytes())) == 0);
}

// v = abs(-x * x) + x, then a reduce (not elementwise: ref), then e = exp of the sum; and
// wc = w * c with a constant c. Spans: [neg..add], [exp, constant c, mul].
ir::Graph chain_reduce_chain() {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {ir::Dim::symbolic("N")}), "x");
  auto v = b.unary(UnaryKind::Neg, x);
  v = b.binary(BinaryKind::Mul, v, x);
  v = b.unary(UnaryKind::Abs, v);
  v = b.binary(BinaryKind::Add, v, x);
  auto r = b.reduce(ir::ReduceKind::Sum, v, {0});
  auto e = b.unary(UnaryKind::Exp, r);
  auto w = b.input(Type::tensor(DType::F32, {3}), "w");
  const std::vector<float> c_values = {0.5f, -1.25f, 3.0f};
  std::vector<uint8_t> bytes(sizeof(float) * c_values.size());
  std::memcpy(bytes.data(), c_values.data(), bytes.size());
  auto c = b.constant(ir::ConstantData::owned(Type::tensor(DType::F32, {3}), std::move(bytes)));
  b.output(v, "v");
  b.output(e, "e");
  b.output(b.binary(BinaryKind::Mul, w, c), "wc");
  EXPECT_TRUE(b.ok()) << b.status().to_string();
  return g;
}

std::vector<RtValue> chain_inputs(std::vector<float> x) {
  const int64_t n = static_cast<int64_t>(x.size());
  return {make_tensor<float>({n}, std::move(x)), make_tensor<float>({3}, {2, 4, -8})};
}

bool set_inputs(Session& s, const std::vector<RtValue>& inputs) {
  for (size_t k = 0; k < inputs.size(); ++k)
    if (!s.set_input(k, inputs[k]).is_ok()) return false;
  return true;
}

// Runs `g` on ref and on `backend` with `inputs`; every output must be byte-identical.
void expect_same_as_ref(const ir::Graph& g, const std::string& backend, const std::vector<RtValue>& inputs,
                        NumericMode mode = NumericMode::kNative) {
  auto ref = open(g, on("ref", mode));
  auto other = open(g, on(backend, mode));
  ASSERT_TRUE(ref && other);
  ASSERT_TRUE(set_inputs(*ref, inputs) && set_inputs(*other, inputs));
  Status a = ref->run(), b = other->run();
  ASSERT_TRUE(a.is_ok()) << a.to_string();
  ASSERT_TRUE(b.is_ok()) << b.to_string();
  for (size_t k = 0; k < ref->num_outputs(); ++k)
    EXPECT_TRUE(same_bytes(ref->output(k), other->output(k))) << "output " << k;
}

TEST(BackendInterface, RefClaimsNothingAndKeepsThePlannersLayout) {
  auto s = open(chain_reduce_chain(), on("ref"));
  ASSERT_TRUE(s);
  ASSERT_TRUE(set_inputs(*s, chain_inputs({1, -2, 3})));
  ASSERT_TRUE(s->run().is_ok());
  const Schedule& sc = *s->schedule();
  EXPECT_TRUE(sc.spans.empty());
  EXPECT_EQ(sc.copies, 0);
  // The planner's buffers, then the ref kernels' scratch (the reduce's accumulators) after them.
  EXPECT_GT(sc.ref_scratch_bytes, 0);
  EXPECT_GE(sc.ref_scratch_offset, s->plan()->arena_bytes);
  EXPECT_EQ(sc.ref_scratch_offset % 64, 0);
  EXPECT_EQ(sc.host_arena_bytes, sc.ref_scratch_offset + sc.ref_scratch_bytes);
  for (size_t v = 0; v < s->plan()->values.size(); ++v)
    if (s->plan()->values[v].storage == Storage::kArena) {
      EXPECT_EQ(sc.host_offset[v], s->plan()->values[v].offset);
    }
  for (const Step& st : sc.steps) EXPECT_EQ(st.kind, StepKind::kNode);
}

TEST(BackendInterface, ElementwiseChainsAreSpansWithCopiesAtTheirBorders) {
  const ir::Graph g = chain_reduce_chain();
  auto s = open(g, on("test"));
  ASSERT_TRUE(s);
  ASSERT_TRUE(set_inputs(*s, chain_inputs({1, -2, 3})));
  Status st = s->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  const Schedule& sc = *s->schedule();
  ASSERT_EQ(sc.spans.size(), 2u);  // neg..add, then exp..mul
  std::vector<StepKind> kinds;
  for (const Step& step : sc.steps) kinds.push_back(step.kind);
  // x to the device, span 1, v back (the reduce reads it; it is also an output), the reduce on
  // ref, r and w to the device, span 2, e and wc back.
  const StepKind C = StepKind::kCopy, S = StepKind::kSpan, N = StepKind::kNode;
  EXPECT_EQ(kinds, (std::vector<StepKind>{C, S, C, N, C, C, S, C, C}));
  EXPECT_EQ(sc.copies, 6);
  EXPECT_GT(sc.spans[0].scratch_bytes, 0);
  EXPECT_GT(sc.device_arena_bytes, 0);
  // The constant c that the second span reads is on the device before the run: no copy step.
  int known_on_device = 0;
  for (uint8_t k : sc.device_known) known_on_device += k;
  EXPECT_EQ(known_on_device, 1);
  const auto& memory = dynamic_cast<test::TestBackend&>(s->backend()).device_memory();
  // c once, when the graph was partitioned; x, r and w on every run; v, e and wc back.
  EXPECT_EQ(memory.copies_to_device.load(), 4);
  EXPECT_EQ(memory.copies_to_host.load(), 3);
  ASSERT_TRUE(s->run().is_ok());
  EXPECT_EQ(memory.copies_to_device.load(), 7);
  EXPECT_EQ(memory.copies_to_host.load(), 6);
  const std::string text = describe_schedule(s->graph(), *s->plan(), s->partition(), sc);
  EXPECT_NE(text.find("test declined: reduce is not elementwise"), std::string::npos) << text;
  EXPECT_NE(text.find("host -> device"), std::string::npos) << text;
  EXPECT_NE(text.find("device -> host"), std::string::npos) << text;
  EXPECT_NE(text.find("test span nodes"), std::string::npos) << text;
  expect_same_as_ref(g, "test", chain_inputs({1, -2, 3}));
}

TEST(BackendInterface, ANewShapeRecompilesTheSpansAndReusesTheConstants) {
  const ir::Graph g = chain_reduce_chain();
  auto s = open(g, on("test"));
  ASSERT_TRUE(s);
  ASSERT_TRUE(set_inputs(*s, chain_inputs({1, -2, 3})));
  ASSERT_TRUE(s->run().is_ok());
  const auto& memory = dynamic_cast<test::TestBackend&>(s->backend()).device_memory();
  const int64_t after_first = memory.allocations.load();
  ASSERT_TRUE(set_inputs(*s, chain_inputs({1, 2, 3, 4, 5})));
  ASSERT_TRUE(s->run().is_ok());
  EXPECT_EQ(s->plans_made(), 2);
  // The second plan allocates its device arena only: the constant stayed on the device.
  EXPECT_EQ(memory.allocations.load(), after_first + 1);
  expect_same_as_ref(g, "test", chain_inputs({1, 2, 3, 4, 5}));
}

TEST(BackendInterface, ConstantsAreDecodedOncePerGraph) {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::I8, {ir::Dim::symbolic("N")}), "x");
  auto c = b.const_ints(DType::I4, {1}, {-3});  // packed in the file: decoded (unpacked) at run time
  auto wide = b.cast(c, DType::I8);
  b.output(b.binary(BinaryKind::Add, x, b.broadcast(wide, b.shape_of(x), {0})), "y");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  auto s = open(g, on("ref"));
  ASSERT_TRUE(s);
  ir::ValueId cv = 0;
  for (const ir::Node& n : s->graph().body.nodes)
    if (n.op == ir::Op::Constant && s->graph().type_of(n.outputs[0]).dtype == DType::I4) cv = n.outputs[0];
  ASSERT_TRUE(s->set_input(0, make_tensor<int8_t>({2}, {1, 2})).is_ok());
  ASSERT_TRUE(s->run().is_ok());
  const void* first = s->plan()->known[cv].tensor().data;
  ASSERT_TRUE(s->set_input(0, make_tensor<int8_t>({3}, {1, 2, 3})).is_ok());
  ASSERT_TRUE(s->run().is_ok());
  EXPECT_EQ(s->plans_made(), 2);
  EXPECT_EQ(s->plan()->known[cv].tensor().data, first);
  EXPECT_EQ(testing::values<int8_t>(s->output(0).tensor()), (std::vector<int8_t>{-2, -1, 0}));
}

TEST(BackendInterface, ExecutorRefusesClaimsThatHoldHostOnlyNodes) {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {2}), "x");
  auto v = b.unary(UnaryKind::Neg, x);
  b.output(b.cast(v, DType::String), "s");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  auto s = open(g, on("test_claim_everything"));
  ASSERT_TRUE(s);
  ASSERT_EQ(s->partition().claims.size(), 1u);
  EXPECT_FALSE(s->partition().claims[0].support.yes);
  EXPECT_NE(s->partition().claims[0].support.why_not.find("host-only"), std::string::npos)
      << s->partition().claims[0].support.why_not;
  EXPECT_TRUE(s->partition().spans.empty());
  auto ref = open(g, on("ref"));
  ASSERT_TRUE(ref);
  for (Session* x : {s.get(), ref.get()}) {
    ASSERT_TRUE(x->set_input(0, make_tensor<float>({2}, {1.5f, -2})).is_ok());
    ASSERT_TRUE(x->run().is_ok());
  }
  EXPECT_EQ(s->output(0).tensor().strings()[0], ref->output(0).tensor().strings()[0]);
  EXPECT_EQ(s->output(0).tensor().strings()[1], ref->output(0).tensor().strings()[1]);
}

TEST(BackendInterface, CompileMayDeclineAShapeAndRefRunsIt) {
  const ir::Graph g = chain_reduce_chain();
  auto s = open(g, on("test_tiny_scratch"));
  ASSERT_TRUE(s);
  ASSERT_TRUE(set_inputs(*s, chain_inputs(std::vector<float>(64, 1.0f))));
  ASSERT_TRUE(s->run().is_ok());
  EXPECT_FALSE(s->partition().spans.empty());
  EXPECT_TRUE(s->schedule()->spans.empty());
  EXPECT_EQ(s->schedule()->copies, 0);
  const std::string text = describe_schedule(s->graph(), *s->plan(), s->partition(), *s->schedule());
  EXPECT_NE(text.find("declined for these shapes: scratch of"), std::string::npos) << text;
  expect_same_as_ref(g, "test_tiny_scratch", chain_inputs(std::vector<float>(64, 1.0f)));
}

TEST(BackendInterface, SpansWithRunTimeShapesFallBack) {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {4}), "x");
  auto nz = b.emit1(ir::Op::NonZero, {x});  // i64[1, ?]: known only when it runs
  auto f = b.cast(nz, DType::F32);
  b.output(b.unary(UnaryKind::Neg, f), "y");
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  auto s = open(g, on("test"));
  ASSERT_TRUE(s);
  ASSERT_TRUE(s->set_input(0, make_tensor<float>({4}, {0, 1, 0, 2})).is_ok());
  Status st = s->run();
  ASSERT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_TRUE(s->schedule()->spans.empty());
  const std::string text = describe_schedule(s->graph(), *s->plan(), s->partition(), *s->schedule());
  EXPECT_NE(text.find("known only at run time"), std::string::npos) << text;
  expect_same_as_ref(g, "test", {make_tensor<float>({4}, {0, 1, 0, 2})});
}

TEST(BackendInterface, PreciseModeMatchesRefBitForBit) {
  const ir::Graph g = chain_reduce_chain();
  expect_same_as_ref(g, "test", chain_inputs({0.1f, -2.7f, 3.3f}), NumericMode::kPrecise);
}

// In precise mode every floating input is widened into the host arena before the first node
// runs; an input first read late (y, by the second span) must not share a slot with one read
// early (x, copied to the device at once): its lifetime starts before node 0. It once started
// at its first read, y's slot was x's, and x was read as y.
TEST(BackendInterface, PreciseModeKeepsEachWidenedInputUntilItIsRead) {
  ir::Graph g;
  Builder b(g);
  auto x = b.input(Type::tensor(DType::F32, {4}), "x");
  auto y = b.input(Type::tensor(DType::F32, {}), "y");
  auto v = b.unary(UnaryKind::Neg, x);               // span 1
  auto r = b.reduce(ir::ReduceKind::Sum, v, {0});    // ref
  b.output(b.binary(BinaryKind::Mul, y, r), "out");  // span 2: y is first read here
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  const std::vector<RtValue> inputs = {make_tensor<float>({4}, {1, 2, 3, 4}), make_tensor<float>({}, {-5})};
  expect_same_as_ref(g, "test", inputs, NumericMode::kPrecise);
  auto s = open(g, on("test", NumericMode::kPrecise));
  ASSERT_TRUE(s && set_inputs(*s, inputs));
  ASSERT_TRUE(s->run().is_ok());
  ASSERT_EQ(s->schedule()->spans.size(), 2u);  // the case needs y copied after x is dead on the host
  const Tensor& out = s->output(0).tensor();
  ASSERT_EQ(out.dtype, DType::F64);
  EXPECT_EQ(out.as<double>()[0], 50.0);  // -5 * -(1 + 2 + 3 + 4)
}

TEST(BackendInterface, UnknownBackendListsTheAvailableOnes) {
  auto s = Session::create(chain_reduce_chain(), on("tpu"));
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.status().code(), ErrorCode::kInvalidInput);
  // ref, then the library's other built backends (cpu with oneDNN), then the program's own
  EXPECT_NE(s.status().to_string().find("available: ref, "), std::string::npos) << s.status().to_string();
  EXPECT_NE(s.status().to_string().find(", test, test_claim_everything"), std::string::npos)
      << s.status().to_string();
  // cuda: not built (no CUDA toolkit), or built on a machine without a GPU: Unsupported, saying
  // which; with a GPU it is made (issue 21).
  auto c = Session::create(chain_reduce_chain(), on("cuda"));
  if (!c.has_value()) {
    EXPECT_EQ(c.status().code(), ErrorCode::kUnsupported);
    const std::string m = c.status().to_string();
    EXPECT_TRUE(m.find("not built into this runtime") != std::string::npos ||
                m.find("cuda: no CUDA device: ") != std::string::npos)
        << m;
  }
}

}  // namespace
}  // namespace plumb::rt
