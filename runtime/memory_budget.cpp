#include "runtime/memory_budget.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

namespace plumb::rt {
namespace {

bool same_owner(const std::shared_ptr<void>& a, const std::shared_ptr<void>& b) {
  return !a.owner_before(b) && !b.owner_before(a);
}

// Host bytes a tensor's storage holds (a string element counts its std::string object).
int64_t held_bytes(const Tensor& t) {
  if (t.dtype == ir::DType::String) return t.numel() * static_cast<int64_t>(sizeof(std::string));
  return t.nbytes();
}

template <typename V, typename F>
void for_each_tensor(V& v, const F& f) {
  if (auto* t = std::get_if<Tensor>(&v)) {
    f(*t);
  } else if (auto* s = std::get_if<SequenceValue>(&v)) {
    for (auto& item : s->items) f(item);
    for (auto& m : s->maps) f(m.keys), f(m.values);
  } else if (auto* o = std::get_if<OptionalValue>(&v)) {
    if (o->value) for_each_tensor(*o->value, f);
  } else if (auto* m = std::get_if<MapValue>(&v)) {
    f(m->keys), f(m->values);
  }
}

struct Charged {
  std::shared_ptr<void> storage;
  MemoryCharge charge;
};

}  // namespace

MemoryBudget::MemoryBudget(int64_t limit)
    : limit_(limit < 0 ? 0
                       : static_cast<std::intptr_t>(
                             std::min<int64_t>(limit, std::numeric_limits<std::intptr_t>::max()))) {}

bool MemoryBudget::try_reserve(int64_t bytes) {
  if (bytes < 0 || bytes > static_cast<int64_t>(limit_)) return false;
  const auto want = static_cast<std::intptr_t>(bytes);
  std::intptr_t now = used_.load(std::memory_order_relaxed);
  do {
    if (want > limit_ - now) return false;
  } while (!used_.compare_exchange_weak(now, now + want, std::memory_order_relaxed));
  const std::intptr_t after = now + want;
  std::intptr_t peak = peak_.load(std::memory_order_relaxed);
  while (after > peak && !peak_.compare_exchange_weak(peak, after, std::memory_order_relaxed)) {
  }
  return true;
}

void MemoryBudget::release(int64_t bytes) {
  used_.fetch_sub(static_cast<std::intptr_t>(bytes), std::memory_order_relaxed);
}

Status MemoryBudget::refuse(int64_t bytes, const char* what) {
  refusals_.fetch_add(1, std::memory_order_relaxed);
  return invalid_input(strfmt("%s needs %lld byte%s, %lld of the memory budget of %lld bytes are left", what,
                              (long long)bytes, bytes == 1 ? "" : "s",
                              (long long)std::max<int64_t>(0, left()), (long long)limit()));
}

MemoryCharge& MemoryCharge::operator=(MemoryCharge&& o) noexcept {
  if (this != &o) {
    reset();
    budget_ = std::move(o.budget_);
    bytes_ = o.bytes_;
    o.bytes_ = 0;
  }
  return *this;
}

void MemoryCharge::reset() {
  if (budget_ && bytes_ > 0) budget_->release(bytes_);
  budget_.reset();
  bytes_ = 0;
}

Expected<MemoryCharge> reserve(const std::shared_ptr<MemoryBudget>& budget, int64_t bytes, const char* what) {
  if (!budget || bytes <= 0) return MemoryCharge();
  if (!budget->try_reserve(bytes)) return budget->refuse(bytes, what);
  return MemoryCharge(budget, bytes);
}

std::shared_ptr<void> with_charge(std::shared_ptr<void> storage, MemoryCharge charge) {
  void* p = storage.get();
  auto holder = std::make_shared<Charged>(Charged{std::move(storage), std::move(charge)});
  return std::shared_ptr<void>(holder, p);
}

Expected<Tensor> allocate_charged(const std::shared_ptr<MemoryBudget>& budget, ir::DType dt,
                                  std::vector<int64_t> shape, const char* what) {
  if (!budget) return Tensor::allocate(dt, std::move(shape));
  Tensor probe;
  probe.dtype = dt;
  probe.shape = std::move(shape);
  const int64_t bytes = held_bytes(probe);
  PLUMB_ASSIGN_OR_RETURN(MemoryCharge charge, reserve(budget, bytes, what));
  Tensor t = Tensor::allocate(dt, std::move(probe.shape));
  if (bytes > 0) t.storage = with_charge(std::move(t.storage), std::move(charge));
  return t;
}

Status charge_new_storage(const std::shared_ptr<MemoryBudget>& budget, RtValue& v,
                          const std::vector<const RtValue*>& owned_elsewhere, const char* what) {
  if (!budget) return Status::ok();
  std::vector<std::shared_ptr<void>> elsewhere;
  for (const RtValue* in : owned_elsewhere)
    if (in) for_each_tensor(*in, [&](const Tensor& t) { elsewhere.push_back(t.storage); });
  // The result's new storages, each once, with the tensors that share it.
  struct Group {
    std::shared_ptr<void> storage;
    int64_t bytes = 0;
    std::vector<Tensor*> tensors;
  };
  std::vector<Group> groups;
  int64_t total = 0;
  for_each_tensor(v, [&](Tensor& t) {
    if (!t.storage || t.device != Device::kHost) return;
    for (const std::shared_ptr<void>& s : elsewhere)
      if (same_owner(s, t.storage)) return;
    for (Group& g : groups)
      if (same_owner(g.storage, t.storage)) {
        g.bytes = std::max(g.bytes, held_bytes(t));
        g.tensors.push_back(&t);
        return;
      }
    groups.push_back(Group{t.storage, held_bytes(t), {&t}});
  });
  for (const Group& g : groups) total += g.bytes;
  if (total == 0) return Status::ok();
  if (!budget->try_reserve(total)) return budget->refuse(total, what);
  for (Group& g : groups) {
    // Each group gets its own share of the reservation, so each is released with its storage.
    const std::shared_ptr<void> charged = with_charge(g.storage, MemoryCharge(budget, g.bytes));
    for (Tensor* t : g.tensors) t->storage = std::shared_ptr<void>(charged, t->data);
  }
  return Status::ok();
}

}  // namespace plumb::rt
