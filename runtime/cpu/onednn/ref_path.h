// The cpu backend's way back to ref for one span (issue 16): the span's nodes on the ref kernels,
// their values in scratch (the span's own, from `base` on) or in the given buffers; for a run the
// overflow guard does not let oneDNN take. Allocates (call records, shape vectors): it runs only
// for operands near f32's range.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "runtime/backend.h"
#include "runtime/cpu/onednn/primitive.h"
#include "runtime/cpu/ref/kernel.h"
#include "runtime/node_error.h"
#include "runtime/partition.h"
#include "runtime/plan.h"

namespace plumb::rt::cpu {

class RefPath {
 public:
  // Values from `base` on; a value's bytes are used again once its last reader in the span has
  // run (first fit among the freed blocks), so the path needs about the largest few values, not
  // all of a long island's.
  RefPath(const ir::Graph& g, const Plan& plan, const SpanSignature& sig, int64_t base, NumericMode mode)
      : g_(g), plan_(plan), sig_(sig), mode_(mode), preorder_(body_preorder(g)), end_(base) {
    const auto& nodes = g.body.nodes;
    bool regions = false;
    std::vector<uint32_t> last(g.values.size(), 0);  // the last node of the span that reads a value
    for (uint32_t i = sig.span.begin; i < sig.span.end; ++i) {
      if (plan.node_skip[i]) continue;
      regions = regions || !nodes[i].regions.empty();
      for (ir::ValueId x : nodes[i].inputs)
        if (x < last.size()) last[x] = i;
    }
    std::vector<std::pair<int64_t, int64_t>> free;      // (offset, bytes)
    std::vector<std::pair<ir::ValueId, int64_t>> live;  // (value, bytes), allocated in slots_
    for (uint32_t i = sig.span.begin; i < sig.span.end; ++i) {
      if (plan.node_skip[i]) continue;
      for (ir::ValueId v : nodes[i].outputs) {
        if (std::find(sig.outputs.begin(), sig.outputs.end(), v) != sig.outputs.end()) continue;
        auto bytes = tensor_bytes(plan.values[v].type, int64_t{1} << 40);
        if (!bytes || !plan.values[v].type.is_tensor()) {
          ok_ = false;
          continue;
        }
        const int64_t size = aligned(*bytes);
        int64_t off = -1;
        for (auto it = free.begin(); it != free.end() && !regions; ++it) {
          if (it->second < size) continue;
          off = it->first;
          it->first += size;
          it->second -= size;
          if (it->second == 0) free.erase(it);
          break;
        }
        if (off < 0) {
          off = end_;
          end_ += size;
        }
        slots_.emplace_back(v, off);
        live.emplace_back(v, size);
      }
      // after the outputs are placed: the values whose last reader this node is (or that nothing
      // in the span reads) give their bytes back
      for (size_t k = 0; k < live.size();) {
        const ir::ValueId v = live[k].first;
        if (last[v] <= i) {
          for (const auto& [id, off] : slots_)
            if (id == v) free.emplace_back(off, live[k].second);
          live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
        } else {
          ++k;
        }
      }
    }
  }
  bool ok() const { return ok_; }
  int64_t end() const { return end_; }

  Status run(const SpanArgs& args) const {
    std::vector<RtValue> v(g_.values.size());
    for (size_t k = 0; k < sig_.inputs.size(); ++k) v[sig_.inputs[k]] = *args.inputs[k];
    for (size_t k = 0; k < sig_.outputs.size(); ++k) v[sig_.outputs[k]] = *args.outputs[k];
    for (const auto& [id, off] : slots_) {
      Tensor t;
      t.dtype = plan_.values[id].type.dtype;
      t.shape = dims_of(plan_.values[id].type);
      t.data = args.scratch + off;
      v[id] = std::move(t);
    }
    for (uint32_t i = sig_.span.begin; i < sig_.span.end; ++i) {
      if (plan_.node_skip[i]) continue;
      const ir::Node& n = g_.body.nodes[i];
      NodeCall call{n, {}, {}, mode_, &g_};
      for (ir::ValueId x : n.inputs) call.inputs.push_back(&v[x]);
      for (ir::ValueId x : n.outputs) call.outputs.push_back(&v[x]);
      Status st = ref::run_kernel(call);
      if (!st.is_ok()) return node_error(std::move(st), n, preorder_[i]);
    }
    // The result was written into the output's own buffer (v holds a view of it).
    return Status::ok();
  }

 private:
  const ir::Graph& g_;
  const Plan& plan_;
  SpanSignature sig_;
  NumericMode mode_;
  std::vector<int64_t> preorder_;
  std::vector<std::pair<ir::ValueId, int64_t>> slots_;
  int64_t end_ = 0;
  bool ok_ = true;
};

}  // namespace plumb::rt::cpu
