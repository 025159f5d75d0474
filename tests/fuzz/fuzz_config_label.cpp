// libFuzzer target: the configuration labels, the database's configuration key, of every kernel
// family in the registry (KernelFamily::parse: Hist1DConfig::parse, MultiChannelConfig::parse;
// params.hpp). Labels come from imported files and stored databases. Besides crashes and
// sanitizer reports, it fails (abort) when a label parses but label() of the result does not
// parse back to an equal configuration.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "histtune/family.hpp"

namespace {

// One problem of each family (its first of the default plan), in registry order.
const std::vector<histtune::Problem>& problems() {
  static const std::vector<histtune::Problem> all = [] {
    std::vector<histtune::Problem> out;
    for (const histtune::KernelFamily* f : histtune::families())
      out.push_back(f->plan_problems().front());
    return out;
  }();
  return all;
}

void check(const histtune::KernelFamily& f, const histtune::Problem& problem,
           const std::string& text) {
  const std::optional<histtune::ParamValues> c = f.parse(text);
  if (!c) return;
  const std::string label = f.label(*c);
  const std::optional<histtune::ParamValues> back = f.parse(label);
  if (!back || *back != *c) {
    std::fprintf(stderr, "fuzz_config_label: %s label '%s' parses, its label() '%s' %s\n",
                 f.name(), text.c_str(), label.c_str(),
                 back ? "parses to another configuration" : "does not");
    std::abort();
  }
  (void)f.to_json(*c);
  (void)f.request(*c, problem, 90);  // its NVRTC defines
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const auto& all = histtune::families();
  for (std::size_t i = 0; i < all.size(); ++i) check(*all[i], problems()[i], text);
  return 0;
}
