// What `histtune report` draws, read from the database: per device its tuned problems with their
// times (tuned, the per-shape default, CUB, the floor), the winner on each distribution, whether
// rows are stale, and what the dispatcher of this build would launch for a grid of shapes. Needs
// no GPU: the devices are described from their stored rows.
#pragma once

#include <string>
#include <vector>

#include "histtune/db/database.hpp"
#include "histtune/device.hpp"
#include "histtune/dispatcher.hpp"
#include "report.hpp"

namespace histtune::cli {

// A stored device as the restrictions see it: its row, plus the shared-memory and thread limits
// of its compute capability (the database does not store them).
DeviceInfo described_device(const db::DeviceRow& row);

// Per kind of problem (1D sample type and binning; each multi-channel kind tuned on `d`), what
// the dispatcher would launch for a grid of shapes on `d` (report_coverage.cpp).
std::vector<ReportCoverage> read_coverage(const Dispatcher& dispatcher, const DeviceInfo& d,
                                          const std::vector<db::WinnerRow>& winners);

// Reads every device of `database`; the lookups are `dispatcher`'s (the runtime's own), which
// should read the same file.
ReportData read_report(const db::Database& database, const Dispatcher& dispatcher);

}  // namespace histtune::cli
