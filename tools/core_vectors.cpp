// Reading and checking one core conformance case (spec/conformance.md).
#include "tools/core_vectors.h"

#include <cmath>
#include <cstring>
#include <sstream>
#include <type_traits>

#include "ir/attrs.h"
#include "ir/dtype.h"
#include "ir/op.h"
#include "ir/text.h"
#include "ir/verify.h"
#include "runtime/cpu/ref/constant_data.h"
#include "runtime/cpu/ref/dispatch.h"
#include "runtime/session.h"
#include "tools/session_options.h"
#include "tools/value_digest.h"

namespace plumb::cli {
namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// "K = LITERAL" -> (K, LITERAL)
Status split_indexed(const std::string& rest, size_t& k, std::string& lit) {
  const size_t eq = rest.find('=');
  if (eq == std::string::npos) return invalid_input("directive needs 'K = dense<...>': " + rest);
  const std::string num = trim(rest.substr(0, eq));
  if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos)
    return invalid_input("output index is not a number: '" + num + "'");
  k = std::stoul(num);
  lit = trim(rest.substr(eq + 1));
  return Status::ok();
}

// A `dense<T>[...]` literal, decoded through the text parser and the constant unpacker (no
// backend involved, so every backend is fed the same bits).
Expected<rt::Tensor> decode_literal(const std::string& lit) {
  const size_t open = lit.find("dense<"), close = lit.find(">[");
  if (open != 0 || close == std::string::npos) return invalid_input("not a dense literal: " + lit);
  const std::string type = lit.substr(6, close - 6);
  auto g = ir::parse_graph("plumb 1\nfunc @main() -> (" + type + ") {\n  %c = constant {value = " + lit +
                           "} : " + type + "\n  return %c\n}\n");
  if (!g) return g.status();
  if (g->constants.size() != 1) return invalid_input("literal did not give one constant: " + lit);
  rt::Tensor t;
  PLUMB_RETURN_IF_ERROR(rt::ref::unpack_constant(g->constants[0], t));
  return t;
}

// Every node of the graph, regions included.
void collect_nodes(const ir::Region& r, std::vector<const ir::Node*>& out) {
  for (const ir::Node& n : r.nodes) {
    out.push_back(&n);
    for (const ir::Region& sub : n.regions) collect_nodes(sub, out);
  }
}

// The loosest tolerance class among the graph's nodes: a case tests one op, whose class then
// decides (the helper ops around it, such as constants, are Exact).
ir::ToleranceClass loosest_tolerance(const ir::Graph& g) {
  std::vector<const ir::Node*> nodes;
  collect_nodes(g.body, nodes);
  ir::ToleranceClass worst = ir::ToleranceClass::Exact;
  for (const ir::Node* n : nodes) {
    const ir::ToleranceClass t = ir::tolerance_of(*n);
    if (static_cast<int>(t) > static_cast<int>(worst)) worst = t;
  }
  return worst;
}

// A cell claim `op[.kind] dt[,dt...]` holds when some node has that op, an enum attribute with
// that mnemonic (when given) and each named dtype among its operand or result dtypes.
Status check_cell_claim(const ir::Graph& g, const std::string& cell) {
  std::istringstream in(cell);
  std::string opkind, dts;
  in >> opkind >> dts;
  const size_t dot = opkind.find('.');
  const std::string op = opkind.substr(0, dot);
  const std::string kind = dot == std::string::npos ? "" : opkind.substr(dot + 1);
  std::vector<std::string> want;
  for (size_t b = 0; b <= dts.size();) {
    const size_t e = std::min(dts.find(',', b), dts.size());
    if (e > b) want.push_back(dts.substr(b, e - b));
    b = e + 1;
  }
  std::vector<const ir::Node*> nodes;
  collect_nodes(g.body, nodes);
  for (const ir::Node* n : nodes) {
    if (ir::op_name(n->op) != op) continue;
    bool kind_ok = kind.empty();
    const ir::OpInfo& info = ir::op_info(n->op);
    for (int a = 0; a < info.num_attrs && !kind_ok; ++a) {
      if (info.attrs[a].kind != ir::AttrKind::Enum) continue;
      const ir::Attr* at = n->find_attr(info.attrs[a].name);
      const auto* e = at ? std::get_if<ir::EnumValue>(&at->value) : nullptr;
      kind_ok = e && ir::enum_value_name(info.attrs[a].enum_type, e->code) == kind;
    }
    if (!kind_ok) continue;
    bool all = true;
    for (const std::string& w : want) {
      bool found = false;
      for (const auto* list : {&n->inputs, &n->outputs})
        for (ir::ValueId v : *list) {
          const ir::Type& t = g.type_of(v);
          found = found || (t.is_tensor() && ir::dtype_name(t.dtype) == w);
        }
      all = all && found;
    }
    if (all) return Status::ok();
  }
  return invalid_input("no node matches the claimed cell '" + cell + "'");
}

// Raw bits of element k of a float tensor, widened to u64, and the element's value.
template <typename T>
uint64_t raw_bits(const T& x) {
  if constexpr (rt::is_narrow_float_v<T>) {
    return x.bits;
  } else {
    uint64_t b = 0;
    std::memcpy(&b, &x, sizeof(T));
    return b;
  }
}

// A total order on the finite values of a float format, one step per representable value (so
// the distance of two keys is their distance in ulps): sign-magnitude to a signed integer.
int64_t order_key(ir::DType dt, uint64_t bits) {
  if (dt == ir::DType::F8E8M0) return static_cast<int64_t>(bits);  // no sign bit
  const int w = ir::dtype_bits(dt);
  const uint64_t sign = uint64_t{1} << (w - 1);
  const int64_t mag = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) ? -mag : mag;
}

struct Tolerance {
  ir::ToleranceClass cls;
  const rt::Tensor* bound;  // Accumulation / DotProduct: an absolute bound per element, or null
};

int ulps_of(ir::ToleranceClass c) {
  switch (c) {
    case ir::ToleranceClass::Ulp1: return 1;
    case ir::ToleranceClass::Ulp2: return 2;
    case ir::ToleranceClass::Ulp4: return 4;
    case ir::ToleranceClass::Ulp8: return 8;
    case ir::ToleranceClass::Accumulation:
    case ir::ToleranceClass::DotProduct: return 1;  // the "plus one ulp" of spec/numerics.md
    default: return 0;
  }
}

// Compares one float element; "" when it meets the tolerance, else why not.
std::string compare_float(ir::DType dt, double got, double want, uint64_t got_bits, uint64_t want_bits,
                          const Tolerance& tol, int64_t k) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) == std::isnan(got) ? "" : "NaN mismatch";
  if (tol.cls == ir::ToleranceClass::Exact || std::isinf(want) || std::isinf(got) || (want == 0 && got == 0))
    return got_bits == want_bits ? "" : "bits differ";
  // Accumulation / DotProduct: within the case's bound (n * eps * sum|x|, written by the generator),
  // or within the one ulp of the final rounding
  if (tol.bound && std::fabs(got - want) <= tol.bound->as<double>()[k]) return "";
  const int64_t d = order_key(dt, got_bits) - order_key(dt, want_bits);
  const int64_t n = ulps_of(tol.cls);
  if (d <= n && d >= -n) return "";
  if (tol.bound)
    return strfmt("error %.9g above bound %.9g + 1 ulp", std::fabs(got - want), tol.bound->as<double>()[k]);
  return strfmt("%lld ulp away (allowed %lld)", (long long)(d < 0 ? -d : d), (long long)n);
}

std::string show(double v) { return strfmt("%.17g", v); }

// "" when `got` meets `want` under `tol`, else a description of the first difference.
std::string compare_tensor(const rt::Tensor& got, const rt::Tensor& want, const Tolerance& tol) {
  if (got.dtype != want.dtype)
    return strfmt("dtype %s, expected %s", std::string(ir::dtype_name(got.dtype)).c_str(),
                  std::string(ir::dtype_name(want.dtype)).c_str());
  if (got.shape != want.shape) return "shape differs from the expected one";
  if (tol.bound && tol.bound->shape != want.shape) return "bound literal has the wrong shape";
  return rt::visit_dtype(got.dtype, [&](auto tag) -> std::string {
    using T = typename decltype(tag)::type;
    for (int64_t k = 0; k < got.numel(); ++k) {
      if constexpr (std::is_same_v<T, std::string>) {
        if (got.strings()[k] != want.strings()[k])
          return strfmt("element %lld: \"%s\", expected \"%s\"", (long long)k, got.strings()[k].c_str(),
                        want.strings()[k].c_str());
      } else if constexpr (rt::is_float_storage_v<T>) {
        const T a = got.as<T>()[k], b = want.as<T>()[k];
        double x, y;
        if constexpr (rt::is_narrow_float_v<T>) {
          x = rt::to_f64(a);
          y = rt::to_f64(b);
        } else {
          x = a;
          y = b;
        }
        const std::string why = compare_float(got.dtype, x, y, raw_bits(a), raw_bits(b), tol, k);
        if (!why.empty())
          return strfmt("element %lld: %s (bits 0x%llx), expected %s (bits 0x%llx): %s", (long long)k,
                        show(x).c_str(), (unsigned long long)raw_bits(a), show(y).c_str(),
                        (unsigned long long)raw_bits(b), why.c_str());
      } else {
        if (got.as<T>()[k] != want.as<T>()[k]) {
          const long long gv = static_cast<long long>(got.as<T>()[k]);
          const long long wv = static_cast<long long>(want.as<T>()[k]);
          return strfmt("element %lld: %lld, expected %lld", (long long)k, gv, wv);
        }
      }
    }
    return "";
  });
}

}  // namespace

Expected<VectorCase> parse_vector_case(std::string name, std::string text) {
  VectorCase c;
  c.name = std::move(name);
  c.text = std::move(text);
  std::istringstream lines(c.text);
  std::string line;
  while (std::getline(lines, line)) {
    line = trim(line);
    if (!starts_with(line, "//")) continue;
    const std::string d = trim(line.substr(2));
    if (starts_with(d, "input %")) {
      const size_t eq = d.find('=');
      if (eq == std::string::npos) return invalid_input("input directive needs '= dense<...>': " + d);
      c.inputs.emplace_back(trim(d.substr(7, eq - 7)), trim(d.substr(eq + 1)));
    } else if (starts_with(d, "expect-error ")) {
      c.expect_error = trim(d.substr(13));
    } else if (starts_with(d, "expect ")) {
      size_t k;
      std::string lit;
      PLUMB_RETURN_IF_ERROR(split_indexed(d.substr(7), k, lit));
      c.expects.emplace_back(k, lit);
    } else if (starts_with(d, "bound ")) {
      size_t k;
      std::string lit;
      PLUMB_RETURN_IF_ERROR(split_indexed(d.substr(6), k, lit));
      c.bounds.emplace_back(k, lit);
    } else if (starts_with(d, "reject ")) {
      c.reject = trim(d.substr(7));
    } else if (starts_with(d, "cell ")) {
      c.cells.push_back(trim(d.substr(5)));
    }
  }
  const int kinds = !c.expects.empty() + !c.expect_error.empty() + !c.reject.empty();
  if (kinds != 1) return invalid_input("a case needs exactly one of: expect lines, expect-error, reject");
  return c;
}

Status check_vector_case(const VectorCase& c, const std::string& backend, bool strict, std::string* digest,
                         int threads) {
  if (digest) *digest = "-";
  auto g = ir::parse_graph(c.text);
  if (!g) return invalid_input("does not parse: " + g.status().to_string());
  for (const std::string& cell : c.cells) PLUMB_RETURN_IF_ERROR(check_cell_claim(*g, cell));

  if (!c.reject.empty()) {
    const Status v = ir::verify(*g);
    if (v.is_ok()) return invalid_input("the verifier accepted it; expected a " + c.reject + " rejection");
    if (v.label() != c.reject)
      return invalid_input("rejected with '" + v.to_string() + "', expected " + c.reject);
    return Status::ok();
  }

  const ir::ToleranceClass cls = strict ? ir::ToleranceClass::Exact : loosest_tolerance(*g);
  rt::SessionOptions opts = session_options(backend);
  opts.threads = threads;
  auto s = rt::Session::create(std::move(*g), opts);
  if (!s) {
    if (s.status().code() == ErrorCode::kUnsupported) return s.status();  // counted as skipped
    return invalid_input("session: " + s.status().to_string());
  }
  for (const auto& [name, lit] : c.inputs) {
    auto t = decode_literal(lit);
    if (!t) return invalid_input("input %" + name + ": " + t.status().to_string());
    const std::string bare = !name.empty() && name[0] == '"' ? name.substr(1, name.size() - 2) : name;
    PLUMB_RETURN_IF_ERROR((*s)->set_input(bare, rt::RtValue(std::move(*t))));
  }
  const Status st = (*s)->run();
  if (digest) {
    uint64_t h = kDigestSeed;
    for (size_t k = 0; st.is_ok() && k < (*s)->num_outputs(); ++k) h = digest_value((*s)->output(k), h);
    *digest = st.is_ok() ? digest_hex(h) : "error " + st.label();
  }
  if (st.code() == ErrorCode::kUnsupported) return st;  // counted as skipped, with its reason
  if (!c.expect_error.empty()) {
    if (st.is_ok()) return invalid_input("ran without error; expected " + c.expect_error);
    if (st.label() != c.expect_error || st.code() != ErrorCode::kRuntimeError)
      return invalid_input("failed with '" + st.to_string() + "', expected runtime error " + c.expect_error);
    return Status::ok();
  }
  if (!st.is_ok()) return invalid_input("run failed: " + st.to_string());
  for (const auto& [k, lit] : c.expects) {
    if (k >= (*s)->num_outputs()) return invalid_input(strfmt("expect %zu: the graph has fewer outputs", k));
    auto want = decode_literal(lit);
    if (!want) return invalid_input(strfmt("expect %zu: ", k) + want.status().to_string());
    const rt::RtValue& got = (*s)->output(k);
    if (!got.is_tensor()) return invalid_input(strfmt("output %zu is not a tensor", k));
    std::optional<rt::Tensor> bound;
    for (const auto& [bk, blit] : c.bounds) {
      if (bk != k) continue;
      auto b = decode_literal(blit);
      if (!b || b->dtype != ir::DType::F64) return invalid_input(strfmt("bound %zu: not an f64 literal", k));
      bound = std::move(*b);
    }
    const std::string why =
        compare_tensor(got.tensor(), *want, Tolerance{cls, bound && !strict ? &*bound : nullptr});
    if (!why.empty())
      return invalid_input(strfmt("output %zu (%s): ", k, std::string(ir::tolerance_name(cls)).c_str()) +
                           why);
  }
  return Status::ok();
}

}  // namespace plumb::cli
