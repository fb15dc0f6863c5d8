#include "ir/status.h"

#include <cstdarg>
#include <cstring>

namespace plumb {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kInvalidModel: return "invalid model";
    case ErrorCode::kInvalidInput: return "invalid input";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kRuntimeError: return "runtime error";
    case ErrorCode::kInternal: return "internal error";
  }
  return "unknown";
}

Status Status::with_place(const std::string& place) const {
  if (is_ok() || !place_.empty()) return *this;
  Status s = *this;
  s.place_ = place;
  return s;
}

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  std::string s;
  if (!place_.empty()) s += place_ + ": ";
  s += message_;
  if (!label_.empty()) s += " (" + label_ + ")";
  return s;
}

#if PLUMB_PRINTF_NO_Z
namespace {

// Newlib as Debian builds it for arm-none-eabi (no --enable-newlib-io-c99-formats) has no 'z'
// length modifier: its printf reads "%zu" as "zu" and the arguments after it shifted. The format
// is rewritten with the modifier of the type size_t is (none for unsigned int, 'l' for unsigned
// long), which reads the same bits.
std::string without_z(const char* fmt) {
  static_assert(sizeof(size_t) == sizeof(unsigned) || sizeof(size_t) == sizeof(unsigned long));
  std::string out;
  for (const char* p = fmt; *p; ++p) {
    out += *p;
    if (*p != '%') continue;
    if (p[1] == '%') {
      out += *++p;
      continue;
    }
    while (p[1] && std::strchr("-+ #0123456789.*", p[1])) out += *++p;  // flags, width, precision
    if (p[1] == 'z') {
      ++p;
      if (sizeof(size_t) != sizeof(unsigned)) out += 'l';
    }
  }
  return out;
}

}  // namespace
#endif

std::string strfmt(const char* fmt, ...) {
#if PLUMB_PRINTF_NO_Z
  const std::string rewritten = without_z(fmt);
  fmt = rewritten.c_str();
#endif
  va_list ap;
  va_start(ap, fmt);
  va_list ap2;
  va_copy(ap2, ap);
  int n = std::vsnprintf(nullptr, 0, fmt, ap);
  va_end(ap);
  std::string out;
  if (n > 0) {
    out.resize(static_cast<size_t>(n) + 1);
    std::vsnprintf(out.data(), out.size(), fmt, ap2);
    out.resize(static_cast<size_t>(n));
  }
  va_end(ap2);
  return out;
}

}  // namespace plumb
