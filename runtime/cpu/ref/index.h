// Index helpers for ref kernels (STYLE.md 2.4): row-major strides, and an iterator over every
// multi-index of a shape, so kernels never nest loops per rank.
#pragma once

#include <cstdint>
#include <vector>

namespace plumb::rt {

inline std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * shape[i + 1];
  return s;
}

inline int64_t num_elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// for (IndexIter it(shape); !it.done(); it.next()) { it.index() ... it.flat() }
class IndexIter {
 public:
  explicit IndexIter(const std::vector<int64_t>& shape)
      : shape_(shape), index_(shape.size(), 0), done_(num_elements(shape) == 0) {}
  bool done() const { return done_; }
  const std::vector<int64_t>& index() const { return index_; }
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
  std::vector<int64_t> shape_;
  std::vector<int64_t> index_;
  int64_t flat_ = 0;
  bool done_;
};

// Row-major offset of `index` in a tensor with `strides`.
inline int64_t offset_of(const std::vector<int64_t>& index, const std::vector<int64_t>& strides) {
  int64_t off = 0;
  for (size_t d = 0; d < index.size(); ++d) off += index[d] * strides[d];
  return off;
}

}  // namespace plumb::rt
