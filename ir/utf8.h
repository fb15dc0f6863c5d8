// Well-formed UTF-8 (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF).
// plumb's strings and names are UTF-8; names from a model are checked when it is read (issue 23).
#pragma once

#include <cstddef>
#include <string>

namespace plumb::ir {

// The length of the well-formed UTF-8 sequence at s[i] (i < s.size()), or 0 when there is none.
inline size_t utf8_length(const std::string& s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range, from the lead byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  const auto c1 = static_cast<unsigned char>(s[i + 1]);
  if (c1 < lo || c1 > hi) return 0;
  for (size_t k = 2; k < len; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return len;
}

inline bool is_valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const size_t len = utf8_length(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

}  // namespace plumb::ir
