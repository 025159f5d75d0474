// A bench without a GPU for tune_with: each point's time on each distribution comes from a cost
// function, with a deterministic spread of samples around it, so the three phases, the
// decision rules, resume and interruption are tested on CPU.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "histtune/tuner/tuner.hpp"

namespace histtune::test {

class FakeBench : public tuner::Bench {
 public:
  // cost(point, distribution): median ms, or nullopt for a wrong result.
  using Cost = std::function<std::optional<double>(const tuner::Point&, tuner::Distribution)>;
  explicit FakeBench(Cost cost, std::chrono::microseconds delay = {})
      : cost_(std::move(cost)), delay_(delay) {}

  std::string label(const tuner::Point& p) const override {
    std::string s = "cfg";
    for (int v : p) s += "." + std::to_string(v);
    return s;
  }
  std::string params_json(const tuner::Point& p) const override {
    std::string s = "{\"p\":[";
    for (std::size_t i = 0; i < p.size(); ++i) s += (i ? "," : "") + std::to_string(p[i]);
    return s + "]}";
  }
  std::string template_hash() const override { return "fake-template"; }

  Measured measure(const tuner::Point& p, tuner::Distribution dist,
                   const tuner::TimingOptions* how) override {
    if (delay_.count()) std::this_thread::sleep_for(delay_);
    ++calls[dist];
    measured.push_back(p);
    least_samples.push_back(how ? how->min_samples : -1);
    Measured m;
    const std::optional<double> c = cost_(p, dist);
    // Ten samples spread +-0.2% around the cost: the median is the cost.
    std::vector<double> ms;
    const double base = c ? *c : 1.0;
    for (int i = -4; i <= 5; ++i) ms.push_back(base * (1.0 + 0.0004 * (i == 5 ? 0 : i)));
    m.timing = tuner::summarize(ms);
    m.verified = c.has_value();
    if (!m.verified) m.error = "output differs from the host reference";
    return m;
  }
  void prefetch(const std::vector<tuner::Point>& pts) override { prefetched += pts.size(); }

  std::map<tuner::Distribution, std::size_t> calls;
  std::vector<tuner::Point> measured;  // every measure() call's point, in order
  std::vector<int> least_samples;      // each call's TimingOptions::min_samples (-1: none given)
  std::size_t prefetched = 0;

 private:
  Cost cost_;
  std::chrono::microseconds delay_;
};

}  // namespace histtune::test
