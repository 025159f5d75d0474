// KernelFamily over a family's traits F: F::Config (its value struct), F::Launch (its prepared
// launch), F::kId, F::kName, F::kTemplate, F::kKernel, kChannels, kRows, kWeights, kDims, kSpecPrefix and
// kBaseline, and
// static params(), parse(), check(), fallback(), request(), validate(), counters(),
// plan_problems() and bench_rows(), and optionally seeds() and also_compiled(). runtime/src/families.cpp instantiates one per family.
#pragma once

#include <type_traits>
#include <utility>

#include "histtune/family.hpp"
#include "histtune/params.hpp"

namespace histtune {

// Whether the traits F have static seeds(p, d) (optional: most families have none).
template <class F, class = void>
struct HasSeeds : std::false_type {};
template <class F>
struct HasSeeds<F, std::void_t<decltype(F::seeds(std::declval<const Problem&>(),
                                                 std::declval<const DeviceInfo&>()))>>
    : std::true_type {};

// Whether the traits F have static also_compiled(c, p, arch) (optional: most families load one
// program a configuration).
template <class F, class = void>
struct HasAlsoCompiled : std::false_type {};
template <class F>
struct HasAlsoCompiled<F, std::void_t<decltype(F::also_compiled(
                              std::declval<const typename F::Config&>(),
                              std::declval<const Problem&>(), 0))>> : std::true_type {};

template <class F>
class FamilyModel final : public KernelFamily {
 public:
  using Config = typename F::Config;

  // The configuration of values v (throws std::invalid_argument when v has the wrong size).
  static Config config(const ParamValues& v) {
    const auto& table = F::params();
    if (v.size() != table.size())
      throw std::invalid_argument(std::string(F::kName) + " takes " +
                                  std::to_string(table.size()) + " parameter values, got " +
                                  std::to_string(v.size()));
    Config c;
    for (std::size_t k = 0; k < table.size(); ++k) table[k].set(c, v[k]);
    return c;
  }
  static ParamValues values(const Config& c) {
    ParamValues v;
    v.reserve(F::params().size());
    for (const auto& prm : F::params()) v.push_back(prm.get(c));
    return v;
  }

  Family id() const override { return F::kId; }
  const char* name() const override { return F::kName; }
  const char* template_name() const override { return F::kTemplate; }
  const char* kernel_name() const override { return F::kKernel; }
  const std::vector<ParamSpec>& params() const override {
    static const std::vector<ParamSpec> specs = [] {
      std::vector<ParamSpec> out;
      for (const auto& prm : F::params())
        out.push_back({prm.name, prm.key, prm.values, prm.compile_time});
      return out;
    }();
    return specs;
  }
  std::optional<ParamValues> parse(const std::string& label) const override {
    const std::optional<Config> c = F::parse(label);
    if (!c) return std::nullopt;
    return values(*c);
  }
  std::string label(const ParamValues& v) const override { return config(v).label(); }
  std::string to_json(const ParamValues& v) const override { return config(v).to_json(); }
  Restriction check(const ParamValues& v, const Problem& p, const DeviceInfo& d) const override {
    return F::check(config(v), p, d);
  }
  Restriction serves(const ParamValues& v, const Problem& tuned, const Problem& p,
                     const DeviceInfo& d) const override {
    return F::serves(config(v), tuned, p, d);
  }
  ParamValues fallback(const Problem& p, const DeviceInfo& d) const override {
    return values(F::fallback(p, d));
  }
  std::vector<ParamValues> seeds(const Problem& p, const DeviceInfo& d) const override {
    std::vector<ParamValues> out;
    if constexpr (HasSeeds<F>::value)
      for (const Config& c : F::seeds(p, d)) out.push_back(values(c));
    return out;
  }
  CompileRequest request(const ParamValues& v, const Problem& p, int arch) const override {
    return F::request(config(v), p, arch);
  }
  std::vector<CompileRequest> also_compiled(const ParamValues& v, const Problem& p,
                                            int arch) const override {
    if constexpr (HasAlsoCompiled<F>::value) return F::also_compiled(config(v), p, arch);
    return {};
  }
  std::unique_ptr<PreparedLaunch> prepare(KernelCache& cache, const Kernel& k,
                                          const ParamValues& v, const Problem& p,
                                          const DeviceInfo& d) const override {
    return std::make_unique<Prepared>(typename F::Launch(cache, k, config(v), p, d));
  }
  std::string validate(const Problem& p) const override { return F::validate(p); }
  bool has_channels() const override { return F::kChannels; }
  bool has_rows() const override { return F::kRows; }
  bool has_weights() const override { return F::kWeights; }
  bool has_dims() const override { return F::kDims; }
  const char* spec_prefix() const override { return F::kSpecPrefix; }
  std::uint64_t counters(const Problem& p) const override { return F::counters(p); }
  std::vector<Problem> plan_problems() const override { return F::plan_problems(); }
  std::vector<BenchRow> bench_rows() const override { return F::bench_rows(); }
  Baseline baseline() const override { return F::kBaseline; }

 private:
  struct Prepared final : PreparedLaunch {
    explicit Prepared(typename F::Launch l) : launch(std::move(l)) {}
    void operator()(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                    cudaStream_t stream) const override {
      launch(p, d_samples, d_counts, stream);
    }
    typename F::Launch launch;
  };
};

}  // namespace histtune
