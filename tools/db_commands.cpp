// `histtune export | import | merge | prune`: moving tuning results between machines and
// keeping the database current. None needs a GPU.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/status.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/version.hpp"

namespace histtune::cli {

int run_export(const Common& c, const std::string& out_path, const std::string& device_uuid) {
  auto database = open_db(c);
  const std::string text =
      database->export_json(device_uuid.empty() ? std::nullopt : std::optional(device_uuid));
  if (out_path.empty() || out_path == "-") {
    std::cout << text << "\n";
  } else {
    std::ofstream out(out_path);
    out << text << "\n";
    out.close();
    if (!out) throw Error(StatusCode::invalid_argument, "cannot write " + out_path);
    if (!c.quiet) std::printf("histtune: exported %s to %s\n", database->path().c_str(), out_path.c_str());
  }
  return kOk;
}

int run_import(const Common& c, const std::string& in_path) {
  std::stringstream text;
  if (in_path == "-") {
    text << std::cin.rdbuf();
  } else {
    std::ifstream in(in_path);
    if (!in) throw Error(StatusCode::invalid_argument, "cannot read " + in_path);
    text << in.rdbuf();
  }
  auto database = open_db(c);
  const db::ImportSummary s = database->import_json(text.str());  // all or nothing
  std::printf("histtune: imported into %s: %zu devices, %zu problems, %zu new measurements, %zu "
              "winners set\n",
              database->path().c_str(), s.devices, s.problems, s.measurements, s.winners);
  return kOk;
}

int run_merge(const Common& c, const std::string& other) {
  auto database = open_db(c);
  const db::ImportSummary s = database->merge_from(other);
  std::printf("histtune: merged %s into %s: %zu devices, %zu problems, %zu new measurements, %zu "
              "winners set (the faster one is kept)\n",
              other.c_str(), database->path().c_str(), s.devices, s.problems, s.measurements,
              s.winners);
  return kOk;
}

int run_prune(const Common& c, bool all_versions) {
  auto database = open_db(c);
  db::PruneOptions o;
  // Results measured with another kernel template can no longer be launched as measured.
  o.keep_template_hash = templates::get(hist1d::kTemplate).hash;
  if (!all_versions) o.keep_histtune_version = version();
  const std::size_t n = database->prune(o);
  std::printf("histtune: pruned %zu rows from %s (kept template %s%s)\n", n,
              database->path().c_str(), o.keep_template_hash->c_str(),
              all_versions ? "" : (std::string(", histtune ") + version()).c_str());
  return kOk;
}

}  // namespace histtune::cli
