// plumb_testbackend: the plumb CLI with the tests' backend among its backends (tools/main.cpp's
// weak cli_backends has none).
#include "tests/test_backend/test_backend.h"
#include "tools/session_options.h"

namespace plumb::cli {

std::vector<rt::BackendEntry> cli_backends() { return {{"test", rt::test::make_backend}}; }

}  // namespace plumb::cli
