// The text form's printer (spec/text_form.md).
#include <cinttypes>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include "ir/infer.h"
#include "ir/narrow_float.h"
#include "ir/text.h"
#include "ir/text_syntax.h"

namespace plumb::ir {

using namespace text;  // the lexical syntax (text_syntax.h)

namespace {

// ---- number formatting ---------------------------------------------------------------------

// The shortest %g form of `v` for which `same(parsed)` holds.
template <typename Same>
std::string shortest(double v, Same same) {
  char buf[64];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    if (same(std::strtod(buf, nullptr))) return buf;
  }
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string format_f64_attr(double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, 8);
  if (std::isnan(d))
    return bits == 0x7ff8000000000000ull ? "nan" : strfmt("0x%016llx", static_cast<unsigned long long>(bits));
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  std::string s = shortest(d, [&](double p) {
    uint64_t pb;
    std::memcpy(&pb, &p, 8);
    return pb == bits;
  });
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// Every float dtype but f64 holds only values that f32 holds exactly, so an element prints as the
// shortest decimal that reads back to the same f32 (the same f64 for f64): the exact stored value
// is recoverable from the text, and reading it rounds back to the same bits.
std::string format_float_elem(DType dt, uint64_t bits) {
  const double v = float_bits_to_double(dt, bits);
  const int width = dtype_bits(dt);
  if (std::isnan(v)) {
    auto canon = canonical_nan_bits(dt);
    if (canon && *canon == bits) return "nan";
    return strfmt("0x%0*llx", (width + 3) / 4, static_cast<unsigned long long>(bits));
  }
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (dt == DType::F64) {
    return shortest(v, [&](double p) {
      uint64_t pb;
      std::memcpy(&pb, &p, 8);
      return pb == bits;
    });
  }
  const auto f32_bits = double_to_float_bits(DType::F32, v);  // exact
  return shortest(v, [&](double p) {
    return double_to_float_bits(DType::F32, p) == f32_bits && double_to_float_bits(dt, p) == bits;
  });
}

// ---- printer -------------------------------------------------------------------------------

class Printer {
 public:
  Printer(const Graph& g, const PrintOptions& opt) : g_(g), opt_(opt), names_(g.values.size()) {}

  std::string run() {
    out_ = strfmt("plumb %u\n", static_cast<unsigned>(g_.core_version));
    if (!g_.producer.empty()) out_ += "producer " + quote(g_.producer) + "\n";
    out_ += "func @main(";
    for (size_t i = 0; i < g_.body.params.size(); ++i) {
      const ValueId v = g_.body.params[i];
      if (i) out_ += ", ";
      out_ += define(v) + ": " + type_of(v);
      const std::string name = i < g_.input_names.size() ? g_.input_names[i] : std::string();
      if (name != onnx_name(v)) out_ += " as " + quote(name);
    }
    out_ += ") -> (";
    for (size_t i = 0; i < g_.body.results.size(); ++i) {
      const ValueId v = g_.body.results[i];
      if (i) out_ += ", ";
      out_ += type_of(v);
      const std::string name = i < g_.output_names.size() ? g_.output_names[i] : std::string();
      if (name != onnx_name(v)) out_ += " as " + quote(name);
    }
    out_ += ") {\n";
    nodes(g_.body, 1);
    indent(1);
    out_ += "return" + value_list(g_.body.results, " ") + "\n}\n";
    return out_;
  }

 private:
  std::string onnx_name(ValueId v) const {
    return v < g_.values.size() ? g_.values[v].onnx_name : std::string();
  }
  std::string type_of(ValueId v) const { return v < g_.values.size() ? print_type(g_.values[v].type) : "?"; }

  std::string define(ValueId v) {
    if (v >= g_.values.size()) return "%!" + std::to_string(v);
    const std::string& onnx = g_.values[v].onnx_name;
    std::string name;
    if (onnx.empty()) {
      name = "%" + std::to_string(next_anon_++);
    } else {
      const int k = seen_[onnx]++;
      name = "%" + ident_or_quote(onnx) + (k ? "#" + std::to_string(k) : "");
    }
    names_[v] = name;
    return name;
  }
  std::string ref(ValueId v) const {
    if (v < names_.size() && !names_[v].empty()) return names_[v];
    return "%!" + std::to_string(v);  // undefined: only in unverified graphs (does not parse)
  }
  std::string value_list(const std::vector<ValueId>& vs, const char* lead) const {
    std::string s;
    for (size_t i = 0; i < vs.size(); ++i) s += (i ? ", " : lead) + ref(vs[i]);
    return s;
  }
  void indent(int level) { out_.append(static_cast<size_t>(level) * 2, ' '); }

  void nodes(const Region& r, int level) {
    for (const Node& n : r.nodes) node(n, level);
  }

  void node(const Node& n, int level) {
    indent(level);
    if (!n.outputs.empty()) {
      for (size_t i = 0; i < n.outputs.size(); ++i) out_ += (i ? ", " : "") + define(n.outputs[i]);
      out_ += " = ";
    }
    const bool known = static_cast<int>(n.op) < kNumOps;
    out_ += known ? std::string(op_name(n.op)) : "op" + std::to_string(static_cast<int>(n.op));
    out_ += value_list(n.inputs, " ");
    if (!n.attrs.empty()) {
      out_ += " {";
      for (size_t i = 0; i < n.attrs.size(); ++i) {
        if (i) out_ += ", ";
        out_ += n.attrs[i].name + " = " + attr(n, n.attrs[i]);
      }
      out_ += "}";
    }
    if (!n.regions.empty()) {
      out_ += " {\n";
      for (size_t i = 0; i < n.regions.size(); ++i) {
        const Region& r = n.regions[i];
        indent(level + 1);
        out_ += region_label(n.op, i) + " (";
        for (size_t k = 0; k < r.params.size(); ++k) {
          if (k) out_ += ", ";
          out_ += define(r.params[k]) + ": " + type_of(r.params[k]);
        }
        out_ += ") {\n";
        nodes(r, level + 2);
        indent(level + 2);
        out_ += "yield" + value_list(r.results, " ") + "\n";
        indent(level + 1);
        out_ += "}\n";
      }
      indent(level);
      out_ += "}";
    }
    if (!n.outputs.empty()) {
      out_ += " : ";
      for (size_t i = 0; i < n.outputs.size(); ++i) out_ += (i ? ", " : "") + type_of(n.outputs[i]);
    }
    const Provenance& p = n.prov;
    if (!p.node_name.empty() || !p.op_type.empty() || p.opset != 0 || !p.step.empty()) {
      out_ +=
          " loc(" + quote(p.node_name) + ", " + ident_or_quote(p.op_type) + ", " + std::to_string(p.opset);
      if (!p.step.empty()) out_ += ", " + quote(p.step);
      out_ += ")";
    }
    out_ += "\n";
  }

  static std::string region_label(Op op, size_t i) {
    if (op == Op::If) return i == 0 ? "then" : i == 1 ? "else" : "region" + std::to_string(i);
    if (op == Op::While) return i == 0 ? "cond" : i == 1 ? "body" : "region" + std::to_string(i);
    return "region" + std::to_string(i);
  }

  std::string attr(const Node& n, const Attr& a) {
    struct V {
      Printer& p;
      const Node& n;
      const Attr& a;
      std::string operator()(int64_t v) const { return std::to_string(v); }
      std::string operator()(double v) const { return format_f64_attr(v); }
      std::string operator()(bool v) const { return v ? "true" : "false"; }
      std::string operator()(const std::vector<int64_t>& v) const {
        std::string s = "[";
        for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
        return s + "]";
      }
      std::string operator()(const std::vector<double>& v) const {
        std::string s = "[";
        for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + format_f64_attr(v[i]);
        return s + "]";
      }
      std::string operator()(const std::string& v) const { return quote(v); }
      std::string operator()(DType v) const {
        return static_cast<int>(v) < kNumDTypes ? std::string(dtype_name(v))
                                                : "!dtype" + std::to_string(int(v));
      }
      std::string operator()(EnumValue v) const {
        const AttrSpec* spec = static_cast<int>(n.op) < kNumOps ? find_attr_spec(n.op, a.name) : nullptr;
        std::string_view name = spec ? enum_value_name(spec->enum_type, v.code) : std::string_view();
        return name.empty() ? "!enum" + std::to_string(v.code) : std::string(name);
      }
      std::string operator()(ConstRef v) const {
        if (v.index >= p.g_.constants.size()) return "!const" + std::to_string(v.index);
        return p.dense(p.g_.constants[v.index]);
      }
      std::string operator()(const TypeAttr& v) const { return print_type(v.type); }
    };
    return std::visit(V{*this, n, a}, a.value);
  }

  std::string dense(const ConstantData& c) {
    const Type& t = c.type;
    std::string s = "dense<" + print_type(t) + ">";
    const int64_t n = t.is_tensor() && t.ranked ? shape_num_elements(t.shape) : -1;
    if (n < 0) return s + "!corrupt";
    if (opt_.elide_above && static_cast<uint64_t>(n) > opt_.elide_above) return s + "[...]";
    const DType dt = t.dtype;
    if (static_cast<int>(dt) >= kNumDTypes) return s + "!corrupt";
    const uint8_t* d = c.data;
    s += "[";
    if (dt == DType::String) {
      uint64_t pos = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (c.size - pos < 4 || c.size < pos) return s + "!corrupt]";
        uint32_t len = uint32_t(d[pos]) | uint32_t(d[pos + 1]) << 8 | uint32_t(d[pos + 2]) << 16 |
                       uint32_t(d[pos + 3]) << 24;
        pos += 4;
        if (c.size - pos < len) return s + "!corrupt]";
        s += (i ? ", " : "") + quote(std::string_view(reinterpret_cast<const char*>(d + pos), len));
        pos += len;
      }
      return s + "]";
    }
    if (c.size != dtype_storage_bytes(dt, static_cast<uint64_t>(n))) return s + "!corrupt]";
    const int bits = dtype_bits(dt);
    for (int64_t i = 0; i < n; ++i) {
      uint64_t b = 0;
      if (bits >= 8) {
        for (int k = bits / 8 - 1; k >= 0; --k) b = (b << 8) | d[static_cast<uint64_t>(i) * (bits / 8) + k];
      } else {
        const int per = 8 / bits;
        b = (d[i / per] >> ((i % per) * bits)) & ((1u << bits) - 1);
      }
      if (i) s += ", ";
      switch (dtype_category(dt)) {
        case DTypeCategory::Bool: s += b ? "true" : "false"; break;
        case DTypeCategory::Unsigned: s += std::to_string(b); break;
        case DTypeCategory::Signed: {
          int64_t v = bits == 64 ? static_cast<int64_t>(b)
                                 : static_cast<int64_t>(b << (64 - bits)) >> (64 - bits);  // sign-extend
          s += std::to_string(v);
          break;
        }
        case DTypeCategory::Float: s += format_float_elem(dt, b); break;
        case DTypeCategory::String: break;
      }
    }
    return s + "]";
  }

  const Graph& g_;
  PrintOptions opt_;
  std::string out_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, int> seen_;
  int next_anon_ = 0;
};

}  // namespace

std::string print_type(const Type& t) {
  switch (t.kind) {
    case TypeKind::Tensor: {
      const std::string dt =
          static_cast<int>(t.dtype) < kNumDTypes ? std::string(dtype_name(t.dtype)) : "!dtype";
      if (!t.ranked) return dt + "[*]";
      std::string s = dt + "[";
      for (size_t i = 0; i < t.shape.size(); ++i) {
        if (i) s += ",";
        const Dim& d = t.shape[i];
        if (d.is_static())
          s += std::to_string(d.size);
        else if (d.sym.empty())
          s += "?";
        else
          s += ident_or_quote(d.sym);
      }
      return s + "]";
    }
    case TypeKind::Sequence: return "seq<" + (t.elem ? print_type(*t.elem) : "!") + ">";
    case TypeKind::Optional: return "opt<" + (t.elem ? print_type(*t.elem) : "!") + ">";
    case TypeKind::Map:
      return "map<" + std::string(static_cast<int>(t.dtype) < kNumDTypes ? dtype_name(t.dtype) : "!dtype") +
             "," + (t.elem ? print_type(*t.elem) : "!") + ">";
  }
  return "!type";
}

std::string print_graph(const Graph& g, const PrintOptions& options) { return Printer(g, options).run(); }

}  // namespace plumb::ir
