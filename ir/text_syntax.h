// The text form's lexical syntax (spec/text_form.md), shared by its printer (text_print.cpp) and
// parser (text_parse.cpp): identifiers and quoting, tokens and the lexer, number literals.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/status.h"

namespace plumb::ir::text {

constexpr int kMaxRegionDepth = 64;  // nesting of regions in one text
constexpr int kMaxTypeDepth = 32;    // nesting of seq/opt/map in one type

inline bool is_ident_start(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
inline bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9') || c == '.'; }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident(std::string_view s);
// A string literal with the text form's escapes; an identifier as it is, anything else quoted.
std::string quote(std::string_view s);
std::string ident_or_quote(std::string_view s);

enum class Tok { Ident, Value, Global, String, Number, Punct, Arrow, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;  // Ident/Global/Number: the text; String: the decoded bytes; Punct: the char
  // Value tokens: `key` identifies the name in scopes; `onnx` is the ONNX name it carries.
  std::string key, onnx, suffix;
  int line = 0, col = 0;
};

// "line:col: msg" as an InvalidModel error.
Status error_at(int line, int col, const std::string& msg);
// How an error names a token ("'%x'", "the end of the text", ...).
std::string describe_token(const Token& t);
// The tokens of `text`, ending with a Tok::End.
Status lex(std::string_view text, std::vector<Token>& out);

// ---- numbers ---------------------------------------------------------------------------------
// A decimal integer "-?[0-9]+" as sign + magnitude; false on bad form or > UINT64_MAX.
bool parse_integer(const std::string& s, bool& neg, uint64_t& mag);
// "0x" and hex digits as a bit pattern (at most 16 digits).
bool parse_hex_bits(const std::string& s, uint64_t& bits, int& digits);
// "-?[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?", "nan", "inf", "-inf".
bool parse_decimal(const std::string& s, double& out);
// One dense-constant element `t` of the non-string dtype `dt` as its bit pattern.
Status element_bits(DType dt, const Token& t, uint64_t& bits);

}  // namespace plumb::ir::text
