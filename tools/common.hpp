// What every histtune command shares: options, exit codes, device selection, the database,
// progress output.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "histtune/db/database.hpp"
#include "histtune/device.hpp"
#include "histtune/problem.hpp"
#include "histtune/tuner/inputs.hpp"

namespace histtune::cli {

// Exit codes (documented in README.md, docs/cli.md and --help).
enum Exit : int {
  kOk = 0,
  kFailure = 1,    // the command ran but something failed (a configuration, a verification), or
                   // there was nothing to work on (nothing tuned, a --problem not stored)
  kUsage = 2,      // bad command line or bad input (a malformed --problem, an import file)
  kNoDevice = 3,   // no CUDA device or driver, or no such device index
  kDatabase = 4,   // the database could not be opened, read or written (left untouched)
  kGpuFailed = 5,  // --gpu all: a GPU failed (said on stderr); the others finished their share
};

struct Common {
  std::string gpu = "auto";  // "auto" or an index; "all" (every GPU) where kGpuAll offers it
  std::string db_path;       // empty: $HISTTUNE_DB, else the default path
  bool quiet = false;
  bool verbose = false;
  bool json = false;  // one JSON document on stdout; progress and notes go to stderr
};

// Resolves --gpu: "auto" is device 0 (the first device); N must exist, and becomes the calling
// thread's current device (what the tuner's allocations and launches use). Throws histtune::Error
// (for "all" too: a command that takes it reads every device itself).
DeviceInfo select_device(const Common& c);
// Makes d the calling thread's current CUDA device. Throws histtune::Error.
void make_current(const DeviceInfo& d);
std::string resolve_db_path(const Common& c);
// Opens the database for writing, creating it on first use unless `must_exist` (then a missing
// file is an error naming the path).
std::unique_ptr<db::Database> open_db(const Common& c, bool must_exist = false);
// Opens an existing database without ever writing to it (commands that only read). A missing
// file is an error naming the path, not a new empty database.
std::unique_ptr<db::Database> open_db_read_only(const Common& c);

// "TYPE:BINNING:BINS:N[:LOWER:UPPER]", e.g. "u8:direct:256:2^24" or "f32:even:1024:2^20:0:100";
// a multi-channel problem is "mc:ACTIVE/CHANNELS:TYPE:BINNING:BINS:ROWS[:LOWER:UPPER]", e.g.
// "mc:3/4:u8:direct:256:7680x4320" (RGBA rows, the first 3 channels counted). N may be written
// 2^K or AxB. Throws Error(invalid_argument) naming the bad field.
Problem parse_problem(const std::string& spec);
// The problem a stored key names; even binning gets the bounds [0, bins), which the key does
// not keep.
Problem problem_of(const db::ProblemRow& key);
// "u8:direct:256:2^28", "mc:3/4:u8:direct:256:33177600": the --problem form of a stored key (n
// as 2^K where it is a power of two).
std::string problem_spec(const db::ProblemRow& key);
// "u8 direct bins=256 n=2^28" (" channels=3/4" for multi-channel keys): the key for people.
std::string problem_name(const db::ProblemRow& key);

// --distributions of tune and stability: the names given (uniform, skewed, constant, runs), in
// their order, repeats dropped; none: the tuner's default four. Throws Error(invalid_argument)
// naming a name that is not one of them.
std::vector<tuner::Distribution> parse_distributions(const std::vector<std::string>& names);
// "uniform,skewed,constant,runs"; `separator` between the names.
std::string distribution_list(const std::vector<tuner::Distribution>& ds,
                              const std::string& separator = ",");

// The items of `xs` as `text` writes each, separated by ", ": "a, b, c", "" for none. An empty
// item still gets its separator (a check of the joined text's emptiness would drop it).
template <class Range, class Text>
std::string join(const Range& xs, Text text) {
  std::string s;
  bool first = true;
  for (const auto& x : xs) {
    if (!first) s += ", ";
    s += text(x);
    first = false;
  }
  return s;
}
// The strings of `xs`, separated by ", ".
template <class Range>
std::string join(const Range& xs) {
  return join(xs, [](const auto& x) { return std::string(x); });
}

// Where human-readable progress and notes go: stdout, or stderr when stdout carries --json.
std::FILE* text_stream(const Common& c);

// A progress line: a redrawn bar when `out` is a terminal, plain lines (at most one per 10%)
// otherwise. With a `prefix` ("[GPU 1] ", under --gpu all) always plain lines, each starting with
// it: the bars of several GPUs would overwrite each other.
class ProgressLine {
 public:
  explicit ProgressLine(bool quiet, std::FILE* out = stdout, std::string prefix = "");
  void update(const std::string& what, std::size_t done, std::size_t total, double elapsed_s);
  void finish(const std::string& line);

 private:
  bool quiet_;
  std::FILE* out_;
  std::string prefix_;
  bool tty_;
  std::size_t last_decile_ = 0;
};

std::string fmt_ms(double ms);

// printf into a string (lines of tables; at most 1023 characters).
std::string printf_text(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

}  // namespace histtune::cli
