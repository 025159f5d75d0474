// What the files of db/src share, private to db/ (not installed): the DbError builder, the SQL
// fragments naming a device's and a problem's columns, the row readers and binders, the id
// lookups that run inside a caller's transaction, and the lock + transaction + error wrapper
// every public call goes through.
#pragma once

#include "histtune/db/database.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>

// The device's columns, as read_device reads them. Macros, so that whole statements are joined
// at compile time.
#define HT_DEVICE_COLUMNS                                                         \
  "d.uuid, d.name, d.cc_major, d.cc_minor, d.sm_count, d.memory_bytes, d.l2_bytes," \
  " d.driver_version, d.runtime_version, d.memory_clock_khz, d.nvrtc_version"
// The problem's key columns, as read_problem reads them.
#define HT_PROBLEM_COLUMNS \
  "p.family, p.sample_type, p.binning, p.num_bins, p.n, p.channels, p.active_channels"

namespace histtune::db::detail {

constexpr int kDeviceColumnCount = 11;
constexpr int kProblemColumnCount = 7;

// Matches the problem bound by bind_problem.
inline constexpr const char* kProblemMatch =
    " p.family = :family AND p.sample_type = :sample_type AND p.binning = :binning AND"
    " p.num_bins = :num_bins AND p.n = :n AND p.channels = :channels AND"
    " p.active_channels = :active_channels";

// The order of winners(): by problem key, then device.
inline constexpr const char* kWinnerOrder =
    " ORDER BY p.family, p.sample_type, p.binning, p.num_bins, p.n, p.channels,"
    " p.active_channels, d.uuid";

// Bound by bind_measurement.
inline constexpr const char* kInsertMeasurementSql =
    "INSERT INTO measurements (device_id, problem_id, config_id, median_ms, min_ms, max_ms,"
    "  samples, verified, template_hash, histtune_version, distribution)"
    " VALUES (:device_id, :problem_id, :config_id, :median_ms, :min_ms, :max_ms,"
    "  :samples, :verified, :template_hash, :histtune_version, :distribution)";

// Builds the DbError for a failed call: the operation, the database and SQLite's own words.
DbError make_error(const char* operation, const std::string& path, const std::string& detail);
DbError make_error(const char* operation, const std::string& path, const SQLite::Exception& e);

// An unset value binds NULL.
void bind_optional(SQLite::Statement& q, const char* name, const std::optional<double>& v);
void bind_optional(SQLite::Statement& q, const char* name, const std::optional<std::string>& v);
std::optional<double> optional_column(const SQLite::Column& c);
// Binds a baseline's times (:default_ms, :cub_ms, :floor_ms, :read_gbps and the spreads,
// :default_min_ms .. :cub_max_ms) of every statement that stores one (baselines.cpp).
void bind_baseline_times(SQLite::Statement& q, const BaselineRow& b);

// :family, :sample_type, :binning, :num_bins, :n, :channels, :active_channels.
void bind_problem(SQLite::Statement& q, const ProblemRow& p);
// The same but :num_bins and :n: problems like `like`, of any size.
void bind_problem_like(SQLite::Statement& q, const ProblemRow& like);
// Every parameter of kInsertMeasurementSql.
void bind_measurement(SQLite::Statement& q, std::int64_t device_id, std::int64_t problem_id,
                      std::int64_t config_id, const MeasurementRow& m);
// The same but :verified and :histtune_version: what makes two measurements the same one.
void bind_measurement_identity(SQLite::Statement& q, std::int64_t device_id,
                               std::int64_t problem_id, std::int64_t config_id,
                               const MeasurementRow& m);
// The columns every winner row has, robust or per distribution (:distribution is the caller's).
void bind_winner(SQLite::Statement& q, std::int64_t device_id, std::int64_t problem_id,
                 std::int64_t config_id, double median_ms, const std::string& template_hash,
                 const std::string& histtune_version);

// HT_DEVICE_COLUMNS / HT_PROBLEM_COLUMNS from column `first` on.
DeviceRow read_device(const SQLite::Statement& q, int first);
ProblemRow read_problem(const SQLite::Statement& q, int first);

// Inserts or updates the row and returns its id; inside the caller's transaction.
std::int64_t device_id_in(SQLite::Database& db, const DeviceRow& d);
// `inserted`, when given, says whether the problem was new.
std::int64_t problem_id_in(SQLite::Database& db, const ProblemRow& p, bool* inserted = nullptr);
// replace_params = false keeps the params of an existing row: set_winner knows only the label.
std::int64_t config_id_in(SQLite::Database& db, const std::string& family,
                          const std::string& label, const std::string& params_json,
                          bool replace_params);

// Removes the pending row of (device, problem), inside the caller's transaction; returns the
// rows removed (pending.cpp).
int clear_pending_in(SQLite::Database& db, const std::string& device_uuid,
                     const ProblemRow& problem);

}  // namespace histtune::db::detail

namespace histtune::db {

// IMMEDIATE takes the write lock at once: a deferred transaction that reads first can fail to
// upgrade to a writer under WAL without waiting on the busy timeout.
template <typename Fn>
auto Database::write(const char* operation, Fn&& fn) {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    SQLite::Transaction tx(*db_, SQLite::TransactionBehavior::IMMEDIATE);
    if constexpr (std::is_void_v<std::invoke_result_t<Fn&, SQLite::Database&>>) {
      fn(*db_);
      tx.commit();
    } else {
      auto result = fn(*db_);
      tx.commit();
      return result;
    }
  } catch (const SQLite::Exception& e) {
    throw detail::make_error(operation, path_, e);
  }
}

template <typename Fn>
auto Database::read(const char* operation, Fn&& fn) const {
  const std::lock_guard<std::recursive_mutex> lock(mutex_);
  try {
    return fn(*db_);
  } catch (const SQLite::Exception& e) {
    throw detail::make_error(operation, path_, e);
  }
}

}  // namespace histtune::db
