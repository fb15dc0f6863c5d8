// hunt/ddmin.h: 1-minimal subsets, the number of tests, the hint.
#include "hunt/ddmin.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace plumb::hunt {
namespace {

std::vector<size_t> range(size_t n) {
  std::vector<size_t> v(n);
  for (size_t k = 0; k < n; ++k) v[k] = k;
  return v;
}

bool has(const std::vector<size_t>& s, size_t x) { return std::find(s.begin(), s.end(), x) != s.end(); }

TEST(Ddmin, FindsTheTwoItemsThatTogetherFail) {
  int calls = 0;
  auto test = [&](const std::vector<size_t>& s) {
    ++calls;
    return has(s, 3) && has(s, 17);
  };
  EXPECT_EQ(ddmin(range(40), test), (std::vector<size_t>{3, 17}));
  EXPECT_LE(calls, 60);
}

TEST(Ddmin, ResultIsOneMinimal) {
  // Fails with any three even items: the result holds three even items, and removing one passes.
  auto test = [](const std::vector<size_t>& s) {
    return std::count_if(s.begin(), s.end(), [](size_t x) { return x % 2 == 0; }) >= 3;
  };
  const std::vector<size_t> r = ddmin(range(25), test);
  ASSERT_EQ(r.size(), 3u);
  for (size_t x : r) EXPECT_EQ(x % 2, 0u);
  for (size_t k = 0; k < r.size(); ++k) {
    std::vector<size_t> less = r;
    less.erase(less.begin() + static_cast<std::ptrdiff_t>(k));
    EXPECT_FALSE(test(less));
  }
}

TEST(Ddmin, SingleCulpritInLogarithmicallyManyTests) {
  int calls = 0;
  auto test = [&](const std::vector<size_t>& s) {
    ++calls;
    return has(s, 77);
  };
  EXPECT_EQ(ddmin(range(128), test), (std::vector<size_t>{77}));
  EXPECT_LE(calls, 2 * 7 + 2);  // two halves per halving at most
}

TEST(Ddmin, AHintThatFailsIsTakenAndOneThatDoesNotIsIgnored) {
  int calls = 0;
  auto test = [&](const std::vector<size_t>& s) {
    ++calls;
    return has(s, 5);
  };
  EXPECT_EQ(ddmin(range(64), test, {5}), (std::vector<size_t>{5}));
  EXPECT_EQ(calls, 1);
  calls = 0;
  EXPECT_EQ(ddmin(range(64), test, {6, 7}), (std::vector<size_t>{5}));
  EXPECT_GT(calls, 1);
}

TEST(Ddmin, KeepsEverythingWhenEveryItemIsNeeded) {
  auto test = [](const std::vector<size_t>& s) { return s.size() == 6; };
  EXPECT_EQ(ddmin(range(6), test), range(6));
}

}  // namespace
}  // namespace plumb::hunt
