#pragma once
// What the runtime and the tuner need of each kernel family, in one place: its value struct and
// prepared launch, its template and kernel names, how a stored label is parsed and checked for a
// problem, its compile request and its built-in default. The dispatcher's graded lookup, the
// tuner's GPU bench and tune()'s always-measured default are templates over these traits.

#include <optional>
#include <string>

#include "histtune/device.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/jit.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/problem.hpp"

namespace histtune {

struct Hist1DFamily {
  using Config = Hist1DConfig;
  using Launch = Hist1DLaunch;
  static constexpr const char* kFamily = hist1d::kFamily;
  static constexpr const char* kTemplate = hist1d::kTemplate;
  static constexpr const char* kKernel = hist1d::kKernel;
  static std::optional<Config> parse(const std::string& label) { return Config::parse(label); }
  static std::string check(const Config& c, const Problem& p, const DeviceInfo& d) {
    return hist1d::check(c, p, d);
  }
  static Config fallback(const Problem& p, const DeviceInfo& d) { return hist1d::default_for(p, d); }
  static CompileRequest request(const Config& c, const Problem& p, int arch) {
    return hist1d_request(c, p, arch);
  }
};

struct MultiChannelFamily {
  using Config = MultiChannelConfig;
  using Launch = MultiChannelLaunch;
  static constexpr const char* kFamily = multichannel::kFamily;
  static constexpr const char* kTemplate = multichannel::kTemplate;
  static constexpr const char* kKernel = multichannel::kKernel;
  static std::optional<Config> parse(const std::string& label) { return Config::parse(label); }
  static std::string check(const Config& c, const Problem& p, const DeviceInfo& d) {
    return multichannel::check(c, p, d);
  }
  static Config fallback(const Problem& p, const DeviceInfo& d) {
    return multichannel::default_for(p, d);
  }
  static CompileRequest request(const Config& c, const Problem& p, int arch) {
    return multichannel::request(c, p, arch);
  }
};

}  // namespace histtune
