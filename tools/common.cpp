#include "common.hpp"

#include <unistd.h>

#include <cstdio>
#include <stdexcept>

#include "histtune/status.hpp"

namespace histtune::cli {

DeviceInfo select_device(const Common& c) {
  if (c.gpu == "auto") {
    device_count();  // throws "no CUDA device" with the reason
    return query_device(0);
  }
  int index = -1;
  try {
    std::size_t used = 0;
    index = std::stoi(c.gpu, &used);
    if (used != c.gpu.size()) index = -1;
  } catch (const std::exception&) {
  }
  if (index < 0)
    throw Error(StatusCode::invalid_argument,
                "--gpu must be 'auto' or a device index (0, 1, ...), not '" + c.gpu + "'");
  return query_device(index);
}

std::string resolve_db_path(const Common& c) {
  return c.db_path.empty() ? db::Database::default_path() : c.db_path;
}

std::unique_ptr<db::Database> open_db(const Common& c) {
  return std::make_unique<db::Database>(resolve_db_path(c));
}

ProgressLine::ProgressLine(bool quiet) : quiet_(quiet), tty_(isatty(STDOUT_FILENO) != 0) {}

void ProgressLine::update(const std::string& what, std::size_t done, std::size_t total,
                          double elapsed_s) {
  if (quiet_ || total == 0) return;
  const double frac = static_cast<double>(done) / static_cast<double>(total);
  const double eta = done ? elapsed_s / frac - elapsed_s : 0;
  if (tty_) {
    const int width = 30, filled = static_cast<int>(frac * width);
    std::printf("\r  [%-*s] %zu/%zu  eta %4.0fs  %-40s", width, std::string(filled, '#').c_str(),
                done, total, eta, what.c_str());
    std::fflush(stdout);
  } else {
    const std::size_t decile = done * 10 / total;
    if (decile != last_decile_ || done == total) {
      last_decile_ = decile;
      std::printf("  %zu/%zu configurations (%.0f%%), %.1fs elapsed, eta %.0fs\n", done, total,
                  frac * 100, elapsed_s, eta);
      std::fflush(stdout);
    }
  }
}

void ProgressLine::finish(const std::string& line) {
  if (quiet_) return;
  if (tty_) std::printf("\r%-100s\r", "");
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

std::string fmt_ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", ms);
  return buf;
}

}  // namespace histtune::cli
