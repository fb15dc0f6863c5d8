#include "runtime/ref_evaluator.h"

#include "runtime/session.h"

namespace plumb::rt {

std::optional<ir::ConstantData> RefEvaluator::evaluate(ir::Graph g, int64_t max_bytes) const {
  SessionOptions so;
  so.max_bytes = max_bytes;
  auto session = Session::create(std::move(g), so);
  if (!session) return std::nullopt;  // e.g. the values are not yet well typed: leave it to the graph
  if (!(*session)->run().is_ok()) return std::nullopt;  // a run-time error surfaces when the graph runs
  const RtValue& out = (*session)->output(0);
  if (!out.is_tensor()) return std::nullopt;
  const Tensor& t = out.tensor();
  // The file-format constant of the run-time tensor: only where the two layouts agree.
  if (runtime_elem_bytes(t.dtype) * 8 != ir::dtype_bits(t.dtype)) return std::nullopt;
  const auto* p = static_cast<const uint8_t*>(t.data);
  return ir::ConstantData::owned(ir::Type::tensor(t.dtype, ir::static_shape(t.shape)),
                                 std::vector<uint8_t>(p, p + t.nbytes()));
}

}  // namespace plumb::rt
