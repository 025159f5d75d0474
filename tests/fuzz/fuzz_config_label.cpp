// libFuzzer target: the configuration labels, the database's configuration key, of both kernel
// families (Hist1DConfig::parse, MultiChannelConfig::parse; params.hpp). Labels come from
// imported files and stored databases. Besides crashes and sanitizer reports, it fails (abort)
// when a label parses but label() of the result does not parse back to an equal configuration.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "histtune/hist1d.hpp"
#include "histtune/multichannel.hpp"

namespace {

template <class Config>
void check(const char* family, const std::string& text) {
  const std::optional<Config> c = Config::parse(text);
  if (!c) return;
  const std::string label = c->label();
  const std::optional<Config> back = Config::parse(label);
  if (!back || *back != *c) {
    std::fprintf(stderr, "fuzz_config_label: %s label '%s' parses, its label() '%s' %s\n", family,
                 text.c_str(), label.c_str(), back ? "parses to another configuration" : "does not");
    std::abort();
  }
  (void)c->to_json();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  check<histtune::Hist1DConfig>("hist1d", text);
  check<histtune::MultiChannelConfig>("multichannel", text);
  if (const auto c = histtune::Hist1DConfig::parse(text)) (void)c->defines();
  return 0;
}
