// What every histtune command shares: options, exit codes, device selection, the database,
// progress output.
#pragma once

#include <memory>
#include <string>

#include "histtune/db/database.hpp"
#include "histtune/device.hpp"

namespace histtune::cli {

// Exit codes (documented in README.md and --help).
enum Exit : int {
  kOk = 0,
  kFailure = 1,    // the command ran but something failed (a configuration, a verification)
  kUsage = 2,      // bad command line or bad input
  kNoDevice = 3,   // no CUDA device or driver, or no such device index
  kDatabase = 4,   // the database could not be opened, read or written
};

struct Common {
  std::string gpu = "auto";  // "auto" or an index
  std::string db_path;       // empty: $HISTTUNE_DB, else the default path
  bool quiet = false;
  bool verbose = false;
};

// Resolves --gpu: "auto" is device 0 (the first device); N must exist. Throws histtune::Error.
DeviceInfo select_device(const Common& c);
std::string resolve_db_path(const Common& c);
std::unique_ptr<db::Database> open_db(const Common& c);

// A progress line: a redrawn bar on a terminal, plain lines (at most one per 10%) otherwise.
class ProgressLine {
 public:
  explicit ProgressLine(bool quiet);
  void update(const std::string& what, std::size_t done, std::size_t total, double elapsed_s);
  void finish(const std::string& line);

 private:
  bool quiet_, tty_;
  std::size_t last_decile_ = 0;
};

std::string fmt_ms(double ms);

}  // namespace histtune::cli
