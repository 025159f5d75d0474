// `histtune info`: the toolchain, where the database is and what it holds, and the device with
// what is tuned for it. The database part needs no GPU: without one it is still printed, then the
// command exits 3.
#include <cstdio>
#include <filesystem>
#include <string>

#include "command.hpp"
#include "histtune/jit.hpp"
#include "histtune/status.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"
#include "options.hpp"
#include "standing.hpp"

namespace histtune::cli {
namespace {

int run_info(const Common& c) {
  const std::string path = resolve_db_path(c);
  nlohmann::json doc = {{"histtune", version()},
                        {"command", "info"},
                        {"nvrtc", nvrtc_version()},
                        {"nvrtc_archs", nvrtc_archs()}};
  std::error_code ec;
  std::unique_ptr<db::Database> database;
  nlohmann::json jdb = {{"path", path}, {"exists", std::filesystem::exists(path, ec)}};
  // Opened before anything is printed, so a database error is the only output.
  if (jdb["exists"]) database = open_db_read_only(c);  // info never writes, nor creates the file
  if (const std::string span = nvrtc_arch_span(); !c.json)
    std::printf("histtune %s, NVRTC %s%s\n", version(), nvrtc_version().c_str(),
                span.empty() ? "" : (" (compiles for " + span + ")").c_str());
  if (database) {
    jdb["schema_version"] = database->schema_version();
    jdb["devices"] = nlohmann::json::array();
    if (!c.json) std::printf("database: %s (schema %d)\n", path.c_str(), database->schema_version());
    for (const auto& dev : database->devices()) {
      const auto winners = database->winners(dev.uuid);
      std::size_t measurements = 0;
      for (const auto& w : winners) measurements += database->measurements(dev.uuid, w.problem).size();
      const std::size_t baselines = database->baselines(dev.uuid).size();
      nlohmann::json jd = device_json(dev);
      jd["tuned_problems"] = winners.size();
      jd["measurements"] = measurements;
      jd["compared_problems"] = baselines;
      const Standing st = standing_of(winners, local_driver_version());
      jd["standing"] = standing_json(st);
      jdb["devices"].push_back(jd);
      if (!c.json)
        std::printf("  %s (%s, sm_%d%d): %zu tuned problems, %zu measurements, %zu compared\n%s",
                    dev.name.c_str(), dev.uuid.c_str(), dev.cc_major, dev.cc_minor,
                    winners.size(), measurements, baselines, standing_text(st, "    ").c_str());
    }
  } else if (!c.json) {
    std::printf("database: %s (not created yet)\n", path.c_str());
  }
  doc["database"] = jdb;

  DeviceInfo d;
  try {
    d = select_device(c);
  } catch (const Error& e) {
    if (!c.json || e.code() != StatusCode::no_device) throw;
    // The document still says what is known; the exit code and stderr say what is missing.
    doc["device"] = nullptr;
    doc["device_error"] = e.what();
    print_json(doc);
    throw;
  }
  doc["device"] = device_json(d);
  nlohmann::json tuned = nlohmann::json::array();
  if (!c.json)
    std::printf("GPU %d: %s, %s, sm_%d, %d SMs, %.1f GiB, L2 %.0f MiB, driver %d, runtime %d\n",
                d.ordinal, d.name.c_str(), d.uuid.c_str(), d.arch(), d.sm_count,
                d.memory_bytes / 1073741824.0, d.l2_bytes / 1048576.0, d.driver_version,
                d.runtime_version);
  const bool compilable = nvrtc_compiles_for(d.arch());
  doc["nvrtc_compiles_for_device"] = compilable;
  if (!compilable && !c.json)
    std::printf("  NVRTC %s cannot compile for sm_%d: histtune's kernels cannot run on this GPU "
                "with this CUDA toolkit\n",
                nvrtc_version().c_str(), d.arch());
  if (database) {
    const auto winners = database->winners(d.uuid);
    if (!c.json) std::printf("tuned problems on this GPU: %zu\n", winners.size());
    for (const auto& w : winners) {
      tuned.push_back({{"problem", problem_json(w.problem)},
                       {"winner", w.config_label},
                       {"winner_ms", w.median_ms}});
      if (!c.json)
        std::printf("  %s -> %s (%s ms)\n", problem_name(w.problem).c_str(),
                    w.config_label.c_str(), fmt_ms(w.median_ms).c_str());
    }
  }
  doc["tuned_on_this_device"] = tuned;
  if (c.json) print_json(doc);
  return kOk;
}

void declare(CLI::App* app, Common& common, NoValues&) {
  add_common(app, common, kGpu | kDb | kJson);
}

}  // namespace

Command info_command() {
  return {"info", "versions, the database and what it holds, the GPU and its tuned problems",
          "Prints the histtune and NVRTC versions; the database's path, schema and, per device,\n"
          "its tuned problems, measurements and compared problems; then the GPU (name, UUID,\n"
          "architecture, SMs, memory, L2, driver and runtime) and the winners tuned for it.\n"
          "Without a GPU it prints the rest (with --json: \"device\": null and \"device_error\"),\n"
          "then exits 3. It never creates or writes the database.",
          bind_values<NoValues>(declare, [](Common& c, NoValues&) { return run_info(c); })};
}

}  // namespace histtune::cli
