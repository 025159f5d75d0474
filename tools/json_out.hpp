// The JSON forms that --json documents share, so that every command names a device, a problem
// and a timing the same way (docs/cli.md lists the documents).
#pragma once

#include <nlohmann/json.hpp>

#include "common.hpp"
#include "histtune/db/database.hpp"
#include "histtune/device.hpp"
#include "histtune/tuner/timing.hpp"

namespace histtune::cli {

// {"ordinal", "name", "uuid", "arch": "sm_90", "sm_count", "memory_bytes", "l2_bytes",
//  "driver", "runtime"}: the device measured now.
nlohmann::json device_json(const DeviceInfo& d);
// The same keys less "ordinal", plus "nvrtc": a device as the database recorded it.
nlohmann::json device_json(const db::DeviceRow& d);
// {"spec": "u8:direct:256:2^28", "family", "sample_type", "binning", "num_bins", "n"}
nlohmann::json problem_json(const db::ProblemRow& p);
// {"median_ms", "min_ms", "max_ms", "samples"}
nlohmann::json timing_json(const tuner::Timing& t);

// What an import or a merge added: under --json the document {"histtune", "command",
// "database", "devices", "problems", "measurements", "winners", "baselines"} and `source`;
// else one line, "histtune: WHAT: N devices, N problems, N new measurements, N winners
// set[WINNERS_NOTE], N baselines set".
void print_import_summary(const Common& c, const char* command, const std::string& database,
                          const db::ImportSummary& s, const nlohmann::json& source,
                          const std::string& what, const char* winners_note);

// Writes the document to stdout, indented, with a final newline.
void print_json(const nlohmann::json& doc);

}  // namespace histtune::cli
