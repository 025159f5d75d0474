// `histtune export`: the database as JSON (docs/database-format.md), to a file or stdout.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>

#include "command.hpp"
#include "histtune/status.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"
#include "options.hpp"

namespace histtune::cli {
namespace {

int run_export(const Common& c, const std::string& out_path, const std::string& device_uuid) {
  auto database = open_db_read_only(c);
  if (!device_uuid.empty() && !database->device(device_uuid)) {
    const std::string known =
        join(database->devices(), [](const db::DeviceRow& d) { return d.uuid; });
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

struct ExportValues {
  std::string out_path, device;
};

void declare(CLI::App* app, Common& common, ExportValues& v) {
  add_common(app, common, kDb | kJson | kQuiet,
             {"with --out: a JSON summary instead of the line", "with --out: print nothing"});
  app->add_option("--out", v.out_path, "the file to write ('-' or none: standard output)")
      ->type_name("FILE");
  app->add_option("--device", v.device, "only this device (exit 1 if it is not stored)")
      ->type_name("UUID");
}

}  // namespace

Command export_command() {
  return {
      "export", "write the database as JSON",
      "The format is docs/database-format.md; compiled kernels are not exported. Needs no GPU;\n"
      "only reads the database.",
      bind_values<ExportValues>(declare, [](Common& c, const ExportValues& v) {
        return run_export(c, v.out_path, v.device);
      })};
}

}  // namespace histtune::cli
