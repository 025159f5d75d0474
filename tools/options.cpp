#include "options.hpp"

#include <cmath>
#include <cstdio>
#include <exception>

#include "histtune/tuner/inputs.hpp"

namespace histtune::cli {
namespace {


const char* const kExitCodes =
    "Exit codes:\n"
    "  0  success\n"
    "  1  a configuration failed verification, or nothing to work on (nothing tuned on this\n"
    "     GPU, a --problem or --device not in the database)\n"
    "  2  bad command line or input: a malformed option or --problem, an unreadable or\n"
    "     malformed import file (nothing is imported), an output file that cannot be written\n"
    "  3  no CUDA device or driver, or no such --gpu index\n"
    "  4  the database could not be opened, read or written: missing (where one must exist),\n"
    "     locked, corrupt, foreign or unreadable; it is left untouched\n"
    "  5  tune --gpu all: a GPU failed (its error is on stderr); the other GPUs tuned the rest\n"
    "     of the plan (run the same command again to tune what it left)";

}  // namespace

std::string check_gpu(const std::string& s, bool all) {
  if (s == "auto" || (all && s == "all") ||
      (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos))
    return {};
  if (s == "all") return "'all' is for `histtune tune` only: give 'auto' or a device index here";
  return std::string("must be 'auto' or a device index (0, 1, ...)") + (all ? ", or 'all'" : "") +
         ", not '" + s + "'";
}

std::string non_negative(const std::string& s) {
  try {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size() && v >= 0 && std::isfinite(v)) return {};
  } catch (const std::exception&) {
  }
  return "must be a number >= 0, not '" + s + "'";
}

void add_common(CLI::App* app, Common& c, unsigned uses, const Help& help) {
  const bool all = (uses & kGpuAll) != 0;
  if (uses & kGpu)
    app->add_option("--gpu", c.gpu,
                    all ? "the GPU: 'auto' (device 0), a device index, or 'all': every GPU of\n"
                          "the machine at once, the boards of one model sharing the plan\n"
                          "(README.md, \"Every GPU of a machine\")"
                        : "the GPU: 'auto' (device 0) or a device index")
        ->type_name(all ? "auto|N|all" : "auto|N")
        ->capture_default_str()
        ->check([all](const std::string& s) { return check_gpu(s, all); }, "");
  if (uses & kDb)
    app->add_option("--db", c.db_path,
                    "the tuning database (default: $HISTTUNE_DB, else\n"
                    "$XDG_DATA_HOME/histtune/histtune.db, else ~/.local/share/histtune/histtune.db)")
        ->type_name("FILE");
  if (uses & kJson) app->add_flag("--json", c.json, help.json);
  if ((uses & kQuiet) && help.quiet) app->add_flag("-q,--quiet", c.quiet, help.quiet);
  if ((uses & kVerbose) && help.verbose) app->add_flag("-v,--verbose", c.verbose, help.verbose);
}

CLI::Option* add_json_file(CLI::App* app, std::string& file) {
  return app
      ->add_option("--json", file,
                   "also write the results as JSON to FILE; without FILE: the JSON\n"
                   "on stdout, the table on stderr")
      ->expected(0, 1)
      ->type_name("[FILE]");
}

void add_distributions(CLI::App* app, std::vector<std::string>& names, const std::string& help) {
  std::vector<std::string> valid;
  for (const auto d : tuner::benchmark_distributions()) valid.push_back(tuner::to_string(d));
  app->add_option("--distributions", names, help)
      ->type_name("LIST")
      ->delimiter(',')
      ->check(CLI::IsMember(valid));
}

const char* const kProblemFormat =
    "A problem is TYPE:BINNING:BINS:N[:LOWER:UPPER]: TYPE u8, u16, u32, i32, f32, i8, i16,\n"
    "f16, bf16, i64, u64 or f64 (i64 and u64 bounds written as integers are exact); BINNING\n"
    "direct (the sample value is its bin), even (BINS equal bins over [LOWER, UPPER), by\n"
    "default [0, BINS)) or range (BINS + 1 quadratically spaced levels from LOWER to UPPER, by\n"
    "default [0, BINS] for f32, [0, 4 x BINS] capped to the type for integers); N may be\n"
    "written 2^K or AxB. Example: u8:direct:256:2^24.\n"
    "A multi-channel problem (ROWS rows of CHANNELS interleaved samples, the first ACTIVE\n"
    "counted) is mc:ACTIVE/CHANNELS:TYPE:BINNING:BINS:ROWS[:LOWER:UPPER]. Example:\n"
    "mc:3/4:u8:direct:256:7680x4320 (an RGBA frame, colour channels only).\n"
    "One histogram per row: bat:ROWS:TYPE:BINNING:BINS:N[:LOWER:UPPER] (ROWS rows of N\n"
    "samples) or seg:SEGMENTS:TYPE:BINNING:BINS:N[:LOWER:UPPER] (N samples cut into SEGMENTS\n"
    "segments at random). Example: bat:4096:u8:direct:256:65536.\n"
    "A joint histogram (N tuples of DIMS values, 1 to 4, even bins per dimension) is\n"
    "j:DIMS:TYPE:even:BINS:N[:LOWER:UPPER], BINS per dimension (64x64) or their product.\n"
    "Example: j:2:u8:even:256x256:2^26.";

std::string help_footer(const std::string& details) { return details + "\n\n" + kExitCodes; }

std::string percent_text(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, "%.0f%%", fraction * 100);
  return text;
}

}  // namespace histtune::cli
