#include "hunt/reduce.h"

#include <onnx/onnx_pb.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "hunt/ddmin.h"
#include "hunt/onnx_proto.h"
#include "hunt/reduce_candidate.h"
#include "hunt/reduce_predicate.h"
#include "hunt/reduce_simplify.h"

namespace plumb::hunt {

namespace {

std::string dirname_of(const std::string& path) {
  const std::string d = std::filesystem::path(path).parent_path().string();
  return d.empty() ? "." : d;
}

// A private work folder, removed when the reduction ends.
class WorkDir {
 public:
  WorkDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "plumb-reduce-XXXXXX").string();
    if (::mkdtemp(pattern.data())) path_ = pattern;
  }
  ~WorkDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The ddmin test over node subsets: closures are cached (different subsets often close to the same
// model), progress is reported when a smaller failing model is found.
class NodeTest {
 public:
  NodeTest(const CandidateBuilder& b, Predicate& p, ReduceResult& r, const ReduceRequest& req)
      : builder_(b), pred_(p), result_(r), req_(req), smallest_(b.num_nodes()) {}

  bool operator()(const std::vector<size_t>& subset) {
    const std::vector<size_t> nodes = builder_.closure(subset);
    if (auto hit = cache_.find(nodes); hit != cache_.end()) return hit->second;
    auto c = builder_.build(subset);
    bool interesting = false;
    if (!c) {
      ++result_.invalid;
    } else {
      const Outcome o = pred_.test(*c);
      ++result_.tests;
      if (!o.valid) ++result_.invalid;
      interesting = o.interesting;
      last_why_ = o.why;
      if (interesting && nodes.size() < smallest_) {
        smallest_ = nodes.size();
        if (req_.progress)
          req_.progress(strfmt("ddmin: %zu nodes still fail (%s)", smallest_, o.why.c_str()));
      }
    }
    cache_.emplace(nodes, interesting);
    return interesting;
  }
  const std::string& last_why() const { return last_why_; }

 private:
  const CandidateBuilder& builder_;
  Predicate& pred_;
  ReduceResult& result_;
  const ReduceRequest& req_;
  size_t smallest_;
  std::map<std::vector<size_t>, bool> cache_;
  std::string last_why_;
};

// The nodes check blamed on the whole model (its first divergence), as original node indices.
std::vector<size_t> blamed_nodes(const ::onnx::ModelProto& m, const std::string& why) {
  std::vector<size_t> out;
  for (int k = 0; k < m.graph().node_size(); ++k) {
    const std::string& name = m.graph().node(k).name();
    if (!name.empty() && why.find("'" + name + "'") != std::string::npos)
      out.push_back(static_cast<size_t>(k));
  }
  return out;
}

}  // namespace

std::string ReduceResult::summary(const std::string& out_dir) const {
  std::string kept_text;
  for (size_t k = 0; k < kept.size() && k < 5; ++k) kept_text += (k ? ", " : "") + kept[k];
  if (kept.size() > 5) kept_text += strfmt(", and %zu more", kept.size() - 5);
  return strfmt(
      "reduced: %zu -> %zu nodes (%s); %d tests, %d attributes removed, %d dim sizes shrunk: %s/model.onnx",
      nodes_before, nodes_after, kept_text.c_str(), tests, attributes_removed, dims_shrunk, out_dir.c_str());
}

Expected<ReduceResult> reduce_model(const ReduceRequest& req) {
  if (req.out_dir.empty()) return invalid_input("no output folder (-o OUT)");
  PLUMB_ASSIGN_OR_RETURN(::onnx::ModelProto model, read_model_proto(req.model));
  const ValuePolicy policy =
      req.mode == ReduceMode::kCheckFails ? ValuePolicy::kExpectedOnly : ValuePolicy::kComputed;
  ValueSources src{req.model, req.data_dir, req.expected, policy == ValuePolicy::kComputed, req.threads};
  if (req.mode == ReduceMode::kBackendsDiffer && req.expected.empty())
    src.expected_path = "-";  // not compared
  if (req.progress)
    req.progress("reading the values" + std::string(src.compute ? " and running the model on ref" : ""));
  PLUMB_ASSIGN_OR_RETURN(ValueTable values, read_value_table(model, src));

  ReduceResult result;
  result.nodes_before = static_cast<size_t>(model.graph().node_size());
  if (!values.computed_unavailable.empty())
    result.note = "the model does not run on ref (" + values.computed_unavailable +
                  "): cut tensors are fed stand-in values of their inferred types";
  WorkDir work;
  if (work.path().empty()) return invalid_input("cannot create a work folder in the temporary directory");

  // A command may be about a model plumb cannot lower (a lowering bug): then lowering is not asked
  // of the reduced models either. The built-in predicates lower every candidate themselves.
  Predicate pred(req, work.path(), req.mode == ReduceMode::kCommand && values.computed_unavailable.empty());

  const CandidateBuilder builder(model, values, policy, dirname_of(req.model));
  NodeTest test(builder, pred, result, req);
  std::vector<size_t> all(builder.num_nodes());
  for (size_t k = 0; k < all.size(); ++k) all[k] = k;
  if (req.progress) req.progress(strfmt("testing the whole model (%zu nodes)", all.size()));
  if (!test(all)) {
    if (result.invalid > 0 && result.tests == 0)
      return invalid_input("the model as given cannot be tested: " + test.last_why()).with_place(req.model);
    return invalid_input("the predicate does not hold on the model as given (" + test.last_why() + ")")
        .with_place(req.model);
  }
  // check's first divergence is a good first guess: ddmin starts from it when it still fails.
  const std::vector<size_t> hint = req.mode == ReduceMode::kCheckFails && req.hint
                                       ? blamed_nodes(model, test.last_why())
                                       : std::vector<size_t>{};
  const std::vector<size_t> kept = ddmin(all, std::ref(test), hint);

  PLUMB_ASSIGN_OR_RETURN(Candidate best, builder.build(kept));
  KeepTest keep = [&](Candidate& c) {
    if (req.mode == ReduceMode::kCommand && !values.computed_unavailable.empty()) return false;
    if (req.mode == ReduceMode::kCommand && !recompute_expected(c, work.path(), req.threads).is_ok())
      return false;
    const Outcome o = pred.test(c);
    ++result.tests;
    result.invalid += !o.valid;
    if (req.progress) req.progress(std::string(o.interesting ? "kept" : "undone") + ": " + o.why);
    return o.interesting;
  };
  if (req.simplify) {
    if (req.progress) req.progress("simplifying attributes");
    result.attributes_removed = simplify_attributes(best, req.mode == ReduceMode::kCheckFails, keep);
    if (req.mode != ReduceMode::kCheckFails) {
      if (req.progress) req.progress("simplifying shapes");
      result.dims_shrunk = simplify_shapes(best, keep);
    }
  }
  // The result once more: it must still fail (and backends-differ's expected outputs are A's).
  const Outcome last = pred.test(best);
  ++result.tests;
  if (!last.interesting) return internal_error("the reduced model no longer fails (" + last.why + ")");
  if (req.mode == ReduceMode::kBackendsDiffer) best.expected = pred.last_a_outputs();
  PLUMB_RETURN_IF_ERROR(write_candidate(req.out_dir, best));
  result.nodes_after = best.num_nodes();
  for (int k = 0; k < best.model.graph().node_size(); ++k) {
    const ::onnx::NodeProto& n = best.model.graph().node(k);
    result.kept.push_back((n.name().empty() ? "#" + std::to_string(k) : "'" + n.name() + "'") + " (" +
                          n.op_type() + ")");
  }
  std::ofstream note(req.out_dir + "/reduce.txt", std::ios::trunc);
  note << result.summary(req.out_dir) << "\n"
       << last.why << "\n"
       << (result.note.empty() ? "" : result.note + "\n");
  return result;
}

}  // namespace plumb::hunt
