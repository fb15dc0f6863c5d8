#include "hunt/ddmin.h"

#include <algorithm>

namespace plumb::hunt {

namespace {

// `c` split into `n` chunks of (nearly) equal size, in order.
std::vector<std::vector<size_t>> split(const std::vector<size_t>& c, size_t n) {
  std::vector<std::vector<size_t>> parts;
  size_t at = 0;
  for (size_t k = 0; k < n; ++k) {
    const size_t len = (c.size() - at) / (n - k);
    parts.emplace_back(c.begin() + static_cast<std::ptrdiff_t>(at),
                       c.begin() + static_cast<std::ptrdiff_t>(at + len));
    at += len;
  }
  return parts;
}

std::vector<size_t> without(const std::vector<size_t>& c, const std::vector<size_t>& part) {
  std::vector<size_t> out;
  std::set_difference(c.begin(), c.end(), part.begin(), part.end(), std::back_inserter(out));
  return out;
}

}  // namespace

std::vector<size_t> ddmin(const std::vector<size_t>& items, const SubsetTest& test,
                          const std::vector<size_t>& start) {
  std::vector<size_t> c = items;
  std::sort(c.begin(), c.end());
  if (!start.empty()) {
    std::vector<size_t> s = start;
    std::sort(s.begin(), s.end());
    if (s.size() < c.size() && test(s)) c = s;
  }
  size_t n = 2;
  while (c.size() >= 2) {
    n = std::min(n, c.size());
    const std::vector<std::vector<size_t>> parts = split(c, n);
    bool reduced = false;
    for (const auto& part : parts)  // reduce to a subset
      if (test(part)) {
        c = part;
        n = 2;
        reduced = true;
        break;
      }
    if (!reduced && n > 2)  // reduce to a complement (with n = 2 the complements are the subsets)
      for (const auto& part : parts) {
        std::vector<size_t> rest = without(c, part);
        if (test(rest)) {
          c = std::move(rest);
          n = std::max<size_t>(n - 1, 2);
          reduced = true;
          break;
        }
      }
    if (!reduced) {
      if (n >= c.size()) break;  // each item alone was tried: 1-minimal
      n = std::min(2 * n, c.size());
    }
  }
  return c;
}

}  // namespace plumb::hunt
