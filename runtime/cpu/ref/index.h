// Index helpers for ref kernels (STYLE.md 2.4): row-major strides, and an iterator over every
// multi-index of a shape, so kernels never nest loops per rank. Their lists of dims are Dims, on
// the stack: a run allocates nothing for them (issue 18).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <vector>

#include "ir/infer.h"

namespace plumb::rt {

// A list of at most ir::kMaxRank int64 (dims, strides, an index) in place: the loader and type
// inference refuse a rank above kMaxRank, so every rank a kernel sees fits. 520 bytes of stack.
class Dims {
 public:
  static constexpr size_t kCapacity = static_cast<size_t>(ir::kMaxRank);
  Dims() = default;
  explicit Dims(size_t n, int64_t v = 0) { assign(n, v); }
  Dims(const int64_t* b, const int64_t* e) { assign(b, e); }
  Dims(const std::vector<int64_t>& v) { assign(v.data(), v.data() + v.size()); }  // NOLINT: implicit
  Dims(std::initializer_list<int64_t> v) { assign(v.begin(), v.end()); }
  void assign(size_t n, int64_t v) {
    resize(n);
    for (size_t i = 0; i < n; ++i) v_[i] = v;
  }
  void assign(const int64_t* b, const int64_t* e) {
    resize(static_cast<size_t>(e - b));
    for (size_t i = 0; i < n_; ++i) v_[i] = b[i];
  }
  void resize(size_t n) {
    if (n > kCapacity) std::abort();  // unreachable for a verified graph (rank <= kMaxRank)
    for (size_t i = n_; i < n; ++i) v_[i] = 0;
    n_ = n;
  }
  void push_back(int64_t x) {
    resize(n_ + 1);
    v_[n_ - 1] = x;
  }
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  int64_t* data() { return v_; }
  const int64_t* data() const { return v_; }
  int64_t* begin() { return v_; }
  int64_t* end() { return v_ + n_; }
  const int64_t* begin() const { return v_; }
  const int64_t* end() const { return v_ + n_; }
  int64_t& operator[](size_t i) { return v_[i]; }
  int64_t operator[](size_t i) const { return v_[i]; }
  int64_t& back() { return v_[n_ - 1]; }
  int64_t back() const { return v_[n_ - 1]; }

 private:
  int64_t v_[kCapacity];
  size_t n_ = 0;
};

// A heap copy (for code outside the run: tests, the baselines).
inline std::vector<int64_t> to_vector(const Dims& d) { return std::vector<int64_t>(d.begin(), d.end()); }

// True when `v` holds the same dims as `d`.
inline bool same_dims(const std::vector<int64_t>& v, const Dims& d) {
  if (v.size() != d.size()) return false;
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] != d[i]) return false;
  return true;
}

inline Dims row_major_strides(const Dims& shape) {
  Dims s(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

inline int64_t num_elements(const Dims& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// for (IndexIter it(shape); !it.done(); it.next()) { it.index() ... it.flat() }
class IndexIter {
 public:
  explicit IndexIter(const Dims& shape)
      : shape_(shape), index_(shape.size(), 0), done_(num_elements(shape) == 0) {}
  bool done() const { return done_; }
  const Dims& index() const { return index_; }
  int64_t operator[](size_t d) const { return index_[d]; }
  int64_t flat() const { return flat_; }  // row-major position of index()
  void next() {
    ++flat_;
    for (int64_t d = static_cast<int64_t>(shape_.size()) - 1; d >= 0; --d) {
      if (++index_[d] < shape_[d]) return;
      index_[d] = 0;
    }
    done_ = true;
  }

 private:
  Dims shape_;
  Dims index_;
  int64_t flat_ = 0;
  bool done_;
};

// Row-major offset of `index` in a tensor with `strides`.
// (Any two indexable lists: Dims, or a test's std::vector.)
template <typename Index, typename Strides>
int64_t offset_of(const Index& index, const Strides& strides) {
  int64_t off = 0;
  for (size_t d = 0; d < index.size(); ++d) off += index[d] * strides[d];
  return off;
}

}  // namespace plumb::rt
