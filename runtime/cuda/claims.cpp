#include "runtime/cuda/claims.h"

#include "ir/attrs.h"
#include "runtime/cuda/dtype_sets.h"
#include "runtime/cuda/index_math.h"
#include "runtime/value.h"

namespace plumb::rt::cuda {
namespace {

// Elements the layout and select kernels move as bytes: everything but strings.
bool movable(ir::DType dt) {
  if (dt == ir::DType::String) return false;
  const int64_t b = runtime_elem_bytes(dt);
  return b == 1 || b == 2 || b == 4 || b == 8;
}

std::string dt_name(ir::DType dt) { return std::string(ir::dtype_name(dt)); }

std::string why_unary(const ir::Node& n, ir::DType dt) {
  const ir::UnaryKind k = ir::attrs<ir::Op::Unary>(n).kind;
  const bool int_kind = k == ir::UnaryKind::Neg || k == ir::UnaryKind::Abs || k == ir::UnaryKind::Sign ||
                        k == ir::UnaryKind::Not;
  if (dt == ir::DType::Bool && k == ir::UnaryKind::Not) return "";
  if (is_computed_float(dt) && k != ir::UnaryKind::Not) return "";
  if (is_wide_int(dt) && int_kind) return "";
  return "unary " + dt_name(dt) +
         ": only f16, bf16, f32, f64, 8- to 64-bit integers and bool have cuda kernels";
}

std::string why_binary(const ir::Node& n, ir::DType dt) {
  const ir::BinaryKind k = ir::attrs<ir::Op::Binary>(n).kind;
  if (is_computed_float(dt) || dt == ir::DType::Bool) return "";
  if (is_wide_int(dt)) {
    if (k == ir::BinaryKind::Div || k == ir::BinaryKind::Rem || k == ir::BinaryKind::Pow)
      return "integer div, rem and pow have runtime errors (binary.R1, R2), which ref reports";
    return "";
  }
  return "binary " + dt_name(dt) +
         ": only f16, bf16, f32, f64, 8- to 64-bit integers and bool have cuda kernels";
}

std::string why_cast(ir::DType from, ir::DType to) {
  if (!castable(from) || !castable(to))
    return "cast " + dt_name(from) + " -> " + dt_name(to) +
           ": only bool, 8- to 64-bit integers, f16, bf16, f32 and f64 have cuda kernels";
  if (is_computed_float(from) && is_wide_int(to))
    return "cast float -> integer has a runtime error (cast.R1: NaN), which ref reports";
  if ((from == ir::DType::I64 || from == ir::DType::U64) && to == ir::DType::BF16)
    return "cast i64/u64 -> bf16 would round twice through f64";
  return "";
}

// The rows of matmul's and conv's dtype tables that cuda computes.
std::string why_contraction(const char* op, ir::DType a, ir::DType b, ir::DType to) {
  if (a == ir::DType::F32 && b == ir::DType::F32 && to == ir::DType::F32) return "";
  if ((a == ir::DType::F16 || a == ir::DType::BF16) && b == a && (to == a || to == ir::DType::F32)) return "";
  if (is_wide_int(a) && is_wide_int(b) &&
      (to == ir::DType::I32 || to == ir::DType::U32 || to == ir::DType::I64 || to == ir::DType::U64))
    return "";
  return std::string(op) + " " + dt_name(a) + " x " + dt_name(b) + " -> " + dt_name(to) +
         ": cuda takes f32 (cuBLAS), f16/bf16 and 8- to 64-bit integers (the spec's loop); f64 has no "
         "overflow guard for cuBLAS's Dgemm yet, f8 no kernel";
}

// True when `v` is the result of a constant node of the top-level body: known to compile, so
// slice's and pad's bounds (and their R-label checks) are resolved there.
bool constant_value(const ir::Graph& g, ir::ValueId v) {
  for (const ir::Node& n : g.body.nodes)
    if (n.op == ir::Op::Constant && !n.outputs.empty() && n.outputs[0] == v) return true;
  return false;
}

}  // namespace

std::string why_not(const ir::Graph& g, const ir::Node& n) {
  for (ir::ValueId v : n.inputs) {
    const ir::Type& t = g.type_of(v);
    if (!t.is_tensor() || !t.ranked || t.dtype == ir::DType::String)
      return "operand " + ir::type_to_string(t) + " is not a numeric tensor";
    if (t.rank() > kMaxRank) return "operand " + ir::type_to_string(t) + ": rank over 8";
  }
  for (ir::ValueId v : n.outputs) {
    const ir::Type& t = g.type_of(v);
    if (!t.is_tensor() || !t.ranked || t.dtype == ir::DType::String)
      return "result " + ir::type_to_string(t) + " is not a numeric tensor";
    if (t.rank() > kMaxRank) return "result " + ir::type_to_string(t) + ": rank over 8";
  }
  const auto in_dt = [&](size_t k) { return g.type_of(n.inputs[k]).dtype; };
  switch (n.op) {
    case ir::Op::Unary: return why_unary(n, in_dt(0));
    case ir::Op::Binary: return why_binary(n, in_dt(0));
    case ir::Op::Compare: {
      const ir::DType dt = in_dt(0);
      if (dt == ir::DType::Bool || is_wide_int(dt) || is_computed_float(dt)) return "";
      return "compare " + dt_name(dt) +
             ": only bool, 8- to 64-bit integers, f16, bf16, f32, f64 have cuda kernels";
    }
    case ir::Op::Select:
      return movable(in_dt(1)) ? "" : "select " + dt_name(in_dt(1)) + ": no element width the kernel moves";
    case ir::Op::Cast: return why_cast(in_dt(0), ir::attrs<ir::Op::Cast>(n).to);
    case ir::Op::Reduce: {
      const ir::DType dt = in_dt(0);
      if (is_computed_float(dt) || is_wide_int(dt) || dt == ir::DType::Bool) return "";
      return "reduce " + dt_name(dt) +
             ": only f16, bf16, f32, f64, 8- to 64-bit integers and bool have cuda kernels";
    }
    case ir::Op::MatMul:
      return why_contraction("matmul", in_dt(0), in_dt(1), ir::attrs<ir::Op::MatMul>(n).to);
    case ir::Op::Conv: return why_contraction("conv", in_dt(0), in_dt(1), ir::attrs<ir::Op::Conv>(n).to);
    case ir::Op::Pool: {
      const ir::DType dt = in_dt(0);
      if (is_computed_float(dt) || is_wide_int(dt)) return "";
      return "pool " + dt_name(dt) + ": only f16, bf16, f32, f64 and 8- to 64-bit integers have cuda kernels";
    }
    case ir::Op::Slice:
    case ir::Op::Pad: {
      if (!movable(in_dt(0)))
        return std::string(ir::op_name(n.op)) + " " + dt_name(in_dt(0)) + ": not movable";
      for (size_t k = 1; k < 3; ++k)
        if (!constant_value(g, n.inputs[k]))
          return std::string(ir::op_name(n.op)) +
                 " with bounds computed at run time (cuda takes constant bounds)";
      return "";
    }
    case ir::Op::Gather: {
      if (ir::attrs<ir::Op::Gather>(n).kind != ir::GatherKind::Axis)
        return "gather kinds elements and nd have no cuda kernel yet (kind axis has)";
      if (!movable(in_dt(0))) return "gather " + dt_name(in_dt(0)) + ": not movable";
      return "";
    }
    case ir::Op::Transpose:
    case ir::Op::Broadcast:
    case ir::Op::Reshape:
    case ir::Op::Concat:
      return movable(in_dt(0)) ? ""
                               : std::string(ir::op_name(n.op)) + " " + dt_name(in_dt(0)) + ": not movable";
    default: return std::string(ir::op_name(n.op)) + " has no cuda kernel yet (it runs on ref)";
  }
}

std::vector<Claim> claim_spans(const ir::Graph& g) {
  const auto& nodes = g.body.nodes;
  const auto n = static_cast<uint32_t>(nodes.size());
  std::vector<Claim> claims;
  for (uint32_t i = 0; i < n;) {
    if (nodes[i].op == ir::Op::Constant) {
      ++i;
      continue;
    }
    const std::string why = why_not(g, nodes[i]);
    if (!why.empty()) {
      claims.push_back(Claim{NodeSpan{i, i + 1}, Support::no("cuda: " + why)});
      ++i;
      continue;
    }
    // A run of taken nodes, constants between them included; it ends at its last taken node.
    uint32_t end = i + 1;
    for (uint32_t j = i + 1; j < n; ++j) {
      if (nodes[j].op == ir::Op::Constant) continue;
      if (!why_not(g, nodes[j]).empty()) break;
      end = j + 1;
    }
    claims.push_back(Claim{NodeSpan{i, end}, Support::ok()});
    i = end;
  }
  return claims;
}

bool uses_cublas(const ir::Graph& g, const ir::Node& n) {
  return (n.op == ir::Op::MatMul || n.op == ir::Op::Conv) && g.type_of(n.inputs[0]).dtype == ir::DType::F32 &&
         g.type_of(n.inputs[1]).dtype == ir::DType::F32;
}

}  // namespace plumb::rt::cuda
