#include "standing.hpp"

#include <cuda_runtime_api.h>

#include "histtune/dispatcher.hpp"

namespace histtune::cli {
namespace {

// "reason", or "31 reason A; 3 reason B" when they differ.
std::string reasons_text(const std::map<std::string, std::size_t>& why) {
  if (why.size() == 1) return why.begin()->first;
  std::string s;
  for (const auto& [reason, n] : why)
    s += (s.empty() ? "" : "; ") + std::to_string(n) + " " + reason;
  return s;
}

// judge_row's stale reason, "the kernel source changed since (template X, now Y)", as the
// family's: "hist1d template X, now Y".
std::string stale_key(const std::string& family_name, const std::string& why) {
  const std::size_t open = why.find("(template ");
  if (open == std::string::npos || why.back() != ')') return family_name + ": " + why;
  return family_name + " " + why.substr(open + 1, why.size() - open - 2);
}

}  // namespace

int local_driver_version() {
  int v = 0;
  if (cudaDriverGetVersion(&v) != cudaSuccess) return 0;
  return v;
}

Standing standing_of(const std::vector<db::WinnerRow>& winners, int driver) {
  Standing s;
  DeviceInfo here;
  here.driver_version = driver;
  for (const db::WinnerRow& w : winners) {
    const std::optional<Family> f = parse_family(w.problem.family);
    if (!f) {
      ++s.stale;
      ++s.stale_why["kernel family '" + w.problem.family + "' unknown to this histtune"];
      continue;
    }
    const RowStanding r = judge_row(w, current_toolchain(here, *f));
    if (r.use == RowUse::used) ++s.used;
    if (r.use == RowUse::unverified) ++s.unverified, ++s.unverified_why[r.why];
    if (r.use == RowUse::stale) ++s.stale, ++s.stale_why[stale_key(w.problem.family, r.why)];
  }
  return s;
}

std::string standing_text(const Standing& s, const std::string& indent) {
  if (s.total() == 0) return indent + "no winners stored: the runtime uses built-in defaults\n";
  std::string out = indent + "the runtime uses " + std::to_string(s.used) + " of " +
                    std::to_string(s.total()) + " winners as measured\n";
  if (s.stale)
    out += indent + std::to_string(s.stale) +
           " skipped as stale, their kernel source changed since they were tuned: " +
           reasons_text(s.stale_why) + " (`histtune prune --dry-run` lists them)\n";
  if (s.unverified)
    out += indent + std::to_string(s.unverified) + " used but unverified, recorded under " +
           reasons_text(s.unverified_why) + " (re-tune to confirm; skipped with HISTTUNE_STRICT=1)\n";
  return out;
}

nlohmann::json standing_json(const Standing& s) {
  return {{"winners", s.total()},           {"used", s.used},
          {"unverified", s.unverified},     {"stale", s.stale},
          {"unverified_why", s.unverified_why}, {"stale_why", s.stale_why}};
}

std::string database_standing(const db::Database& db, nlohmann::json& by_device) {
  std::string text;
  by_device = nlohmann::json::object();
  for (const auto& dev : db.devices()) {
    const Standing st = standing_of(db.winners(dev.uuid), local_driver_version());
    by_device[dev.uuid] = standing_json(st);
    text += "  " + dev.name + " (" + dev.uuid + "):\n" + standing_text(st, "    ");
  }
  return text;
}

}  // namespace histtune::cli
