#include "histtune/status.hpp"

namespace histtune {

const char* to_string(StatusCode code) {
  switch (code) {
    case StatusCode::ok: return "ok";
    case StatusCode::invalid_argument: return "invalid argument";
    case StatusCode::no_device: return "no CUDA device";
    case StatusCode::cuda_error: return "CUDA error";
    case StatusCode::compile_error: return "compile error";
    case StatusCode::database_error: return "database error";
    case StatusCode::internal: return "internal error";
  }
  return "unknown";
}

}  // namespace histtune
