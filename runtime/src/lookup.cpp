// The graded lookup of every family: exact -> this problem on another board of this model ->
// nearest shape on this device -> same architecture -> the family's built-in default, each stored
// row judged against the toolchain that runs now.
#include "lookup.hpp"

#include <algorithm>
#include <cmath>

#include "histtune/db/database.hpp"
#include "histtune/family.hpp"

namespace histtune {
namespace {

double shape_distance(const db::ProblemRow& a, const Problem& b) {
  return std::fabs(std::log2(static_cast<double>(std::max<std::uint64_t>(a.n, 1))) -
                   std::log2(static_cast<double>(std::max<std::uint64_t>(b.n, 1)))) +
         std::fabs(std::log2(static_cast<double>(a.num_bins)) -
                   std::log2(static_cast<double>(b.num_bins)));
}

std::string where(const db::WinnerRow& w) {
  std::string s = w.config_label + " tuned on " + w.device.name + " (" + w.device.uuid +
                  ") for bins=" + std::to_string(w.problem.num_bins) + " n=" +
                  std::to_string(w.problem.n);
  // A weighted key packs its shape into these columns (weighted.hpp): its label says it.
  const auto fam = parse_family(w.problem.family);
  if (w.problem.active_channels > 0 && !(fam && family(*fam).has_weights()))
    s += " channels=" + std::to_string(w.problem.active_channels) + "/" +
         std::to_string(w.problem.channels);
  return s;
}

// 12080 -> "12.8", as CUDA writes its versions.
std::string cuda_version_text(int v) {
  if (v <= 0) return "unrecorded";
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string text_or_unrecorded(const std::string& s) { return s.empty() ? "unrecorded" : s; }

// What differs between the toolchain a row was recorded under and `now`, the template excepted;
// empty when nothing does.
std::string staleness(const db::WinnerRow& w, const Toolchain& now) {
  std::string out;
  auto add = [&](const std::string& what) { out += (out.empty() ? "" : "; ") + what; };
  if (now.driver_version != 0 && w.device.driver_version != now.driver_version)
    add("driver " + cuda_version_text(w.device.driver_version) + " -> " +
        cuda_version_text(now.driver_version));
  if (w.device.nvrtc_version != now.nvrtc_version)
    add("NVRTC " + text_or_unrecorded(w.device.nvrtc_version) + " -> " + now.nvrtc_version);
  if (w.histtune_version != now.histtune_version)
    add("histtune " + text_or_unrecorded(w.histtune_version) + " -> " + now.histtune_version);
  return out;
}

}  // namespace

RowStanding judge_row(const db::WinnerRow& w, const Toolchain& now) {
  if (w.template_hash != now.template_hash)
    return {RowUse::stale, "the kernel source changed since (template " +
                               text_or_unrecorded(w.template_hash) + ", now " +
                               now.template_hash + ")"};
  std::string stale = staleness(w, now);
  return {stale.empty() ? RowUse::used : RowUse::unverified, stale};
}

namespace {

// The nearest candidate that is not stale (see Dispatcher::explain) and whose configuration
// parses and may serve this problem on this device (the family's serves(): its restrictions,
// and no costlier shape than was timed); rows that fail are skipped, and said so in `skipped`.
std::optional<FamilyChoice> nearest(const KernelFamily& f, std::vector<db::WinnerRow> rows,
                                    const Problem& p, const DeviceInfo& d, LookupLevel level,
                                    const Toolchain& now, bool strict, std::string& skipped) {
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    return shape_distance(a.problem, p) < shape_distance(b.problem, p);
  });
  for (const auto& w : rows) {
    const RowStanding standing = judge_row(w, now);
    if (standing.use == RowUse::stale) {
      skipped += "; skipped stale " + where(w) + ": " + standing.why;
      continue;
    }
    const std::string& stale = standing.why;
    if (!stale.empty() && strict) {
      skipped += "; skipped unverified " + where(w) + " (strict): " + stale;
      continue;
    }
    const std::optional<ParamValues> c = f.parse(w.config_label);
    Problem tuned = p;  // the call at the row's shape: what its configuration was timed on
    tuned.num_bins = w.problem.num_bins;
    tuned.n = w.problem.n;
    const std::string why = c ? f.serves(*c, tuned, p, d).message() : "unparsable label";
    if (why.empty()) {
      FamilyChoice out{&f, *c, level, !stale.empty(), stale, where(w) + skipped};
      if (out.unverified) out.detail += "; unverified: recorded under " + stale;
      return out;
    }
    skipped += "; skipped " + w.config_label + ": " + why;
  }
  return std::nullopt;
}

}  // namespace

FamilyChoice graded_lookup(const LookupSource& src, const DeviceInfo& d, const Problem& p) {
  const KernelFamily& f = family_of(p);
  std::string skipped;
  if (src.database) {
    try {
      const Toolchain now = current_toolchain(d, p.family);
      const db::ProblemRow key = p.key();
      std::lock_guard<std::mutex> lock(*src.mutex);
      if (auto w = src.database->winner(d.uuid, key)) {
        if (auto c = nearest(f, {*w}, p, d, LookupLevel::exact, now, src.strict, skipped))
          return *c;
      }
      // Another board of this model timed this very problem: as good as exact (its kernel runs
      // the same), and better than a nearer shape timed here.
      auto twins = src.database->winners_same_model(d.row(), key);
      if (auto c = nearest(f, twins, p, d, LookupLevel::same_model, now, src.strict, skipped))
        return *c;
      auto like = src.database->winners_like(d.uuid, key);
      // The exact row, if any, was judged above: not again (nor named twice in the detail).
      like.erase(std::remove_if(like.begin(), like.end(),
                                [&](const db::WinnerRow& w) { return w.problem == key; }),
                 like.end());
      if (auto c = nearest(f, like, p, d, LookupLevel::nearest_shape, now, src.strict, skipped))
        return *c;
      auto arch = src.database->winners_same_arch(d.cc_major, d.cc_minor, d.uuid, key);
      if (auto c = nearest(f, arch, p, d, LookupLevel::same_arch, now, src.strict, skipped))
        return *c;
    } catch (const std::exception& e) {
      skipped += std::string("; database lookup failed: ") + e.what();
    }
  }
  FamilyChoice c;
  c.family = &f;
  c.config = f.fallback(p, d);
  c.level = LookupLevel::builtin_default;
  c.detail = src.database          ? "nothing usable tuned for this problem" + skipped
             : src.db_error.empty() ? "no tuning database at " + src.db_path
                                    : "tuning database unusable, ignored: " + src.db_error;
  return c;
}

}  // namespace histtune
