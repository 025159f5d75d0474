// `histtune export | import | merge | prune`: moving tuning results between machines and
// keeping the database current. None needs a GPU.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "histtune/hist1d.hpp"
#include "histtune/multichannel.hpp"
#include "histtune/status.hpp"
#include "histtune/templates/registry.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"

namespace histtune::cli {
namespace {

nlohmann::json summary_json(const char* command, const std::string& database,
                            const db::ImportSummary& s) {
  return {{"histtune", version()}, {"command", command}, {"database", database},
          {"devices", s.devices},  {"problems", s.problems}, {"measurements", s.measurements},
          {"winners", s.winners},  {"baselines", s.baselines}};
}

}  // namespace

int run_export(const Common& c, const std::string& out_path, const std::string& device_uuid) {
  auto database = open_db_read_only(c);
  if (!device_uuid.empty() && !database->device(device_uuid)) {
    std::string known;
    for (const auto& d : database->devices()) known += (known.empty() ? "" : ", ") + d.uuid;
    std::fprintf(stderr, "histtune: no device %s in %s (it holds: %s)\n", device_uuid.c_str(),
                 database->path().c_str(), known.empty() ? "none" : known.c_str());
    return kFailure;
  }
  const std::string text =
      database->export_json(device_uuid.empty() ? std::nullopt : std::optional(device_uuid));
  if (out_path.empty() || out_path == "-") {
    std::cout << text << "\n";  // the export is the JSON document
    return kOk;
  }
  std::ofstream out(out_path);
  out << text << "\n";
  out.close();
  if (!out) throw Error(StatusCode::invalid_argument, "cannot write --out file " + out_path);
  if (c.json)
    print_json({{"histtune", version()}, {"command", "export"}, {"database", database->path()},
                {"out", out_path}});
  else if (!c.quiet)
    std::printf("histtune: exported %s to %s\n", database->path().c_str(), out_path.c_str());
  return kOk;
}

int run_import(const Common& c, const std::string& in_path) {
  std::stringstream text;
  if (in_path == "-") {
    text << std::cin.rdbuf();
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(in_path, ec))
      throw Error(StatusCode::invalid_argument, "cannot read " + in_path + ": it is a folder");
    std::ifstream in(in_path);
    if (!in)
      throw Error(StatusCode::invalid_argument,
                  "cannot read " + in_path + ": " + std::strerror(errno));
    text << in.rdbuf();
  }
  // The file is tried on a scratch database first: its faults are then told apart from the
  // database's (exit 2, not 4), and the database is not even opened for a malformed file.
  try {
    db::Database scratch(":memory:");
    scratch.import_json(text.str());
  } catch (const db::DbError& e) {
    const std::string what = e.what();
    const auto at = what.find(" failed: ");
    throw Error(StatusCode::invalid_argument,
                "bad import file " + (in_path == "-" ? std::string("(stdin)") : in_path) + ": " +
                    (at == std::string::npos ? what : what.substr(at + 9)) +
                    " (nothing imported)");
  }
  auto database = open_db(c);
  const db::ImportSummary s = database->import_json(text.str());  // all or nothing
  if (c.json) {
    nlohmann::json j = summary_json("import", database->path(), s);
    j["file"] = in_path;
    print_json(j);
    return kOk;
  }
  std::printf("histtune: imported into %s: %zu devices, %zu problems, %zu new measurements, %zu "
              "winners set, %zu baselines set\n",
              database->path().c_str(), s.devices, s.problems, s.measurements, s.winners,
              s.baselines);
  return kOk;
}

int run_merge(const Common& c, const std::string& other) {
  auto database = open_db(c);
  const db::ImportSummary s = database->merge_from(other);
  if (c.json) {
    nlohmann::json j = summary_json("merge", database->path(), s);
    j["other"] = other;
    print_json(j);
    return kOk;
  }
  std::printf("histtune: merged %s into %s: %zu devices, %zu problems, %zu new measurements, %zu "
              "winners set (the faster one is kept), %zu baselines set\n",
              other.c_str(), database->path().c_str(), s.devices, s.problems, s.measurements,
              s.winners, s.baselines);
  return kOk;
}

int run_prune(const Common& c, bool all_versions) {
  auto database = open_db(c, /*must_exist=*/true);
  // Results measured with another kernel template can no longer be launched as measured: each
  // family keeps its own template's.
  std::size_t n = 0;
  nlohmann::json j = {{"histtune", version()}, {"command", "prune"}, {"database", database->path()}};
  std::string kept;
  for (const KernelFamily* f : families()) {
    db::PruneOptions o;
    o.keep_template_hash = f->template_hash();
    o.family = f->name();
    if (!all_versions) o.keep_histtune_version = version();
    n += database->prune(o);
    // hist1d's key predates the others': "kept_template_hash".
    const std::string key = f->id() == Family::hist1d
                                ? "kept_template_hash"
                                : "kept_" + std::string(f->name()) + "_template_hash";
    j[key] = *o.keep_template_hash;
    kept += (kept.empty() ? "" : ", ") + std::string(f->name()) + " " + *o.keep_template_hash;
  }
  if (c.json) {
    j["deleted_rows"] = n;
    j["kept_histtune_version"] = all_versions ? nlohmann::json() : nlohmann::json(version());
    print_json(j);
    return kOk;
  }
  std::printf("histtune: pruned %zu rows from %s (kept templates %s%s)\n", n,
              database->path().c_str(), kept.c_str(),
              all_versions ? "" : (std::string(", histtune ") + version()).c_str());
  return kOk;
}

}  // namespace histtune::cli
