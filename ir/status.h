// Errors as values for every library in plumb (ir/, runtime/, frontends/, lowering/).
// The library never prints and never exits; tools/ formats a Status as
// `plumb: <file>: <place>: <reason> (<label>)` and picks the exit code.
#pragma once

#include <cstdio>
#include <string>
#include <utility>
#include <variant>

namespace plumb {

// The classes of failure, after TOSA's ERROR_IF / REQUIRE split (STYLE.md 2.8).
enum class ErrorCode {
  kOk = 0,
  kInvalidModel,  // the graph or file breaks a spec constraint (a C-label): the verifier refuses it
  kInvalidInput,  // the user's data does not fit the model (shape, dtype, count)
  kUnsupported,   // valid, but not implemented here (an op, opset, attribute value, backend)
  kRuntimeError,  // data out of contract while running (an R-label, e.g. index out of range)
  kInternal,      // a bug in plumb
};

const char* error_code_name(ErrorCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message, std::string label = {}, std::string place = {})
      : code_(code), message_(std::move(message)), label_(std::move(label)), place_(std::move(place)) {}

  static Status ok() { return Status(); }
  bool is_ok() const { return code_ == ErrorCode::kOk; }
  explicit operator bool() const { return is_ok(); }

  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  const std::string& label() const { return label_; }  // spec label, e.g. "gather.R1"; may be empty
  const std::string& place() const { return place_; }  // e.g. "node #4 gather [from 'G' (Gather-13)]"

  // Returns a copy whose place is `place` when none is set yet (inner places are more precise).
  Status with_place(const std::string& place) const;
  // "<place>: <message> (<label>)" with empty parts left out.
  std::string to_string() const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
  std::string label_;
  std::string place_;
};

// printf-style formatting for messages.
std::string strfmt(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

inline Status invalid_model(std::string label, std::string message) {
  return Status(ErrorCode::kInvalidModel, std::move(message), std::move(label));
}
inline Status invalid_input(std::string message) {
  return Status(ErrorCode::kInvalidInput, std::move(message));
}
inline Status unsupported(std::string message) { return Status(ErrorCode::kUnsupported, std::move(message)); }
inline Status runtime_error(std::string label, std::string message) {
  return Status(ErrorCode::kRuntimeError, std::move(message), std::move(label));
}
inline Status internal_error(std::string message) { return Status(ErrorCode::kInternal, std::move(message)); }

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Expected(Status status) : v_(std::move(status)) {}  // NOLINT: implicit by design
  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Status& status() const {
    static const Status kOkStatus;  // immutable: not mutable global state
    return has_value() ? kOkStatus : std::get<1>(v_);
  }

 private:
  std::variant<T, Status> v_;
};

}  // namespace plumb

#define PLUMB_CONCAT_INNER(a, b) a##b
#define PLUMB_CONCAT(a, b) PLUMB_CONCAT_INNER(a, b)

// Return the Status if it is an error.
#define PLUMB_RETURN_IF_ERROR(expr)                   \
  do {                                                \
    ::plumb::Status plumb_status_ = (expr);           \
    if (!plumb_status_.is_ok()) return plumb_status_; \
  } while (0)

// `PLUMB_ASSIGN_OR_RETURN(auto x, f());` binds the value or returns the Status.
#define PLUMB_ASSIGN_OR_RETURN(lhs, expr) \
  PLUMB_ASSIGN_OR_RETURN_IMPL(PLUMB_CONCAT(plumb_expected_, __LINE__), lhs, expr)
#define PLUMB_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.has_value()) return tmp.status();        \
  lhs = std::move(tmp).value()
