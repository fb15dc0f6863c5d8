#include "check/hints.h"

#include <set>

#include "check/compare.h"
#include "check/eval.h"

namespace plumb::check {

namespace {

bool is_float_tensor(const rt::RtValue* v) {
  return v && v->is_tensor() && ir::is_float(v->tensor().dtype) && has_storage(*v);
}

int64_t count_below_zero(const rt::Tensor& t) {
  int64_t n = 0;
  for (double x : tensor_doubles(t)) n += x < 0;
  return n;
}

// The ONNX nodes (indices into r.nodes) that read top-level value v, other than its own node.
std::set<int> consumers_of(const ir::Graph& g, const CheckReport& r, ir::ValueId v, int own) {
  std::set<int> out;
  for (size_t k = 0; k < g.body.nodes.size(); ++k) {
    bool reads = false;
    for (ir::ValueId in : g.body.nodes[k].inputs) reads = reads || in == v;
    if (!reads || r.nodes.empty()) continue;
    const int node = static_cast<int>(group_of(r.nodes, k));
    if (node != own && !r.nodes[node].op_type.empty()) out.insert(node);
  }
  return out;
}

}  // namespace

int64_t count_negative(const rt::RtValue& v) {
  return is_float_tensor(&v) ? count_below_zero(v.tensor()) : 0;
}

std::vector<std::string> expected_value_hints(const ir::Graph& g, const CheckReport& r,
                                              const std::vector<RowEvidence>& rows) {
  std::vector<std::string> hints;
  if (r.first < 0 || static_cast<size_t>(r.first) >= rows.size()) return hints;
  const TensorRow& f = r.rows[r.first];
  const ErrorStats& d = r.first_kind == "local" ? f.local : f.carried;
  const std::string tensor = "'" + f.name + "'";
  if (d.shape_differs)
    hints.push_back("the expected value of " + tensor + " has another shape (" + d.why +
                    "): it may be another tensor's value, or this one in another layout (NHWC for "
                    "NCHW) or batch; check how it was saved");

  // An in-place activation: the saved value is the activation's output, not this tensor's.
  const RowEvidence& ev = rows[r.first];
  if (f.node >= 0 && is_float_tensor(ev.expected) && !d.shape_differs) {
    const std::set<int> readers = consumers_of(g, r, f.value, f.node);
    bool same_as_reader = false;
    for (size_t k = 0; k < r.rows.size() && !same_as_reader; ++k) {
      if (k == static_cast<size_t>(r.first) || !readers.count(r.rows[k].node) || k >= rows.size()) continue;
      const rt::RtValue* other = rows[k].expected;
      if (!is_float_tensor(other) || other->tensor().shape != ev.expected->tensor().shape) continue;
      if (!compare(*ev.expected, *other, Tolerance{0.0, 0.0}).match) continue;
      same_as_reader = true;
      hints.push_back("the expected value of " + tensor + " is identical to that of '" + r.rows[k].name +
                      "', the output of " + r.node_place(r.rows[k].node) +
                      " which reads it: the value may have been overwritten in place before it was "
                      "saved (torch's inplace=True activations do this; save a copy, e.g. .clone())");
    }
    if (!same_as_reader && ev.computed_negative > 0 && count_below_zero(ev.expected->tensor()) == 0) {
      for (int reader : readers) {
        if (r.nodes[reader].op_type != "Relu") continue;
        hints.push_back(strfmt("the expected value of %s has no negative element where the computed one has "
                               "%lld, and ",
                               tensor.c_str(), static_cast<long long>(ev.computed_negative)) +
                        r.node_place(reader) +
                        " reads it: it may have been saved after an in-place ReLU overwrote it "
                        "(torch's ReLU(inplace=True); save a copy, e.g. .clone())");
        break;
      }
    }
  }

  // The first differing node computes from graph inputs and constants alone.
  // (An intermediate: a graph output is the framework's final result, which fusions leave alone.)
  bool is_output = false;
  for (ir::ValueId v : g.body.results) is_output = is_output || v == f.value;
  if (r.localized() && r.span.agreeing.empty() && f.node >= 0 && !d.shape_differs && !is_output) {
    const std::string& op = r.nodes[f.node].op_type;
    const bool fusable = op == "Conv" || op == "ConvTranspose" || op == "Gemm" || op == "MatMul";
    hints.push_back(r.node_place(f.node) +
                    " reads only graph inputs and constants, and is the first to differ: the "
                    "expected value of " +
                    tensor + " may not be this ONNX node's output" +
                    (fusable ? " (an exporter folds a BatchNormalization into the Conv or Gemm before it: "
                               "the framework's layer output is then not the ONNX node's)"
                             : "") +
                    "; check how the expected values were dumped before suspecting the converter");
  }
  return hints;
}

}  // namespace plumb::check
