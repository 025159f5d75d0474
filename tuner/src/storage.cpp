// The storage side of a run: resume from a database's measurements, store the winners, and the
// winners of similar problems as the starts of a search.
#include <algorithm>
#include <cmath>
#include <utility>

#include "histtune/family.hpp"
#include "histtune/tuner/search.hpp"
#include "histtune/tuner/tuner.hpp"
#include "histtune/version.hpp"

namespace histtune::tuner {

void resume_from(db::Database& database, const db::DeviceRow& device, const Problem& p,
                 const std::string& template_hash, TuneOptions& opt) {
  const db::ProblemRow key = p.key();
  for (auto& m : database.measurements(device.uuid, key))
    if (m.template_hash == template_hash)
      opt.known.emplace(MeasurementKey{m.distribution, m.config_label}, m);
  auto then = std::move(opt.on_measurement);
  opt.on_measurement = [&database, device, key, then](const db::MeasurementRow& m) {
    database.record_measurements(device, key, {m});
    if (then) then(m);
  };
}

void store(db::Database& database, const db::DeviceRow& device, const TuneResult& r,
           bool measurements) {
  const db::ProblemRow key = r.problem.key();
  if (measurements) database.record_measurements(device, key, r.measurements);
  if (r.winner.empty()) return;
  db::WinnerRow robust;
  robust.config_label = r.winner;
  robust.median_ms = r.winner_ms;
  robust.template_hash = r.template_hash;
  robust.histtune_version = version();
  std::vector<db::WinnerRow> per;
  for (const DistributionWinner& w : r.by_distribution) {
    db::WinnerRow row = robust;
    row.distribution = w.distribution;
    row.config_label = w.label;
    row.median_ms = w.median_ms;
    per.push_back(row);
  }
  database.set_winners(device, key, robust, per);
}

void store(db::Database& database, const DeviceInfo& d, const TuneResult& r, bool measurements) {
  store(database, d.row(), r, measurements);
}

// Three H100 plans of four kept a winner 4-20% slower on u32 direct 65536 bins 2^26: one step
// from a built-in candidate (32-bit copies in slices) after the default that they never timed.
void add_built_in(TuneOptions& opt, const Problem& p, const DeviceInfo& d) {
  const KernelFamily& f = family_of(p);
  if (const std::optional<Point> pt = point_of_label(f.label(f.fallback(p, d)), p, d))
    opt.always.push_back(*pt);
  // At most three seeds: 65536 bins have seven candidates after the default (partitioned ones a
  // second a compile), and the one the plans missed is the third.
  constexpr std::size_t kSeeds = 3;
  std::vector<ParamValues> built_in = {f.fallback(p, d)};
  for (ParamValues& v : f.seeds(p, d))
    if (built_in.size() <= kSeeds) built_in.push_back(std::move(v));
  for (const ParamValues& v : built_in)
    if (const std::optional<Point> pt = point_of_label(f.label(v), p, d))
      if (std::find(opt.starts.begin(), opt.starts.end(), *pt) == opt.starts.end())
        opt.starts.push_back(*pt);
}

std::vector<Point> tuning_starts(const std::vector<db::WinnerRow>& winners, const DeviceInfo& d,
                                 const Problem& p, std::size_t max) {
  const db::ProblemRow key = p.key();
  const auto lg = [](double v) { return std::log2(std::max(v, 1.0)); };
  // A sample type of the same width loads alike (0: a name this build does not know).
  const auto width = [](const std::string& type) -> std::size_t {
    const std::optional<SampleType> t = parse_sample_type(type);
    return t ? sample_bytes(*t) : 0;
  };
  std::vector<std::pair<double, const db::WinnerRow*>> near;
  for (const db::WinnerRow& w : winners) {
    const db::ProblemRow& q = w.problem;
    if (q == key || q.family != key.family || q.channels != key.channels ||
        q.active_channels != key.active_channels)
      continue;  // p's own winner is not a start: it is the answer
    // Another sample type or binning is further, not excluded: its kernel differs only in the
    // load and the bin computation, and without it the first problem of each kind started from
    // random points (H100 session 14: where two runs' winners were 2.3-2.6% apart, i32 direct
    // 4096 bins 2^22 and u32 even 1024 bins, a winner of another type or binning was one step
    // from, or was, the better one).
    double apart = std::fabs(lg(static_cast<double>(q.n)) - lg(static_cast<double>(p.n))) +
                   std::fabs(lg(q.num_bins) - lg(p.num_bins));
    if (q.sample_type != key.sample_type)
      apart += width(q.sample_type) == sample_bytes(p.sample_type) ? 2 : 4;
    if (q.binning != key.binning) apart += 4;
    near.emplace_back(apart, &w);
  }
  // Nearest first; among equals the order given (robust winners before the others).
  std::stable_sort(near.begin(), near.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Point> out;
  for (const auto& [dist, w] : near) {
    if (out.size() >= max) break;
    const std::optional<Point> pt = point_of_label(w->config_label, p, d);
    if (pt && std::find(out.begin(), out.end(), *pt) == out.end()) out.push_back(*pt);
  }
  return out;
}

std::vector<db::WinnerRow> start_rows(const db::Database& database,
                                      const std::string& device_uuid) {
  // Two queries, not one per tuned problem; each robust winner is followed by its problem's
  // per-distribution winners (the order among equally near starts).
  const std::vector<db::WinnerRow> per = database.distribution_winners(device_uuid);
  std::vector<db::WinnerRow> winners;
  for (db::WinnerRow& w : database.winners(device_uuid)) {
    const db::ProblemRow of = w.problem;
    winners.push_back(std::move(w));
    for (const db::WinnerRow& pw : per)
      if (pw.problem == of) winners.push_back(pw);
  }
  return winners;
}

std::vector<Point> tuning_starts(const db::Database& database, const DeviceInfo& d,
                                 const Problem& p, std::size_t max) {
  return tuning_starts(start_rows(database, d.uuid), d, p, max);
}

std::vector<Point> hist1d_starts(const std::vector<db::WinnerRow>& winners, const DeviceInfo& d,
                                 const Problem& p, std::size_t max) {
  return tuning_starts(winners, d, p, max);
}

std::vector<Point> hist1d_starts(const db::Database& database, const DeviceInfo& d,
                                 const Problem& p, std::size_t max) {
  return tuning_starts(database, d, p, max);
}

}  // namespace histtune::tuner
