#include "hunt/reduce_predicate.h"

#include <filesystem>

#include "check/compare.h"
#include "check/model_inputs.h"
#include "check/onnx/frontend.h"
#include "check/onnx/run_check.h"
#include "check/onnx/values_io.h"
#include "hunt/onnx_proto.h"
#include "hunt/subprocess.h"
#include "runtime/session.h"

namespace plumb::hunt {

namespace {

std::string replace_all(std::string s, const std::string& what, const std::string& with) {
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + with.size()))
    s.replace(at, what.size(), with);
  return s;
}

// The candidate in `dir` lowered on its inputs and run on `backend`.
Expected<std::vector<rt::RtValue>> run_on(const std::string& dir, const std::string& backend, int threads,
                                          const std::vector<rt::BackendEntry>& extra = {}) {
  const check::InputFiles files{dir + "/test_data_set_0", {}};
  PLUMB_ASSIGN_OR_RETURN(check::LoadedModel lm,
                         check::load_model(dir + "/model.onnx", files, check::onnx_frontend()));
  PLUMB_ASSIGN_OR_RETURN(std::vector<rt::RtValue> inputs, check::all_inputs(lm, files));
  rt::SessionOptions o;
  o.backend = backend;
  o.threads = threads;
  o.extra_backends = extra;
  PLUMB_ASSIGN_OR_RETURN(std::unique_ptr<rt::Session> s, rt::Session::create(std::move(lm.graph), o));
  for (size_t k = 0; k < inputs.size() && k < s->num_inputs(); ++k)
    PLUMB_RETURN_IF_ERROR(s->set_input(k, inputs[k]));
  PLUMB_RETURN_IF_ERROR(s->run());
  return s->outputs();
}

Expected<std::vector<std::optional<onnx::DataValue>>> as_data(const std::vector<rt::RtValue>& values,
                                                              const ::onnx::ModelProto& m) {
  std::vector<std::optional<onnx::DataValue>> out;
  for (size_t k = 0; k < values.size() && k < static_cast<size_t>(m.graph().output_size()); ++k) {
    PLUMB_ASSIGN_OR_RETURN(onnx::DataValue d,
                           check::to_data_value(values[k], m.graph().output(static_cast<int>(k)).name()));
    out.emplace_back(std::move(d));
  }
  return out;
}

Status write_outputs(const std::string& dir, const std::vector<std::optional<onnx::DataValue>>& outputs) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return invalid_input("cannot create the folder: " + ec.message()).with_place(dir);
  for (size_t k = 0; k < outputs.size(); ++k)
    if (outputs[k])
      PLUMB_RETURN_IF_ERROR(onnx::write_data_file(dir + "/output_" + std::to_string(k) + ".pb", *outputs[k]));
  return Status::ok();
}

}  // namespace

check::CheckRequest Predicate::check_request(const std::string& dir, const std::string& expected,
                                             const check::FixedTolerance& tol) const {
  check::CheckRequest r;
  r.model = dir + "/model.onnx";
  r.inputs = check::InputFiles{dir + "/test_data_set_0", {}};
  r.expected = expected;
  r.tol = tol;
  r.samples = req_.samples;
  r.threads = req_.threads;
  return r;
}

Outcome Predicate::test(const Candidate& c) {
  const std::string dir = last_dir();
  Status valid = check_model_proto(c.model);
  if (!valid.is_ok() && valid.code() != ErrorCode::kUnsupported) return {false, false, valid.message()};
  if (Status w = write_candidate(dir, c); !w.is_ok()) return {false, false, w.to_string()};
  if (require_lowering_) {
    const check::InputFiles files{dir + "/test_data_set_0", {}};
    auto lm = check::load_model(dir + "/model.onnx", files, check::onnx_frontend());
    if (!lm) return {false, false, "plumb does not lower it: " + lm.status().to_string()};
  }
  switch (req_.mode) {
    case ReduceMode::kCheckFails: return check_fails(dir);
    case ReduceMode::kBackendsDiffer: return backends_differ(dir, c);
    case ReduceMode::kCommand: return command(dir);
  }
  return {};
}

Outcome Predicate::check_fails(const std::string& dir) {
  auto rep = check::run_check(check_request(dir, dir + "/test_data_set_0", req_.tol));
  if (!rep) return {false, false, "check: " + rep.status().to_string()};
  if (rep->verdict == check::Verdict::mismatch)
    return {true, true, "first divergence: " + rep->divergence_text()};
  return {true, false, std::string("check: ") + check::verdict_name(rep->verdict)};
}

Outcome Predicate::backends_differ(const std::string& dir, const Candidate& c) {
  auto a = run_on(dir, req_.backend_a, req_.threads, req_.extra_backends);
  if (!a) return {false, false, req_.backend_a + ": " + a.status().to_string()};
  auto b = run_on(dir, req_.backend_b, req_.threads, req_.extra_backends);
  if (!b) return {false, false, req_.backend_b + ": " + b.status().to_string()};
  auto a_data = as_data(*a, c.model);
  if (!a_data) return {false, false, a_data.status().to_string()};
  a_outputs_ = std::move(*a_data);
  const check::Tolerance exact{0.0, 0.0}, fixed{req_.tol.rtol, req_.tol.atol};
  bool differ = false;
  for (size_t k = 0; k < a->size() && k < b->size(); ++k) {
    const check::Comparison cmp = check::compare((*b)[k], (*a)[k], req_.tol.use ? fixed : exact);
    if (!cmp.match) {
      if (req_.tol.use)
        return {true, true,
                "output '" + c.model.graph().output(static_cast<int>(k)).name() + "': " + cmp.why};
      differ = true;
    }
  }
  if (req_.tol.use || !differ) return {true, false, differ ? "within tolerance" : "identical outputs"};
  // Not bit-identical: is either side beyond the noise bound of an f32 implementation?
  for (const auto& [name, values] : {std::pair{req_.backend_a, &*a}, std::pair{req_.backend_b, &*b}}) {
    if (name == "ref") continue;  // check's own native run is ref's: its outputs always match
    auto data = as_data(*values, c.model);
    if (!data) return {false, false, data.status().to_string()};
    const std::string exp = dir + "/outputs_" + name;
    if (Status w = write_outputs(exp, *data); !w.is_ok()) return {false, false, w.to_string()};
    auto rep = check::run_check(check_request(dir, exp, check::FixedTolerance{}));
    if (!rep) return {false, false, "check: " + rep.status().to_string()};
    if (rep->verdict == check::Verdict::mismatch)
      return {true, true,
              name + "'s outputs beyond the noise bound: first divergence: " + rep->divergence_text()};
  }
  return {true, false, "outputs differ within the noise bound"};
}

Outcome Predicate::command(const std::string& dir) {
  const std::string cmd = replace_all(replace_all(req_.command, "{model}", shell_quote(dir + "/model.onnx")),
                                      "{data}", shell_quote(dir + "/test_data_set_0"));
  auto r = run_shell(cmd, req_.timeout_s, dir + "/predicate.log");
  if (!r) return {false, false, r.status().to_string()};
  if (r->timed_out) return {true, false, strfmt("timed out after %g s", req_.timeout_s)};
  return {true, r->exit_code == 0, strfmt("exit %d", r->exit_code)};
}

Status recompute_expected(Candidate& c, const std::string& work_dir, int threads) {
  const std::string dir = work_dir + "/recompute";
  PLUMB_RETURN_IF_ERROR(write_candidate(dir, c));
  PLUMB_ASSIGN_OR_RETURN(std::vector<rt::RtValue> out, run_on(dir, "ref", threads));
  PLUMB_ASSIGN_OR_RETURN(c.expected, as_data(out, c.model));
  c.intermediates.clear();
  for (size_t k = 0; k < c.expected.size(); ++k) {  // the outputs' types: the values' own
    ::onnx::ValueInfoProto* vi = c.model.mutable_graph()->mutable_output(static_cast<int>(k));
    if (auto t = type_of_value(*c.expected[k], &vi->type())) *vi->mutable_type() = *t;
  }
  return Status::ok();
}

}  // namespace plumb::hunt
