// The JSON exchange format (docs/database-format.md) as the importer reads it: a document
// validated whole into plain rows before anything is written. Private to db/.
#pragma once

#include "histtune/db/database.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace histtune::db::detail {

constexpr const char* kFormat = "histtune-db";
constexpr int kFormatVersion = 2;
constexpr int kOldestFormatVersion = 1;  // version 1: no channels, distributions or their winners

// A document that fails validation; the message starts with the JSON path.
class Invalid : public std::runtime_error {
 public:
  Invalid(const std::string& where, const std::string& why)
      : std::runtime_error(where + ": " + why) {}
};

// One validated result: a device's measurements, winner and baseline of one problem.
struct ImportResult {
  std::string device_uuid;
  ProblemRow problem;
  std::vector<MeasurementRow> measurements;
  std::optional<MeasurementRow> winner;  // only label, median, hash and version are used
  std::vector<MeasurementRow> distribution_winners;  // the same, plus the distribution
  std::optional<BaselineRow> baseline;
};

struct ImportDocument {
  std::vector<DeviceRow> devices;
  std::vector<ImportResult> results;
};

// Validates the whole text; throws Invalid naming the JSON path of the first problem.
ImportDocument parse_document(const std::string& text);

}  // namespace histtune::db::detail
