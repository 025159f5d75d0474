// Status codes at the public boundary, exceptions inside. Every message says what failed and
// with what: the call, its arguments, the CUDA/NVRTC/SQLite error text, the NVRTC log.
#pragma once

#include <stdexcept>
#include <string>

namespace histtune {

// The values are part of the C API (histtune.h): append only.
enum class StatusCode {
  ok = 0,
  invalid_argument,  // rejected before anything was launched
  no_device,         // no CUDA device or driver
  cuda_error,        // a CUDA runtime call failed
  compile_error,     // NVRTC rejected a kernel (message carries the log)
  database_error,    // the tuning database could not be read or written
  internal,
};

const char* to_string(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  bool ok() const { return code_ == StatusCode::ok; }
  explicit operator bool() const { return ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::ok;
  std::string message_;
};

class Error : public std::runtime_error {
 public:
  Error(StatusCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  StatusCode code() const { return code_; }

 private:
  StatusCode code_;
};

}  // namespace histtune
