// A program that embeds plumb (tests/package/consumer.sh): runs a .plumb model through the
// runtime's Session and checks an .onnx model against expected values through the check library.
//   consumer MODEL.plumb MODEL.onnx DATA_DIR
// Prints "output: f32[3,6]" and "check: match"; exits 0 only when the check matches.
#include <cstdio>

#include "check/onnx/frontend.h"
#include "check/onnx/run_check.h"
#include "ir/load.h"
#include "runtime/session.h"

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  using namespace plumb;
  Expected<check::LoadedModel> m =
      check::load_model(argv[1], check::InputFiles{argv[3], {}}, check::onnx_frontend());
  if (!m) return std::fprintf(stderr, "%s\n", m.status().to_string().c_str()), 2;
  auto s = rt::Session::create(std::move(m->graph));
  if (!s) return std::fprintf(stderr, "%s\n", s.status().to_string().c_str()), 2;
  for (size_t k = 0; k < m->inputs.size(); ++k) (void)(*s)->set_input(k, *m->inputs[k]);
  Status st = (*s)->run();
  if (!st.is_ok()) return std::fprintf(stderr, "%s\n", st.to_string().c_str()), 2;
  std::printf("output: %s\n", ir::type_to_string(rt::type_of((*s)->output(0))).c_str());

  check::CheckRequest req;
  req.model = argv[2];
  req.inputs.data_dir = argv[3];
  Expected<check::CheckReport> r = check::run_check(req);
  if (!r) return std::fprintf(stderr, "%s\n", r.status().to_string().c_str()), 2;
  std::printf("check: %s\n", check::verdict_name(r->verdict));
  return r->match() ? 0 : 1;
}
