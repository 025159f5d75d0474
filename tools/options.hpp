// The options and --help texts several commands share, declared once: --gpu, --db, --json,
// --quiet, --verbose; --json [FILE]; --distributions; the problem format and the exit codes.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "common.hpp"

namespace histtune::cli {

// A number >= 0 (CLI::NonNegativeNumber's message would print the largest double).
std::string non_negative(const std::string& s);

// Which of the shared options a command reads; it offers only those. kGpuAll: --gpu also takes
// 'all' (every GPU of the machine at once; `histtune tune` only).
enum Uses : unsigned { kGpu = 1, kDb = 2, kJson = 4, kQuiet = 8, kVerbose = 16, kGpuAll = 32 };

// What --gpu accepts: "" when `s` is 'auto', a device index, or (with `all`) 'all'; else why not.
std::string check_gpu(const std::string& s, bool all);

// What --json, --quiet and --verbose do for a command (a null quiet or verbose: not offered).
struct Help {
  const char* json = "machine-readable output: one JSON document on stdout";
  const char* quiet = nullptr;
  const char* verbose = nullptr;
};

void add_common(CLI::App* app, Common& c, unsigned uses, const Help& help = {});

// `--json [FILE]` of the commands that print a table: to FILE beside the table, or without FILE
// on stdout with the table on stderr.
CLI::Option* add_json_file(CLI::App* app, std::string& file);

// --distributions LIST of tune and stability: the names parse_distributions reads.
void add_distributions(CLI::App* app, std::vector<std::string>& names, const std::string& help);

// The format of --problem, for --help.
extern const char* const kProblemFormat;

// A --help footer: `details`, then the exit codes.
std::string help_footer(const std::string& details);

// "2%": a tolerance for --help.
std::string percent_text(double fraction);

}  // namespace histtune::cli
