#include "lowering/onnx/registry.h"

#include <algorithm>

namespace plumb::lower {

void Registry::add_in(const std::string& domain, const std::string& op_type, OpsetRange range, RuleFn fn) {
  auto& list = rules_[{domain, op_type}];
  for (const Rule& r : list) {
    if (range.first <= r.range.last && r.range.first <= range.last && status_.is_ok()) {
      status_ = internal_error(strfmt("lowering registry: %s opsets [%lld, %lld] overlap [%lld, %lld]",
                                      op_type.c_str(), (long long)range.first, (long long)range.last,
                                      (long long)r.range.first, (long long)r.range.last));
    }
  }
  if (range.first > range.last && status_.is_ok())
    status_ = internal_error("lowering registry: empty opset range for " + op_type);
  list.push_back(Rule{domain, op_type, range, fn});
}

const Rule* Registry::find(const std::string& domain, const std::string& op_type, int64_t opset) const {
  auto it = rules_.find({domain, op_type});
  if (it == rules_.end()) return nullptr;
  for (const Rule& r : it->second)
    if (opset >= r.range.first && opset <= r.range.last) return &r;
  return nullptr;
}

std::vector<Rule> Registry::rules() const {
  std::vector<Rule> all;
  for (const auto& [key, list] : rules_) all.insert(all.end(), list.begin(), list.end());
  std::sort(all.begin(), all.end(), [](const Rule& a, const Rule& b) {
    return std::tie(a.domain, a.op_type, a.range.first) < std::tie(b.domain, b.op_type, b.range.first);
  });
  return all;
}

const Registry& default_registry() {
  // Built on first use and never changed afterwards (immutable shared state).
  static const Registry registry = [] {
    Registry r;
    register_elementwise(r);
    register_activation(r);
    register_shape(r);
    register_reduce(r);
    register_index(r);
    register_slice(r);
    register_matmul(r);
    register_structure(r);
    register_conv_pool(r);
    register_norm(r);
    register_loss(r);
    register_attention(r);
    register_flex_attention(r);
    register_resize(r);
    register_quant(r);
    register_control(r);
    register_sequence(r);
    register_rnn(r);
    register_transformer(r);
    register_signal(r);
    register_einsum(r);
    register_detection(r);
    register_conv_extra(r);
    register_index_extra(r);
    register_strings(r);
    register_ml(r);
    register_random(r);
    register_training(r);
    register_image(r);
    return r;
  }();
  return registry;
}

}  // namespace plumb::lower
