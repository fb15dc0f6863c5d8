// Runs a graph through rt::Session on a named backend, for the tests that compare a backend's
// results with ref's (tests/cpu, tests/cuda): a failure to open, feed or run is a test failure,
// and then no outputs come back.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/graph.h"
#include "runtime/session.h"

namespace plumb::rt::testing {

// The outputs of g on `backend` for `inputs`; `dispatch`, when given, collects the scheduler's
// dispatch lines (which spans ran where).
inline std::vector<RtValue> run_on_backend(const ir::Graph& g, const std::string& backend,
                                           const std::vector<Tensor>& inputs,
                                           std::string* dispatch = nullptr) {
  SessionOptions o;
  o.backend = backend;
  if (dispatch) o.on_schedule = [dispatch](const std::string& s) { *dispatch += s; };
  auto s = Session::create(g, o);
  EXPECT_TRUE(s.has_value()) << s.status().to_string();
  if (!s) return {};
  for (size_t k = 0; k < inputs.size(); ++k) EXPECT_TRUE((*s)->set_input(k, RtValue(inputs[k])).is_ok());
  const Status st = (*s)->run();
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  return st.is_ok() ? (*s)->outputs() : std::vector<RtValue>{};
}

}  // namespace plumb::rt::testing
