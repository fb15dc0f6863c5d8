// The ONNX frontend for the CLI: strong definitions of the hooks tools/main.cpp declares weak.
#include "tools/onnx_hooks.h"
#include "check/onnx/frontend.h"

namespace plumb::cli {

check::Frontend cli_frontend() { return check::onnx_frontend(); }

Status write_output_pb(const std::string& path, const rt::RtValue& value, const std::string& name) {
  return check::write_pb(path, value, name);
}

bool have_pb_io() { return true; }

}  // namespace plumb::cli
