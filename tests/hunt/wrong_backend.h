// A backend that is wrong on purpose (tests/hunt only, never shipped): "wrong_tanh" claims every
// top-level `unary tanh` node and adds 0.25 to each element ref's kernel gives, so that
// `plumb reduce --until backends-differ ref,wrong_tanh` has a real difference to find.
#pragma once

#include "runtime/backend.h"

namespace plumb::hunt::testing {

rt::BackendEntry wrong_tanh_backend();

}  // namespace plumb::hunt::testing
