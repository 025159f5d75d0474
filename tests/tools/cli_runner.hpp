// Runs the histtune CLI under test (tests/gpu.hpp cli_path()) as a user would, and hands back its
// exit code and output; scratch folders for the files a test gives it.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gpu.hpp"

namespace histtune::test {

struct CliResult {
  int rc = -1;
  std::string out;  // stdout, or stdout and stderr interleaved for run_cli
  std::string err;  // stderr (run_cli_split only)
};

inline std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

inline CliResult run_shell(const std::string& cmd) {
  CliResult r;
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  char buf[4096];
  std::size_t got = 0;
  while (pipe && (got = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, got);
  const int status = pipe ? ::pclose(pipe) : -1;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// `histtune ARGS` with stderr folded into out.
inline CliResult run_cli(const std::string& args) {
  return run_shell(cli_path() + " " + args + " 2>&1");
}

// `histtune ARGS` with stdout and stderr apart (a --json document must be alone on stdout).
inline CliResult run_cli_split(const std::string& args) {
  const std::string err_path = (std::filesystem::temp_directory_path() /
                                ("histtune_cli_stderr_" + std::to_string(::getpid())))
                                   .string();
  CliResult r = run_shell(cli_path() + " " + args + " 2>" + err_path);
  r.err = read_text(err_path);
  std::filesystem::remove(err_path);
  return r;
}

// A fresh, empty folder under the temp directory, removed when the test ends.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              (name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string operator/(const std::string& file) const { return (path_ / file).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string fixture(const std::string& name) {
  return std::string(HISTTUNE_TEST_FIXTURES) + "/" + name;
}

}  // namespace histtune::test
