// The text form's lexical syntax (text_syntax.h): quoting, the lexer, number literals.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ir/narrow_float.h"
#include "ir/text_syntax.h"

namespace plumb::ir::text {

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

std::string describe_token(const Token& t) {
  switch (t.kind) {
    case Tok::End: return "the end of the text";
    case Tok::String: return quote(t.text);
    case Tok::Value: return "a value name";
    default: return "'" + t.text + "'";
  }
}

// ---- lexer ---------------------------------------------------------------------------------

Status error_at(int line, int col, const std::string& msg) {
  return invalid_model("", strfmt("%d:%d: %s", line, col, msg.c_str()));
}

namespace {

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

}  // namespace

Status lex(std::string_view text, std::vector<Token>& out) { return Lexer(text).run(out); }

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

Status element_bits(DType dt, const Token& t, uint64_t& bits) {
  auto err = [&](const std::string& msg) { return error_at(t.line, t.col, msg); };
  const int width = dtype_bits(dt);
  const std::string& s = t.text;
  switch (dtype_category(dt)) {
    case DTypeCategory::Bool:
      if (t.kind != Tok::Ident || (s != "true" && s != "false")) return err("expected true or false");
      bits = s == "true";
      break;
    case DTypeCategory::Signed:
    case DTypeCategory::Unsigned: {
      bool neg;
      uint64_t mag;
      if (t.kind != Tok::Number || !parse_integer(s, neg, mag))
        return err("expected an integer, found " + describe_token(t));
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
      if (t.kind == Tok::Number && parse_hex_bits(s, bits, digits)) {
        if (width < 64 && bits >> width) return err(s + " has more than " + std::to_string(width) + " bits");
        break;
      }
      if ((t.kind != Tok::Number && t.kind != Tok::Ident) || !parse_decimal(s, v))
        return err("expected a number, found " + describe_token(t));
      auto b = double_to_float_bits(dt, v);
      if (!b) return err(s + " is not representable in " + std::string(dtype_name(dt)));
      bits = *b;
      break;
    }
    case DTypeCategory::String: return err("internal: string element");
  }
  return Status::ok();
}

}  // namespace plumb::ir::text
