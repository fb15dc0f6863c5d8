// The lowering registry: (domain, op type, opset range) -> rule (DESIGN §5, STYLE 2.3).
// Ranges are closed ({first, last}) and never overlap for one (domain, op type); the rule for a
// node is the one whose range holds the model's imported opset of the node's domain.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "frontends/onnx/model.h"
#include "ir/status.h"

namespace plumb::lower {

class LowerCtx;
using RuleFn = Status (*)(LowerCtx& cx, const onnx::OnnxNode& n);

constexpr int64_t kLatestOpset = 28;  // ai.onnx
constexpr int64_t kLatestMlOpset = 5;

struct OpsetRange {
  int64_t first, last;
};

struct Rule {
  std::string domain;  // canonical ("" = ai.onnx)
  std::string op_type;
  OpsetRange range;
  RuleFn fn;
};

// A rule of ai.onnx from opset `since` on, to kLatestOpset: the form of nearly every rule, so a
// family's rules are one table of these (Registry::add_since).
struct SinceRule {
  const char* op_type;
  int64_t since;
  RuleFn fn;
};

class Registry {
 public:
  // Adds each rule of `table` (ai.onnx, {since, kLatestOpset}).
  void add_since(std::initializer_list<SinceRule> table) {
    for (const SinceRule& r : table) add(r.op_type, {r.since, kLatestOpset}, r.fn);
  }
  // Adds a rule for ai.onnx. Overlapping ranges are recorded as an error (status()).
  void add(const std::string& op_type, OpsetRange range, RuleFn fn) { add_in("", op_type, range, fn); }
  void add_in(const std::string& domain, const std::string& op_type, OpsetRange range, RuleFn fn);

  // The rule for (domain, op_type) at `opset`, or nullptr.
  const Rule* find(const std::string& domain, const std::string& op_type, int64_t opset) const;
  // All rules, sorted by (domain, op type, first opset).
  std::vector<Rule> rules() const;
  const Status& status() const { return status_; }

 private:
  std::map<std::pair<std::string, std::string>, std::vector<Rule>> rules_;
  Status status_;
};

// The registry with every rule plumb has (built once, immutable after).
const Registry& default_registry();

// Each family file registers its rules through one of these (called by default_registry()).
void register_elementwise(Registry& r);
void register_activation(Registry& r);
void register_shape(Registry& r);
void register_reduce(Registry& r);
void register_index(Registry& r);
void register_slice(Registry& r);
void register_matmul(Registry& r);
void register_structure(Registry& r);
void register_conv_pool(Registry& r);
void register_norm(Registry& r);
void register_loss(Registry& r);
void register_attention(Registry& r);
void register_flex_attention(Registry& r);
void register_resize(Registry& r);
void register_quant(Registry& r);
void register_control(Registry& r);
void register_sequence(Registry& r);
void register_rnn(Registry& r);
void register_transformer(Registry& r);
void register_signal(Registry& r);
void register_einsum(Registry& r);
void register_detection(Registry& r);
void register_conv_extra(Registry& r);
void register_index_extra(Registry& r);
void register_strings(Registry& r);
void register_ml(Registry& r);
void register_random(Registry& r);
void register_training(Registry& r);
void register_image(Registry& r);

}  // namespace plumb::lower
