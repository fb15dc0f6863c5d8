#include "ir/status.h"

#include <cstdarg>

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

std::string strfmt(const char* fmt, ...) {
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
