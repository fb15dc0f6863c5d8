// The text form (spec/text_form.md): printer and parser.
#include "ir/text.h"

#include <cinttypes>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "ir/infer.h"
#include "ir/narrow_float.h"

namespace plumb::ir {

namespace {

constexpr int kMaxRegionDepth = 64;  // nesting of regions in one text
constexpr int kMaxTypeDepth = 32;    // nesting of seq/opt/map in one type

bool is_ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9') || c == '.'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_ident(std::string_view s) {
  if (s.empty() || !is_ident_start(s[0])) return false;
  for (char c : s)
    if (!is_ident_char(c)) return false;
  return true;
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += strfmt("\\x%02x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string ident_or_quote(std::string_view s) { return is_ident(s) ? std::string(s) : quote(s); }

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
  if (std::isnan(d)) return bits == 0x7ff8000000000000ull ? "nan" : strfmt("0x%016" PRIx64, bits);
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
    return strfmt("0x%0*" PRIx64, (width + 3) / 4, bits);
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
    out_ = strfmt("plumb %u\n", g_.core_version);
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

// ---- lexer ---------------------------------------------------------------------------------

enum class Tok { Ident, Value, Global, String, Number, Punct, Arrow, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;  // Ident/Global/Number: the text; String: the decoded bytes; Punct: the char
  // Value tokens: `key` identifies the name in scopes; `onnx` is the ONNX name it carries.
  std::string key, onnx, suffix;
  int line = 0, col = 0;
};

Status error_at(int line, int col, const std::string& msg) {
  return invalid_model("", strfmt("%d:%d: %s", line, col, msg.c_str()));
}

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Status run(std::vector<Token>& out) {
    for (;;) {
      skip_space();
      Token t;
      t.line = line_;
      t.col = col_;
      if (pos_ >= s_.size()) {
        out.push_back(t);
        return Status::ok();
      }
      const char c = s_[pos_];
      if (c == '%') {
        advance();
        t.kind = Tok::Value;
        if (pos_ < s_.size() && is_digit(s_[pos_])) {
          std::string num;
          while (pos_ < s_.size() && is_digit(s_[pos_])) num += advance();
          t.key = "#" + num;
        } else if (pos_ < s_.size() && s_[pos_] == '"') {
          PLUMB_RETURN_IF_ERROR(string_lit(t.onnx));
        } else if (pos_ < s_.size() && is_ident_start(s_[pos_])) {
          while (pos_ < s_.size() && is_ident_char(s_[pos_])) t.onnx += advance();
        } else {
          return error_at(t.line, t.col, "expected a value name after '%'");
        }
        if (t.key.empty()) {
          if (pos_ < s_.size() && s_[pos_] == '#') {
            advance();
            if (pos_ >= s_.size() || !is_digit(s_[pos_]))
              return error_at(line_, col_, "expected digits after '#'");
            t.suffix = "#";
            while (pos_ < s_.size() && is_digit(s_[pos_])) t.suffix += advance();
          }
          // Length-prefixed, so that %"x#1" and %x#1 are different names.
          t.key = std::to_string(t.onnx.size()) + ":" + t.onnx + t.suffix;
        }
      } else if (c == '@') {
        advance();
        t.kind = Tok::Global;
        while (pos_ < s_.size() && is_ident_char(s_[pos_])) t.text += advance();
        if (t.text.empty()) return error_at(t.line, t.col, "expected a name after '@'");
      } else if (c == '"') {
        t.kind = Tok::String;
        PLUMB_RETURN_IF_ERROR(string_lit(t.text));
      } else if (is_ident_start(c)) {
        t.kind = Tok::Ident;
        while (pos_ < s_.size() && is_ident_char(s_[pos_])) t.text += advance();
      } else if (is_digit(c) || (c == '-' && pos_ + 1 < s_.size() &&
                                 (is_digit(s_[pos_ + 1]) || is_ident_start(s_[pos_ + 1])))) {
        t.kind = Tok::Number;
        t.text += advance();
        const bool hex = t.text == "0" && pos_ < s_.size() && (s_[pos_] == 'x' || s_[pos_] == 'X');
        while (pos_ < s_.size()) {
          const char d = s_[pos_];
          if (is_ident_char(d)) {
            t.text += advance();
          } else if ((d == '+' || d == '-') && !hex && !t.text.empty() &&
                     (t.text.back() == 'e' || t.text.back() == 'E') &&
                     is_digit(t.text[t.text[0] == '-' ? 1 : 0])) {
            t.text += advance();
          } else {
            break;
          }
        }
      } else if (c == '-' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '>') {
        advance();
        advance();
        t.kind = Tok::Arrow;
        t.text = "->";
      } else if (s_.substr(pos_, 3) == "...") {
        advance();
        advance();
        advance();
        t.kind = Tok::Punct;
        t.text = "...";
      } else if (c != 0 && std::strchr("(){}[]<>,:=?*", c)) {
        t.kind = Tok::Punct;
        t.text = std::string(1, advance());
      } else {
        return error_at(t.line, t.col, strfmt("unexpected character '%s'", printable(c).c_str()));
      }
      out.push_back(std::move(t));
    }
  }

 private:
  static std::string printable(char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x7f ? std::string(1, c) : strfmt("\\x%02x", u);
  }
  char advance() {
    const char c = s_[pos_++];
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    return c;
  }
  void skip_space() {
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        advance();
      } else if (c == '/' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '/') {
        while (pos_ < s_.size() && s_[pos_] != '\n') advance();
      } else {
        break;
      }
    }
  }
  static int hex_val(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  Status string_lit(std::string& out) {
    const int line = line_, col = col_;
    advance();  // opening quote
    for (;;) {
      if (pos_ >= s_.size() || s_[pos_] == '\n') return error_at(line, col, "unterminated string");
      const char c = advance();
      if (c == '"') return Status::ok();
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) return error_at(line, col, "unterminated string");
      const int el = line_, ec = col_;
      const char e = advance();
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'x': {
          const int h = pos_ < s_.size() ? hex_val(s_[pos_]) : -1;
          const int l = pos_ + 1 < s_.size() ? hex_val(s_[pos_ + 1]) : -1;
          if (h < 0 || l < 0) return error_at(el, ec, "\\x needs two hex digits");
          advance();
          advance();
          out += static_cast<char>(h * 16 + l);
          break;
        }
        default: return error_at(el, ec - 1, strfmt("unknown escape '\\%s'", printable(e).c_str()));
      }
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
};

// ---- numbers -------------------------------------------------------------------------------

// A decimal integer "-?[0-9]+" as sign + magnitude; false on bad form or > UINT64_MAX.
bool parse_integer(const std::string& s, bool& neg, uint64_t& mag) {
  size_t i = 0;
  neg = false;
  if (i < s.size() && s[i] == '-') {
    neg = true;
    ++i;
  }
  if (i >= s.size()) return false;
  mag = 0;
  for (; i < s.size(); ++i) {
    if (!is_digit(s[i])) return false;
    const uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (mag > (UINT64_MAX - d) / 10) return false;
    mag = mag * 10 + d;
  }
  return true;
}

bool parse_hex_bits(const std::string& s, uint64_t& bits, int& digits) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return false;
  bits = 0;
  digits = 0;
  for (size_t i = 2; i < s.size(); ++i) {
    const char c = s[i];
    int v = (c >= '0' && c <= '9')   ? c - '0'
            : (c >= 'a' && c <= 'f') ? c - 'a' + 10
            : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                     : -1;
    if (v < 0 || digits >= 16) return false;
    bits = (bits << 4) | static_cast<uint64_t>(v);
    ++digits;
  }
  return digits > 0;
}

// "-?[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?", "nan", "inf", "-inf".
bool parse_decimal(const std::string& s, double& out) {
  if (s == "nan") {
    out = std::nan("");
    return true;
  }
  if (s == "inf" || s == "-inf") {
    out = s[0] == '-' ? -HUGE_VAL : HUGE_VAL;
    return true;
  }
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  const size_t int_start = i;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == int_start) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const size_t exp_start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    if (i == exp_start) return false;
  }
  if (i != s.size()) return false;
  out = std::strtod(s.c_str(), nullptr);
  return true;
}

// ---- parser --------------------------------------------------------------------------------

class Parser {
 public:
  explicit Parser(std::vector<Token> toks) : t_(std::move(toks)) {}

  Expected<Graph> run() {
    PLUMB_RETURN_IF_ERROR(expect_ident("plumb"));
    {
      bool neg;
      uint64_t v;
      if (cur().kind != Tok::Number || !parse_integer(cur().text, neg, v) || neg || v > UINT32_MAX)
        return err("expected the core version number after 'plumb'");
      g_.core_version = static_cast<uint32_t>(v);
      next();
    }
    if (is_ident("producer")) {
      next();
      if (cur().kind != Tok::String) return err("expected a string after 'producer'");
      g_.producer = cur().text;
      next();
    }
    PLUMB_RETURN_IF_ERROR(expect_ident("func"));
    if (cur().kind != Tok::Global || cur().text != "main") return err("expected '@main'");
    next();
    scopes_.emplace_back();
    PLUMB_RETURN_IF_ERROR(expect_punct("("));
    if (!is_punct(")")) {
      for (;;) {
        const Token name = cur();
        if (name.kind != Tok::Value) return err("expected a parameter name");
        next();
        PLUMB_RETURN_IF_ERROR(expect_punct(":"));
        Type ty;
        PLUMB_RETURN_IF_ERROR(parse_type(ty, 0));
        PLUMB_ASSIGN_OR_RETURN(ValueId v, define(name, std::move(ty)));
        g_.body.params.push_back(v);
        std::string input_name = g_.values[v].onnx_name;
        if (is_ident("as")) {
          next();
          if (cur().kind != Tok::String) return err("expected a string after 'as'");
          input_name = cur().text;
          next();
        }
        g_.input_names.push_back(std::move(input_name));
        if (!is_punct(",")) break;
        next();
      }
    }
    PLUMB_RETURN_IF_ERROR(expect_punct(")"));
    if (cur().kind != Tok::Arrow) return err("expected '->'");
    next();
    PLUMB_RETURN_IF_ERROR(expect_punct("("));
    std::vector<Type> result_types;
    std::vector<std::pair<bool, std::string>> result_names;
    std::vector<Token> result_toks;
    if (!is_punct(")")) {
      for (;;) {
        result_toks.push_back(cur());
        Type ty;
        PLUMB_RETURN_IF_ERROR(parse_type(ty, 0));
        result_types.push_back(std::move(ty));
        if (is_ident("as")) {
          next();
          if (cur().kind != Tok::String) return err("expected a string after 'as'");
          result_names.emplace_back(true, cur().text);
          next();
        } else {
          result_names.emplace_back(false, std::string());
        }
        if (!is_punct(",")) break;
        next();
      }
    }
    PLUMB_RETURN_IF_ERROR(expect_punct(")"));
    PLUMB_RETURN_IF_ERROR(expect_punct("{"));
    PLUMB_RETURN_IF_ERROR(parse_body(g_.body, "return", 0));
    PLUMB_RETURN_IF_ERROR(expect_punct("}"));
    if (cur().kind != Tok::End) return err("expected the end of the text after the function");
    if (g_.body.results.size() != result_types.size())
      return error_at(return_tok_.line, return_tok_.col,
                      strfmt("return has %zu values, the signature declares %zu", g_.body.results.size(),
                             result_types.size()));
    for (size_t i = 0; i < result_types.size(); ++i) {
      const Type& actual = g_.values[g_.body.results[i]].type;
      if (actual != result_types[i])
        return error_at(result_toks[i].line, result_toks[i].col,
                        strfmt("result %zu is declared %s but the returned value is %s", i,
                               print_type(result_types[i]).c_str(), print_type(actual).c_str()));
      g_.output_names.push_back(result_names[i].first ? result_names[i].second
                                                      : g_.values[g_.body.results[i]].onnx_name);
    }
    return std::move(g_);
  }

 private:
  const Token& cur() const { return t_[i_]; }
  const Token& peek(size_t k) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  void next() {
    if (i_ + 1 < t_.size()) ++i_;
  }
  bool is_punct(const char* p) const { return cur().kind == Tok::Punct && cur().text == p; }
  bool is_ident(const char* s) const { return cur().kind == Tok::Ident && cur().text == s; }
  Status err(const std::string& msg) const { return error_at(cur().line, cur().col, msg); }
  Status err_at(const Token& t, const std::string& msg) const { return error_at(t.line, t.col, msg); }
  std::string describe() const {
    switch (cur().kind) {
      case Tok::End: return "the end of the text";
      case Tok::String: return quote(cur().text);
      case Tok::Value: return "a value name";
      default: return "'" + cur().text + "'";
    }
  }
  Status expect_punct(const char* p) {
    if (!is_punct(p)) return err(strfmt("expected '%s', found %s", p, describe().c_str()));
    next();
    return Status::ok();
  }
  Status expect_ident(const char* s) {
    if (!is_ident(s)) return err(strfmt("expected '%s', found %s", s, describe().c_str()));
    next();
    return Status::ok();
  }

  std::string display(const Token& t) const {
    if (t.key[0] == '#') return "%" + t.key.substr(1);
    return "%" + ident_or_quote(t.onnx) + t.suffix;
  }

  const ValueId* lookup(const std::string& key) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(key);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }

  Status check_new(const Token& name) const {
    if (lookup(name.key)) return err_at(name, "value " + display(name) + " is already defined");
    return Status::ok();
  }

  Expected<ValueId> define(const Token& name, Type ty) {
    PLUMB_RETURN_IF_ERROR(check_new(name));
    const ValueId v = g_.add_value(std::move(ty), name.onnx);
    scopes_.back().emplace(name.key, v);
    return v;
  }

  Status parse_value_refs(std::vector<ValueId>& out) {
    for (;;) {
      if (cur().kind != Tok::Value) return err("expected a value");
      const ValueId* v = lookup(cur().key);
      if (!v) return err("value " + display(cur()) + " is not defined here");
      out.push_back(*v);
      next();
      if (!is_punct(",")) return Status::ok();
      next();
    }
  }

  // Nodes up to the terminator (`return` or `yield`) and its values.
  Status parse_body(Region& r, const char* terminator, int depth) {
    for (;;) {
      if (is_ident(terminator)) break;
      if (cur().kind == Tok::End || is_punct("}"))
        return err(strfmt("expected '%s' to end the region", terminator));
      Node n;
      PLUMB_RETURN_IF_ERROR(parse_node(n, depth));
      r.nodes.push_back(std::move(n));
    }
    return_tok_ = cur();
    next();
    if (cur().kind == Tok::Value) PLUMB_RETURN_IF_ERROR(parse_value_refs(r.results));
    return Status::ok();
  }

  Status parse_node(Node& n, int depth) {
    std::vector<Token> result_names;
    if (cur().kind == Tok::Value) {
      for (;;) {
        if (cur().kind != Tok::Value) return err("expected a result name");
        PLUMB_RETURN_IF_ERROR(check_new(cur()));
        for (const Token& t : result_names)
          if (t.key == cur().key) return err("value " + display(cur()) + " is already defined");
        result_names.push_back(cur());
        next();
        if (!is_punct(",")) break;
        next();
      }
      PLUMB_RETURN_IF_ERROR(expect_punct("="));
    }
    // Result values get their ids before the regions' values (the printer's order).
    for (const Token& t : result_names) n.outputs.push_back(g_.add_value(Type(), t.onnx));
    if (cur().kind != Tok::Ident) return err("expected an op mnemonic, found " + describe());
    const Token op_tok = cur();
    auto op = op_from_name(cur().text);
    if (!op) return err("unknown op '" + cur().text + "'");
    n.op = *op;
    next();
    if (cur().kind == Tok::Value) PLUMB_RETURN_IF_ERROR(parse_value_refs(n.inputs));
    if (is_punct("{") && peek(1).kind == Tok::Ident && peek(2).kind == Tok::Punct && peek(2).text == "=")
      PLUMB_RETURN_IF_ERROR(parse_attrs(n));
    if (is_punct("{")) {
      if (depth + 1 > kMaxRegionDepth) return err("regions nested too deeply");
      next();
      while (!is_punct("}")) {
        if (cur().kind != Tok::Ident) return err("expected a region label, found " + describe());
        const std::string expected = expected_label(n.op, n.regions.size());
        if (!expected.empty() && cur().text != expected)
          return err(strfmt("expected region '%s' of %s, found '%s'", expected.c_str(),
                            std::string(op_name(n.op)).c_str(), cur().text.c_str()));
        next();
        Region r;
        scopes_.emplace_back();
        PLUMB_RETURN_IF_ERROR(expect_punct("("));
        if (!is_punct(")")) {
          for (;;) {
            const Token name = cur();
            if (name.kind != Tok::Value) return err("expected a region parameter name");
            next();
            PLUMB_RETURN_IF_ERROR(expect_punct(":"));
            Type ty;
            PLUMB_RETURN_IF_ERROR(parse_type(ty, 0));
            PLUMB_ASSIGN_OR_RETURN(ValueId v, define(name, std::move(ty)));
            r.params.push_back(v);
            if (!is_punct(",")) break;
            next();
          }
        }
        PLUMB_RETURN_IF_ERROR(expect_punct(")"));
        PLUMB_RETURN_IF_ERROR(expect_punct("{"));
        PLUMB_RETURN_IF_ERROR(parse_body(r, "yield", depth + 1));
        PLUMB_RETURN_IF_ERROR(expect_punct("}"));
        scopes_.pop_back();
        n.regions.push_back(std::move(r));
      }
      next();
    }
    std::vector<Type> types;
    if (is_punct(":")) {
      next();
      for (;;) {
        Type ty;
        PLUMB_RETURN_IF_ERROR(parse_type(ty, 0));
        types.push_back(std::move(ty));
        if (!is_punct(",")) break;
        next();
      }
    }
    if (types.size() != result_names.size())
      return err_at(op_tok, strfmt("%zu results but %zu result types", result_names.size(), types.size()));
    if (is_ident("loc")) PLUMB_RETURN_IF_ERROR(parse_loc(n.prov));
    for (size_t i = 0; i < result_names.size(); ++i) {
      g_.values[n.outputs[i]].type = std::move(types[i]);
      scopes_.back().emplace(result_names[i].key, n.outputs[i]);
    }
    return Status::ok();
  }

  static std::string expected_label(Op op, size_t i) {
    if (op == Op::If && i < 2) return i == 0 ? "then" : "else";
    if (op == Op::While && i < 2) return i == 0 ? "cond" : "body";
    return {};
  }

  Status parse_loc(Provenance& p) {
    next();
    PLUMB_RETURN_IF_ERROR(expect_punct("("));
    if (cur().kind != Tok::String) return err("expected the ONNX node name (a string)");
    p.node_name = cur().text;
    next();
    PLUMB_RETURN_IF_ERROR(expect_punct(","));
    if (cur().kind != Tok::Ident && cur().kind != Tok::String) return err("expected the ONNX op type");
    p.op_type = cur().text;
    next();
    PLUMB_RETURN_IF_ERROR(expect_punct(","));
    bool neg;
    uint64_t mag;
    if (cur().kind != Tok::Number || !parse_integer(cur().text, neg, mag) || mag > INT64_MAX)
      return err("expected the opset (an integer)");
    p.opset = neg ? -static_cast<int64_t>(mag) : static_cast<int64_t>(mag);
    next();
    if (is_punct(",")) {
      next();
      if (cur().kind != Tok::String) return err("expected the step name (a string)");
      p.step = cur().text;
      next();
    }
    return expect_punct(")");
  }

  Status parse_int(int64_t& out) {
    bool neg;
    uint64_t mag;
    if (cur().kind != Tok::Number || !parse_integer(cur().text, neg, mag) ||
        mag > (neg ? uint64_t{1} << 63 : uint64_t{INT64_MAX}))
      return err("expected an integer (int64), found " + describe());
    out = neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
    next();
    return Status::ok();
  }

  Status parse_f64(double& out) {
    const std::string& s = cur().text;
    uint64_t bits;
    int digits;
    if ((cur().kind == Tok::Number || cur().kind == Tok::Ident) && parse_decimal(s, out)) {
      next();
      return Status::ok();
    }
    if (cur().kind == Tok::Number && parse_hex_bits(s, bits, digits)) {
      std::memcpy(&out, &bits, 8);
      next();
      return Status::ok();
    }
    return err("expected a number, found " + describe());
  }

  Status parse_attrs(Node& n) {
    next();  // '{'
    for (;;) {
      if (cur().kind != Tok::Ident) return err("expected an attribute name");
      const std::string name = cur().text;
      const AttrSpec* spec = find_attr_spec(n.op, name);
      if (!spec)
        return err(strfmt("%s has no attribute '%s'", std::string(op_name(n.op)).c_str(), name.c_str()));
      if (n.find_attr(name)) return err("attribute '" + name + "' given twice");
      next();
      PLUMB_RETURN_IF_ERROR(expect_punct("="));
      Attr a;
      a.name = name;
      PLUMB_RETURN_IF_ERROR(parse_attr_value(*spec, a.value));
      n.attrs.push_back(std::move(a));
      if (!is_punct(",")) break;
      next();
    }
    return expect_punct("}");
  }

  Status parse_attr_value(const AttrSpec& spec, AttrValue& out) {
    switch (spec.kind) {
      case AttrKind::Int: {
        int64_t v;
        PLUMB_RETURN_IF_ERROR(parse_int(v));
        out = v;
        return Status::ok();
      }
      case AttrKind::Float: {
        double v;
        PLUMB_RETURN_IF_ERROR(parse_f64(v));
        out = v;
        return Status::ok();
      }
      case AttrKind::Bool:
        if (!is_ident("true") && !is_ident("false")) return err("expected true or false");
        out = cur().text == "true";
        next();
        return Status::ok();
      case AttrKind::Ints: {
        std::vector<int64_t> v;
        PLUMB_RETURN_IF_ERROR(expect_punct("["));
        while (!is_punct("]")) {
          if (!v.empty()) PLUMB_RETURN_IF_ERROR(expect_punct(","));
          int64_t x;
          PLUMB_RETURN_IF_ERROR(parse_int(x));
          v.push_back(x);
        }
        next();
        out = std::move(v);
        return Status::ok();
      }
      case AttrKind::Floats: {
        std::vector<double> v;
        PLUMB_RETURN_IF_ERROR(expect_punct("["));
        while (!is_punct("]")) {
          if (!v.empty()) PLUMB_RETURN_IF_ERROR(expect_punct(","));
          double x;
          PLUMB_RETURN_IF_ERROR(parse_f64(x));
          v.push_back(x);
        }
        next();
        out = std::move(v);
        return Status::ok();
      }
      case AttrKind::Str:
        if (cur().kind != Tok::String) return err("expected a string");
        out = cur().text;
        next();
        return Status::ok();
      case AttrKind::DType: {
        auto dt = cur().kind == Tok::Ident ? dtype_from_name(cur().text) : std::nullopt;
        if (!dt) return err("expected a dtype, found " + describe());
        out = *dt;
        next();
        return Status::ok();
      }
      case AttrKind::Enum: {
        auto code =
            cur().kind == Tok::Ident ? enum_value_from_name(spec.enum_type, cur().text) : std::nullopt;
        if (!code)
          return err(strfmt("expected a %s value, found %s", std::string(spec.enum_type).c_str(),
                            describe().c_str()));
        out = EnumValue{*code};
        next();
        return Status::ok();
      }
      case AttrKind::Const: {
        ConstantData c;
        PLUMB_RETURN_IF_ERROR(parse_dense(c));
        if (g_.constants.size() >= UINT32_MAX) return err("too many constants");
        g_.constants.push_back(std::move(c));
        out = ConstRef{static_cast<uint32_t>(g_.constants.size() - 1)};
        return Status::ok();
      }
      case AttrKind::Type: {
        Type t;
        PLUMB_RETURN_IF_ERROR(parse_type(t, 0));
        out = TypeAttr{std::move(t)};
        return Status::ok();
      }
    }
    return err("unknown attribute kind");
  }

  Status parse_type(Type& out, int depth) {
    if (depth > kMaxTypeDepth) return err("type nested too deeply");
    if (cur().kind != Tok::Ident) return err("expected a type, found " + describe());
    const std::string word = cur().text;
    if (word == "seq" || word == "opt" || word == "map") {
      next();
      PLUMB_RETURN_IF_ERROR(expect_punct("<"));
      DType key = DType::F32;
      if (word == "map") {
        auto dt = cur().kind == Tok::Ident ? dtype_from_name(cur().text) : std::nullopt;
        if (!dt) return err("expected the map key dtype");
        key = *dt;
        next();
        PLUMB_RETURN_IF_ERROR(expect_punct(","));
      }
      Type elem;
      PLUMB_RETURN_IF_ERROR(parse_type(elem, depth + 1));
      PLUMB_RETURN_IF_ERROR(expect_punct(">"));
      out = word == "seq"   ? Type::sequence(std::move(elem))
            : word == "opt" ? Type::optional(std::move(elem))
                            : Type::map(key, std::move(elem));
      return Status::ok();
    }
    auto dt = dtype_from_name(word);
    if (!dt) return err("unknown dtype '" + word + "'");
    next();
    PLUMB_RETURN_IF_ERROR(expect_punct("["));
    if (is_punct("*")) {
      next();
      PLUMB_RETURN_IF_ERROR(expect_punct("]"));
      out = Type::unranked_tensor(*dt);
      return Status::ok();
    }
    Shape shape;
    while (!is_punct("]")) {
      if (!shape.empty()) PLUMB_RETURN_IF_ERROR(expect_punct(","));
      if (static_cast<int64_t>(shape.size()) >= kMaxRank)
        return err(strfmt("rank above %lld", (long long)kMaxRank));
      if (is_punct("?")) {
        shape.push_back(Dim::symbolic());
        next();
      } else if (cur().kind == Tok::Ident || cur().kind == Tok::String) {
        if (cur().text.empty()) return err("a symbolic dim name may not be empty");
        shape.push_back(Dim::symbolic(cur().text));
        next();
      } else {
        int64_t d;
        PLUMB_RETURN_IF_ERROR(parse_int(d));
        if (d < 0) return err_at(t_[i_ - 1], "a dim must be >= 0, '?' or a name");
        shape.emplace_back(d);
      }
    }
    next();
    out = Type::tensor(*dt, std::move(shape));
    return Status::ok();
  }

  Status parse_dense(ConstantData& out) {
    PLUMB_RETURN_IF_ERROR(expect_ident("dense"));
    PLUMB_RETURN_IF_ERROR(expect_punct("<"));
    const Token type_tok = cur();
    Type ty;
    PLUMB_RETURN_IF_ERROR(parse_type(ty, 0));
    PLUMB_RETURN_IF_ERROR(expect_punct(">"));
    if (!ty.is_tensor() || !ty.ranked || !shape_is_static(ty.shape))
      return err_at(type_tok, "a dense constant needs a static tensor type, not " + print_type(ty));
    const int64_t n = shape_num_elements(ty.shape);
    if (n < 0 || n > kMaxElements)
      return err_at(type_tok, "constant " + print_type(ty) + " has too many elements");
    PLUMB_RETURN_IF_ERROR(expect_punct("["));
    if (is_punct("...")) return err("an elided constant cannot be parsed (print it in full)");
    const DType dt = ty.dtype;
    std::vector<uint64_t> elems;
    std::vector<std::string> strs;
    int64_t count = 0;
    while (!is_punct("]")) {
      if (count) PLUMB_RETURN_IF_ERROR(expect_punct(","));
      if (count >= n)
        return err(strfmt("more than %lld elements for %s", (long long)n, print_type(ty).c_str()));
      if (dt == DType::String) {
        if (cur().kind != Tok::String) return err("expected a string element");
        strs.push_back(cur().text);
        next();
      } else {
        uint64_t b;
        PLUMB_RETURN_IF_ERROR(parse_elem(dt, b));
        elems.push_back(b);
      }
      ++count;
    }
    if (count != n)
      return err(strfmt("%lld elements for %s, which holds %lld", (long long)count, print_type(ty).c_str(),
                        (long long)n));
    next();
    std::vector<uint8_t> bytes;
    if (dt == DType::String) {
      for (const std::string& s : strs) {
        if (s.size() > UINT32_MAX) return err("string element too long");
        const uint32_t len = static_cast<uint32_t>(s.size());
        for (int k = 0; k < 4; ++k) bytes.push_back(static_cast<uint8_t>(len >> (8 * k)));
        bytes.insert(bytes.end(), s.begin(), s.end());
      }
    } else {
      const int bits = dtype_bits(dt);
      bytes.assign(dtype_storage_bytes(dt, static_cast<uint64_t>(n)), 0);
      for (size_t i = 0; i < elems.size(); ++i) {
        if (bits >= 8) {
          for (int k = 0; k < bits / 8; ++k)
            bytes[i * (bits / 8) + k] = static_cast<uint8_t>(elems[i] >> (8 * k));
        } else {
          const size_t per = 8 / bits;
          bytes[i / per] |= static_cast<uint8_t>((elems[i] & ((1u << bits) - 1)) << ((i % per) * bits));
        }
      }
    }
    out = ConstantData::owned(std::move(ty), std::move(bytes));
    return Status::ok();
  }

  // One element of a non-string dtype as its bit pattern.
  Status parse_elem(DType dt, uint64_t& bits) {
    const int width = dtype_bits(dt);
    const std::string s = cur().text;
    switch (dtype_category(dt)) {
      case DTypeCategory::Bool:
        if (!is_ident("true") && !is_ident("false")) return err("expected true or false");
        bits = s == "true";
        break;
      case DTypeCategory::Signed:
      case DTypeCategory::Unsigned: {
        bool neg;
        uint64_t mag;
        if (cur().kind != Tok::Number || !parse_integer(s, neg, mag))
          return err("expected an integer, found " + describe());
        const bool is_signed = dtype_category(dt) == DTypeCategory::Signed;
        const uint64_t max_pos = is_signed ? (uint64_t{1} << (width - 1)) - 1
                                           : (width == 64 ? UINT64_MAX : (uint64_t{1} << width) - 1);
        const uint64_t max_neg = is_signed ? uint64_t{1} << (width - 1) : 0;
        if ((neg && mag > max_neg) || (!neg && mag > max_pos))
          return err(s + " is out of range for " + std::string(dtype_name(dt)));
        bits = neg ? 0 - mag : mag;
        if (width < 64) bits &= (uint64_t{1} << width) - 1;
        break;
      }
      case DTypeCategory::Float: {
        int digits;
        double v;
        if (cur().kind == Tok::Number && parse_hex_bits(s, bits, digits)) {
          if (width < 64 && bits >> width)
            return err(s + " has more than " + std::to_string(width) + " bits");
          break;
        }
        if ((cur().kind != Tok::Number && cur().kind != Tok::Ident) || !parse_decimal(s, v))
          return err("expected a number, found " + describe());
        auto b = double_to_float_bits(dt, v);
        if (!b) return err(s + " is not representable in " + std::string(dtype_name(dt)));
        bits = *b;
        break;
      }
      case DTypeCategory::String: return err("internal: string element");
    }
    next();
    return Status::ok();
  }

  std::vector<Token> t_;
  size_t i_ = 0;
  Graph g_;
  std::vector<std::unordered_map<std::string, ValueId>> scopes_;
  Token return_tok_;
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

Expected<Graph> parse_graph(std::string_view text) {
  std::vector<Token> toks;
  PLUMB_RETURN_IF_ERROR(Lexer(text).run(toks));
  return Parser(std::move(toks)).run();
}

}  // namespace plumb::ir
