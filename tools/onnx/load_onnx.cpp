// .onnx -> core graph for every command that takes a MODEL (strong definition of the hook that
// tools/main.cpp declares weak, so the tiny build links without the ONNX frontend).
#include "frontends/onnx/model.h"
#include "ir/graph.h"
#include "lowering/onnx/driver.h"

namespace plumb::cli {

Expected<ir::Graph> load_onnx_as_core(const std::string& path) {
  PLUMB_ASSIGN_OR_RETURN(onnx::OnnxModel model, onnx::load_model(path));
  return lower::lower_model(model);
}

}  // namespace plumb::cli
