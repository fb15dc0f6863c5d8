// What plumb gen's op recipes (hunt/gen_ops.cpp) build graphs with: a fixed random stream, the pool
// of float32 values built so far (each with its static dims, a bound on its elements and whether it
// is exact), and helpers that add graph inputs, initializers and nodes to the GraphProto. Internal
// to hunt/gen_*.cpp; docs/gen.md says what the recipes build.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "frontends/onnx/tensor_proto.h"

namespace onnx {
class GraphProto;
class NodeProto;
class OpSchema;
}  // namespace onnx

namespace plumb::hunt::gen {

// splitmix64: a fixed, platform-independent stream (std:: distributions are not specified
// bit-exactly, and the bytes of a run must not depend on the standard library).
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
  int in(int lo, int hi) { return lo + below(hi - lo + 1); }  // [lo, hi]
  bool chance(int percent) { return below(100) < percent; }
  // A float in [-1, 1) with 24 significant bits: exact in float32.
  float unit() { return static_cast<float>(static_cast<double>(next() >> 40) / (1 << 23) - 1.0); }
};

// A float32 value of the graph. `bound`: no element's magnitude exceeds it. `exact`: every op that
// computed it gives the same bits on any correct backend (inputs, constants, Abs/Neg/Relu/Max/Min,
// data movement, max pooling, casts that round exact values), so comparing it with a threshold
// cannot flip between backends.
struct Value {
  std::string name;
  std::vector<int64_t> dims;
  double bound = 1;
  bool exact = true;
};

int64_t num_elements(const std::vector<int64_t>& dims);
// Random dims of rank `rank` whose product is n (n's prime factors dealt to random places).
std::vector<int64_t> random_dims(Rng& rng, int64_t n, int rank);

class Builder {
 public:
  Builder(Rng& rng, ::onnx::GraphProto* graph, int opset, std::set<std::string> enabled)
      : rng(rng), opset(opset), graph_(graph), enabled_(std::move(enabled)) {}

  Rng& rng;
  const int opset;
  std::vector<Value> pool;               // every float32 value, in order of creation
  std::vector<onnx::Tensor> input_data;  // one per graph input, in order
  std::set<std::string> consumed;        // names some node reads

  bool enabled(const std::string& op) const { return enabled_.count(op) != 0; }
  // libonnx's schema of `op` at the model's opset (nullptr when the op does not exist there).
  const ::onnx::OpSchema* schema(const std::string& op) const;
  // Whether `op`'s schema at the model's opset takes `name` as an input (e.g. Reduce* "axes",
  // Split "split"), rather than as an attribute.
  bool has_input(const std::string& op, const std::string& name) const;
  bool has_attribute(const std::string& op, const std::string& name) const;

  std::string fresh(const char* prefix) { return prefix + std::to_string(counter_++); }
  // A new graph input of `dims`, elements uniform in [-1, 1), pushed to the pool.
  Value input(const std::vector<int64_t>& dims);
  // Initializers: float32 (elements given) and int64 (1-D, or rank 0 when `scalar`).
  std::string const_f32(const std::vector<int64_t>& dims, const std::vector<float>& values);
  std::string const_f32_random(const std::vector<int64_t>& dims, float lo, float hi);
  std::string const_i64(const std::vector<int64_t>& values, bool scalar = false);
  std::string const_i64_dims(const std::vector<int64_t>& dims, const std::vector<int64_t>& values);
  // An initializer of any element type (bool, uint8, int8, double: the recipes of
  // gen_recipes_math.cpp and gen_recipes_index.cpp), `bytes` raw little-endian bytes.
  std::string initializer(int32_t elem_type, const std::vector<int64_t>& dims, const void* data,
                          size_t bytes);
  // A string initializer (StringNormalizer's input, gen_recipes_detect.cpp).
  std::string const_strings(const std::vector<int64_t>& dims, const std::vector<std::string>& values);
  ::onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs);
  Value& push(const std::vector<int64_t>& dims, double bound, bool exact, const std::string& name = "");
  int nodes() const;

  // What the builder holds besides the GraphProto and the stream: a step tried and undone (gen
  // --targets retries a step whose node missed a report's attribute classes) restores it together
  // with a copy of the graph.
  struct State {
    std::vector<Value> pool;
    std::vector<onnx::Tensor> input_data;
    std::set<std::string> consumed;
    int counter = 0;
  };
  State state() const { return State{pool, input_data, consumed, counter_}; }
  void restore(State s) {
    pool = std::move(s.pool);
    input_data = std::move(s.input_data);
    consumed = std::move(s.consumed);
    counter_ = s.counter;
  }

 private:
  ::onnx::GraphProto* graph_;
  std::set<std::string> enabled_;
  int counter_ = 0;
};

void set_int(::onnx::NodeProto* n, const std::string& name, int64_t v);
void set_float(::onnx::NodeProto* n, const std::string& name, float v);
void set_ints(::onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v);
void set_string(::onnx::NodeProto* n, const std::string& name, const std::string& v);

// The ops plumb gen builds and the step that builds one (true when it added a node; false when it
// does not apply to the graph built so far, and then it changed nothing).
using Recipe = bool (*)(Builder& b, const std::string& op);
struct OpRecipe {
  const char* op;
  const char* family;
  Recipe build;
};
const std::vector<OpRecipe>& op_recipes();

// The ops drawn only in gen's other-opset models (docs/gen.md, "Ops at other opsets"): those
// libonnx 1.12 has no schema for (they exist from opset 18 on) and those deprecated before opset
// 13. `opsets`: the model opsets the op is drawn at (each one where the op exists and plumb lowers
// it), one picked per model.
struct OtherOpsetRecipe {
  const char* op;
  std::vector<int> opsets;
  Recipe build;
};
const std::vector<OtherOpsetRecipe>& other_opset_recipes();

}  // namespace plumb::hunt::gen
