#include "tests/test_backend/test_backend.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <new>

#include "runtime/cpu/ref/kernel.h"
#include "runtime/node_error.h"
#include "runtime/partition.h"
#include "runtime/plan.h"

namespace plumb::rt::test {
namespace {

constexpr int64_t kAlign = 64;

bool elementwise(ir::Op op) {
  return op == ir::Op::Unary || op == ir::Op::Binary || op == ir::Op::Compare || op == ir::Op::Select ||
         op == ir::Op::Cast;
}

bool plain_tensor(const ir::Type& t) { return t.is_tensor() && t.dtype != ir::DType::String; }

// Why the test backend does not take node `n`, or "".
std::string why_not(const ir::Graph& g, const ir::Node& n) {
  if (!elementwise(n.op)) return std::string(ir::op_name(n.op)) + " is not elementwise";
  for (ir::ValueId v : n.inputs)
    if (!plain_tensor(g.type_of(v)))
      return "operand " + ir::type_to_string(g.type_of(v)) + " is not a numeric tensor";
  for (ir::ValueId v : n.outputs)
    if (!plain_tensor(g.type_of(v)))
      return "result " + ir::type_to_string(g.type_of(v)) + " is not a numeric tensor";
  return "";
}

void scramble(const uint8_t* src, uint8_t* dst, int64_t bytes) {
  for (int64_t i = 0; i < bytes; ++i) dst[i] = src[i] ^ kScramble;
}

std::vector<int64_t> dims(const ir::Type& t) {
  std::vector<int64_t> d;
  for (const ir::Dim& x : t.shape) d.push_back(x.size);
  return d;
}

// One span compiled for one plan: every value it touches gets a slot in scratch, where it is
// held in the clear.
class TestSpan final : public CompiledSpan {
 public:
  TestSpan(const ir::Graph& g, const Plan& plan, const SpanSignature& sig, const ScrambledAllocator& memory,
           NumericMode mode)
      : g_(g), plan_(plan), sig_(sig), memory_(memory), mode_(mode), preorder_(body_preorder(g)) {
    auto add = [&](ir::ValueId v) {
      if (slot_.count(v)) return;
      const int64_t bytes = plan.values[v].type.is_tensor() ? tensor_bytes_or_zero(plan.values[v].type) : 0;
      slot_[v] = Slot{scratch_, bytes};
      scratch_ += (bytes + kAlign - 1) / kAlign * kAlign;
    };
    for (ir::ValueId v : sig.inputs) add(v);
    for (uint32_t i = sig.span.begin; i < sig.span.end; ++i)
      if (!plan.node_skip[i])
        for (ir::ValueId v : g.body.nodes[i].outputs) add(v);
  }
  int64_t scratch_bytes() const override { return scratch_; }

  Status run(const SpanArgs& args, Stream*) override {
    if (scratch_ > 0 && !memory_.owns(args.scratch, scratch_))
      return internal_error("test: the span's scratch is not test device memory");
    std::vector<RtValue> clear(g_.values.size());
    for (const auto& [v, s] : slot_) clear[v] = view(v, s, args.scratch);
    for (size_t k = 0; k < sig_.inputs.size(); ++k) {
      PLUMB_ASSIGN_OR_RETURN(const Tensor* t, device_tensor(args.inputs[k], sig_.inputs[k]));
      scramble(static_cast<const uint8_t*>(t->data), clear[sig_.inputs[k]].tensor().as<uint8_t>(),
               t->nbytes());
    }
    for (uint32_t i = sig_.span.begin; i < sig_.span.end; ++i) {
      if (plan_.node_skip[i]) continue;
      const ir::Node& n = g_.body.nodes[i];
      NodeCall call{n, {}, {}, mode_, &g_};
      for (ir::ValueId v : n.inputs) call.inputs.push_back(&clear[v]);
      for (ir::ValueId v : n.outputs) call.outputs.push_back(&clear[v]);
      Status st = ref::run_kernel(call);
      if (!st.is_ok()) return node_error(std::move(st), n, preorder_[i]);
    }
    for (size_t k = 0; k < sig_.outputs.size(); ++k) {
      PLUMB_ASSIGN_OR_RETURN(const Tensor* t, device_tensor(args.outputs[k], sig_.outputs[k]));
      const Tensor& src = clear[sig_.outputs[k]].tensor();
      scramble(src.as<uint8_t>(), static_cast<uint8_t*>(t->data), t->nbytes());
    }
    return Status::ok();
  }

 private:
  struct Slot {
    int64_t offset = 0, bytes = 0;
  };
  static int64_t tensor_bytes_or_zero(const ir::Type& t) {
    auto b = tensor_bytes(t, int64_t{1} << 40);
    return b ? *b : 0;
  }
  RtValue view(ir::ValueId v, const Slot& s, uint8_t* scratch) const {
    Tensor t;
    t.dtype = plan_.values[v].type.dtype;
    t.shape = dims(plan_.values[v].type);
    t.data = scratch + s.offset;
    return t;
  }
  // The buffer of %v, checked to be this device's memory with the planned type.
  Expected<const Tensor*> device_tensor(const RtValue* value, ir::ValueId v) const {
    if (!value || !value->is_tensor()) return internal_error(strfmt("test: %%%u is not a tensor", v));
    const Tensor& t = value->tensor();
    if (t.device != Device::kDevice || (t.nbytes() > 0 && !memory_.owns(t.data, t.nbytes())))
      return internal_error(strfmt("test: %%%u was not given in test device memory", v));
    if (ir::Type(type_of(*value)) != plan_.values[v].type)
      return internal_error(strfmt("test: %%%u is %s, planned %s", v,
                                   ir::type_to_string(type_of(*value)).c_str(),
                                   ir::type_to_string(plan_.values[v].type).c_str()));
    return &t;
  }

  const ir::Graph& g_;
  const Plan& plan_;
  SpanSignature sig_;
  const ScrambledAllocator& memory_;
  NumericMode mode_;
  std::vector<int64_t> preorder_;  // for the places of errors
  std::map<ir::ValueId, Slot> slot_;
  int64_t scratch_ = 0;
};

class TestPrepared final : public PreparedGraph {
 public:
  TestPrepared(const ir::Graph& g, const ScrambledAllocator& memory, NumericMode mode, int64_t max_scratch)
      : g_(g), memory_(memory), mode_(mode), max_scratch_(max_scratch) {}
  Expected<CompiledOrDeclined> compile(size_t, const SpanSignature& sig, const Plan& plan) override {
    for (uint32_t i = sig.span.begin; i < sig.span.end; ++i)  // only under claim_everything
      if (!plan.node_skip[i] && !why_not(g_, g_.body.nodes[i]).empty())
        return CompiledOrDeclined{nullptr,
                                  Support::no(strfmt("node %u: ", i) + why_not(g_, g_.body.nodes[i]))};
    auto span = std::make_unique<TestSpan>(g_, plan, sig, memory_, mode_);
    if (span->scratch_bytes() > max_scratch_)
      return CompiledOrDeclined{
          nullptr, Support::no(strfmt("scratch of %lld bytes is over the limit of %lld",
                                      (long long)span->scratch_bytes(), (long long)max_scratch_))};
    return CompiledOrDeclined{std::move(span), Support::ok()};
  }

 private:
  const ir::Graph& g_;
  const ScrambledAllocator& memory_;
  NumericMode mode_;
  int64_t max_scratch_;
};

}  // namespace

Expected<std::shared_ptr<uint8_t>> ScrambledAllocator::allocate(int64_t bytes) {
  if (bytes <= 0) return internal_error("test allocator: asked for a non-positive size");
  auto* mem =
      static_cast<uint8_t*>(::operator new[](static_cast<size_t>(bytes), std::align_val_t(64), std::nothrow));
  if (!mem) return runtime_error("", strfmt("test device: cannot allocate %lld bytes", (long long)bytes));
  std::memset(mem, kScramble, static_cast<size_t>(bytes));  // zero, as the device stores it
  ++allocations;
  {
    std::lock_guard<std::mutex> lock(blocks_->mu);
    blocks_->live.emplace_back(mem, bytes);
  }
  std::shared_ptr<Blocks> blocks = blocks_;
  return std::shared_ptr<uint8_t>(mem, [blocks](uint8_t* p) {
    {
      std::lock_guard<std::mutex> lock(blocks->mu);
      auto& live = blocks->live;
      live.erase(std::remove_if(live.begin(), live.end(), [p](const auto& b) { return b.first == p; }),
                 live.end());
    }
    ::operator delete[](p, std::align_val_t(64));
  });
}

bool ScrambledAllocator::owns(const void* p, int64_t bytes) const {
  const auto* b = static_cast<const uint8_t*>(p);
  std::lock_guard<std::mutex> lock(blocks_->mu);
  for (const auto& [start, size] : blocks_->live)
    if (b >= start && bytes <= size && b - start <= size - bytes) return true;
  return false;
}

Status ScrambledAllocator::copy_from_host(const void* host_src, void* dst, int64_t bytes, Stream*) {
  if (!owns(dst, bytes))
    return internal_error("test: copy to the device into memory that is not the device's");
  scramble(static_cast<const uint8_t*>(host_src), static_cast<uint8_t*>(dst), bytes);
  ++copies_to_device;
  return Status::ok();
}

Status ScrambledAllocator::copy_to_host(const void* src, void* host_dst, int64_t bytes, Stream*) {
  if (!owns(src, bytes)) return internal_error("test: copy to the host from memory that is not the device's");
  scramble(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(host_dst), bytes);
  ++copies_to_host;
  return Status::ok();
}

std::vector<Claim> TestBackend::partition(const ir::Graph& g, NumericMode) const {
  const auto& nodes = g.body.nodes;
  const auto n = static_cast<uint32_t>(nodes.size());
  if (options_.claim_everything)
    return n ? std::vector<Claim>{Claim{NodeSpan{0, n}, Support::ok()}} : std::vector<Claim>{};
  std::vector<Claim> claims;
  for (uint32_t i = 0; i < n;) {
    const std::string why = why_not(g, nodes[i]);
    if (!why.empty()) {
      if (nodes[i].op != ir::Op::Constant) claims.push_back(Claim{NodeSpan{i, i + 1}, Support::no(why)});
      ++i;
      continue;
    }
    // A run: elementwise nodes, constants in between; it ends at its last elementwise node.
    uint32_t end = i + 1;
    for (uint32_t j = i + 1; j < n; ++j) {
      if (why_not(g, nodes[j]).empty())
        end = j + 1;
      else if (nodes[j].op != ir::Op::Constant)
        break;
    }
    claims.push_back(Claim{NodeSpan{i, end}, Support::ok()});
    i = end;
  }
  return claims;
}

Expected<std::unique_ptr<PreparedGraph>> TestBackend::prepare(const ir::Graph& g,
                                                              const std::vector<NodeSpan>&,
                                                              const PrepareOptions& options) {
  return std::unique_ptr<PreparedGraph>(
      std::make_unique<TestPrepared>(g, allocator_, options.mode, options_.max_scratch_bytes));
}

std::unique_ptr<Backend> make_backend() { return std::make_unique<TestBackend>(); }

}  // namespace plumb::rt::test
