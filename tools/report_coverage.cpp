// The lookup coverage of the report: for a grid of shapes per kind of problem, what the runtime's
// dispatcher would launch on a stored device, asked through Dispatcher::lookup (no GPU needed).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "common.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/family.hpp"
#include "report_data.hpp"

namespace histtune::cli {
namespace {

// The shapes every grid shows (log2): sizes 2^16..2^28 and bin counts 2^6..2^20, every other
// power of two; the kind's own tuned shapes are added.
constexpr int kMinLog2N = 16, kMaxLog2N = 28, kMinLog2Bins = 6, kMaxLog2Bins = 20;

using Kind = std::tuple<std::string, std::string, std::string, std::uint32_t, std::uint32_t>;

std::string kind_title(const Kind& k) {
  const auto& [fam, type, binning, channels, active] = k;
  std::string t = type + " " + binning;
  if (active > 0) t += " " + std::to_string(active) + "/" + std::to_string(channels) + " ch";
  return t;
}

// The kinds of problem to draw: every 1D sample type and binning, and each multi-channel kind
// that has tuned rows (their channel counts are open-ended).
std::vector<Kind> kinds_of(const std::vector<db::WinnerRow>& winners) {
  std::vector<Kind> kinds;
  for (const SampleType type : kSampleTypes)  // every type; those without direct bins draw none
    for (const char* binning : {"direct", "even", "range"})
      kinds.emplace_back("hist1d", to_string(type), binning, 1, 0);
  for (const auto& w : winners) {
    const Kind k{w.problem.family, w.problem.sample_type, w.problem.binning, w.problem.channels,
                 w.problem.active_channels};
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.push_back(k);
  }
  return kinds;
}

ReportCoverage grid_of(const Kind& k, const Dispatcher& dispatcher, const DeviceInfo& d,
                       const std::map<Kind, std::vector<const db::WinnerRow*>>& tuned) {
  const auto& [fam, type, binning, channels, active] = k;
  std::set<double> ns, bins;
  for (int v = kMinLog2N; v <= kMaxLog2N; v += 2) ns.insert(v);
  for (int v = kMinLog2Bins; v <= kMaxLog2Bins; v += 2) bins.insert(v);
  const auto it = tuned.find(k);
  if (it != tuned.end())
    for (const db::WinnerRow* w : it->second) {
      ns.insert(std::log2(static_cast<double>(w->problem.n)));
      bins.insert(std::log2(static_cast<double>(w->problem.num_bins)));
    }
  ReportCoverage g;
  g.title = kind_title(k);
  g.log2_ns.assign(ns.begin(), ns.end());
  g.log2_bins.assign(bins.begin(), bins.end());
  for (double lb : g.log2_bins)
    for (double ln : g.log2_ns) {
      const db::ProblemRow key{fam, type, binning,
                               static_cast<std::uint32_t>(std::llround(std::exp2(lb))),
                               static_cast<std::uint64_t>(std::llround(std::exp2(ln))), channels,
                               active};
      Problem p;
      try {
        p = problem_of(key);
      } catch (const std::exception&) {
        continue;
      }
      if (!validate(p).empty() || !family_of(p).validate(p).empty()) continue;
      const FamilyChoice c = dispatcher.lookup(d, p);
      ReportCoverageCell cell{ln, lb, to_string(c.level), false, false, c.unverified,
                              c.summary()};
      if (it != tuned.end())
        for (const db::WinnerRow* w : it->second)
          if (w->problem == key) {
            cell.tuned = true;
            cell.stale = c.level != LookupLevel::exact;
          }
      g.cells.push_back(cell);
    }
  return g;
}

}  // namespace

std::vector<ReportCoverage> read_coverage(const Dispatcher& dispatcher, const DeviceInfo& d,
                                          const std::vector<db::WinnerRow>& winners) {
  std::map<Kind, std::vector<const db::WinnerRow*>> tuned;
  for (const auto& w : winners)
    tuned[{w.problem.family, w.problem.sample_type, w.problem.binning, w.problem.channels,
           w.problem.active_channels}]
        .push_back(&w);
  std::vector<ReportCoverage> out;
  for (const Kind& k : kinds_of(winners)) {
    if (!parse_family(std::get<0>(k))) continue;
    ReportCoverage g = grid_of(k, dispatcher, d, tuned);
    if (!g.cells.empty()) out.push_back(std::move(g));
  }
  return out;
}

}  // namespace histtune::cli
