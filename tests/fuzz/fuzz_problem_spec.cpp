// libFuzzer target: the CLI's --problem grammar (tools/common.hpp parse_problem), e.g.
// "u16:even:1000:2^24:0:65536" or "mc:3/4:u8:direct:256:7680x4320". Besides crashes, hangs and
// sanitizer reports, it fails (abort) when
//  - parse_problem throws anything but Error(invalid_argument) naming the spec;
//  - it returns a problem validate() refuses;
//  - the spec printed for the problem's key (problem_spec, what `show` and `compare` print and
//    take back) does not parse, or parses to another key; or problem_of(key) names another key;
//  - the family's built-in default fails its restrictions on an architecture describe_arch
//    lists (the dispatcher would refuse the valid call: tests/runtime/test_every_shape.cpp).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "common.hpp"
#include "histtune/families.hpp"
#include "histtune/problem.hpp"
#include "histtune/status.hpp"

namespace {

using histtune::Error;
using histtune::Problem;
using histtune::StatusCode;

[[noreturn]] void fail(const char* what, const std::string& spec, const std::string& detail) {
  std::fprintf(stderr, "fuzz_problem_spec: %s\nspec: '%s'\n%s\n", what, spec.c_str(),
               detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string spec(reinterpret_cast<const char*>(data), size);
  Problem p;
  try {
    p = histtune::cli::parse_problem(spec);
  } catch (const Error& e) {
    if (e.code() != StatusCode::invalid_argument) fail("not an invalid_argument error", spec, e.what());
    return 0;
  }
  if (const std::string why = histtune::validate(p); !why.empty())
    fail("parse_problem returned a problem validate() refuses", spec, why);
  (void)p.describe();
  const std::string printed = histtune::cli::problem_spec(p.key());
  Problem back;
  try {
    back = histtune::cli::parse_problem(printed);
  } catch (const Error& e) {
    fail("problem_spec of a parsed problem does not parse", spec, printed + ": " + e.what());
  }
  if (!(back.key() == p.key())) fail("problem_spec parses to another key", spec, printed);
  if (!(histtune::cli::problem_of(p.key()).key() == p.key()))
    fail("problem_of names another key", spec, printed);
  const histtune::KernelFamily& f = histtune::family_of(p);
  for (const auto& [major, minor] : {std::pair{7, 5}, std::pair{8, 0}, std::pair{8, 6},
                                     std::pair{9, 0}, std::pair{12, 0}}) {
    histtune::DeviceInfo d = *histtune::describe_arch(major, minor);
    d.memory_bytes = std::int64_t{16} << 30;
    const histtune::ParamValues c = f.fallback(p, d);
    if (const histtune::Restriction r = f.check(c, p, d); !r.holds())
      fail("the built-in default does not run", spec, d.name + ": " + f.label(c) + ": " +
                                                          r.message());
  }
  return 0;
}
