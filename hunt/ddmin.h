// Delta debugging: Zeller and Hildebrandt's ddmin ("Simplifying and Isolating Failure-Inducing
// Input", IEEE TSE 2002). Given items for which `test` holds, returns a subset for which it holds
// and which is 1-minimal: removing any single item of it makes `test` fail (as far as `test` is
// deterministic). The test is called on subsets in the items' order; callers cache repeats.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace plumb::hunt {

using SubsetTest = std::function<bool(const std::vector<size_t>&)>;

// `start`, when not empty, is a subset to try first (a hint such as check's first divergence):
// when it passes, ddmin continues from it.
std::vector<size_t> ddmin(const std::vector<size_t>& items, const SubsetTest& test,
                          const std::vector<size_t>& start = {});

}  // namespace plumb::hunt
