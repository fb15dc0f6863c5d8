// plumb_testbackend: the plumb CLI with the tests' backends among its backends (tools/main.cpp's
// weak cli_backends has none): "test" (tests/test_backend/) and "baseline" (ref's matmul and conv
// before issue 17, tests/ref_baseline/).
#include "tests/ref_baseline/baseline_backend.h"
#include "tests/test_backend/test_backend.h"
#include "tools/session_options.h"

namespace plumb::cli {

std::vector<rt::BackendEntry> cli_backends() {
  return {{"test", rt::test::make_backend}, {"baseline", rt::ref_baseline::make_backend}};
}

}  // namespace plumb::cli
