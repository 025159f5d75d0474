// What the database tests share: rows to store, a fresh folder per test, and old databases built
// from the SQL fixtures in tests/db/fixtures (HISTTUNE_DB_FIXTURES).
#pragma once

#include "histtune/db/database.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>

namespace histtune::db::test {

namespace fs = std::filesystem;

inline DeviceRow make_device(const std::string& uuid, int cc_major = 9, int cc_minor = 0) {
  // Aggregate init of the nine v1 fields, as callers outside db/ do.
  DeviceRow d{uuid, "NVIDIA H100 80GB HBM3", cc_major, cc_minor, 132, 85'000'000'000LL,
              52'428'800, 13000, 12080};
  return d;
}

inline ProblemRow make_problem(std::uint32_t num_bins, std::uint64_t n,
                               const std::string& family = "shared",
                               const std::string& sample_type = "u8",
                               const std::string& binning = "even") {
  ProblemRow p;
  p.family = family;
  p.sample_type = sample_type;
  p.binning = binning;
  p.num_bins = num_bins;
  p.n = n;
  return p;
}

inline MeasurementRow make_measurement(const std::string& label, double median_ms,
                                       const std::string& hash = "abc123",
                                       const std::string& version = "0.2.0") {
  MeasurementRow m;
  m.config_label = label;
  m.params_json = "{\"label\":\"" + label + "\"}";
  m.median_ms = median_ms;
  m.min_ms = median_ms * 0.9;
  m.max_ms = median_ms * 1.2;
  m.samples = 50;
  m.verified = true;
  m.template_hash = hash;
  m.histtune_version = version;
  return m;
}

// A hist1d problem of schema v3, with channels.
inline ProblemRow problem(std::uint32_t bins, std::uint64_t n, std::uint32_t channels = 1,
                          std::uint32_t active = 0) {
  // Aggregate init of the five v2 fields, as Problem::key() does; channels by assignment.
  ProblemRow p{"hist1d", "u8", "direct", bins, n};
  p.channels = channels;
  p.active_channels = active;
  return p;
}

// A measurement on the input distribution `dist`.
inline MeasurementRow measurement(const std::string& label, double ms, const std::string& dist,
                                  const std::string& hash = "h3") {
  MeasurementRow m;
  m.config_label = label;
  m.params_json = "{}";
  m.median_ms = ms;
  m.min_ms = ms * 0.9;
  m.max_ms = ms * 1.1;
  m.samples = 10;
  m.verified = true;
  m.template_hash = hash;
  m.histtune_version = "0.3.0";
  m.distribution = dist;
  return m;
}

// A winner of distribution `dist` (kAnyDistribution: the robust one).
inline WinnerRow chosen(const std::string& label, double ms, const std::string& dist,
                        const std::string& hash = "h3") {
  WinnerRow w;
  w.config_label = label;
  w.median_ms = ms;
  w.template_hash = hash;
  w.histtune_version = "0.3.0";
  w.distribution = dist;
  return w;
}

// A small database: two devices, two problems, measurements and winners.
inline void fill(Database& db) {
  const ProblemRow p1 = make_problem(256, 1 << 20);
  const ProblemRow p2 = make_problem(64, 4096);
  DeviceRow a = make_device("GPU-a");
  a.memory_clock_khz = 2'619'000;
  a.nvrtc_version = "12.8";
  db.record_measurements(a, p1, {make_measurement("tpb256.ipt4", 0.5),
                                 make_measurement("tpb128.ipt8", 0.7)});
  db.set_winner(a, p1, "tpb256.ipt4", 0.5, "abc123", "0.2.0");
  db.record_measurements(a, p2, {make_measurement("tpb64.ipt1", 0.01)});
  db.record_measurements(make_device("GPU-b"), p1, {make_measurement("tpb512.ipt2", 0.4)});
  db.set_winner(make_device("GPU-b"), p1, "tpb512.ipt2", 0.4, "abc123", "0.2.0");
}

// A baseline as compare stores it since schema 4: the default and CUB with their spreads.
inline BaselineRow baseline_with_spreads() {
  BaselineRow b;
  b.default_ms = 0.4;
  b.default_min_ms = 0.38;
  b.default_max_ms = 0.47;
  b.cub_ms = 0.25;
  b.cub_min_ms = 0.2;
  b.cub_max_ms = 0.31;
  return b;
}

// A schema-v3 database: input distributions, their winners and a multi-channel problem.
inline void fill_v3(Database& db) {
  const DeviceRow d = make_device("GPU-a");
  const ProblemRow p = problem(256, 1 << 24);
  const ProblemRow px = problem(256, 1 << 26, 4, 3);  // exported after p
  db.record_measurements(d, p, {measurement("a", 1.0, "uniform"), measurement("a", 3.0, "constant"),
                                measurement("b", 1.2, "constant")});
  db.set_winners(d, p, chosen("b", 1.1, "any"),
                 {chosen("a", 1.0, "uniform"), chosen("b", 1.2, "constant")});
  db.record_measurements(d, px, {measurement("c", 0.5, "uniform")});
  db.set_winner(d, px, "c", 0.5, "h3", "0.3.0");
}

inline std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Builds a database the way an older histtune left it: runs the fixture files in order (the
// schema, any migration of its time, then data_vN.sql with its meta row and user_version).
inline void build_from_fixtures(const fs::path& path, std::initializer_list<const char*> files) {
  SQLite::Database raw(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  for (const char* name : files) {
    const std::string sql = read_bytes(fs::path(HISTTUNE_DB_FIXTURES) / name);
    ASSERT_FALSE(sql.empty()) << "missing fixture " << name;
    raw.exec(sql);
  }
}

// A fresh folder per test, removed afterwards.
class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "histtune_db_test_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path dir_;
};

// One class per suite name (gtest wants one fixture class per suite across the binary).
class TempDirTest : public TempDir {};
class DatabaseV2File : public TempDir {};

class DatabaseV3File : public TempDir {
 protected:
  // A version-2 file with one device, two problems, measurements, a winner and a baseline.
  fs::path make_v2_file() {
    const fs::path path = dir_ / "v2.db";
    build_from_fixtures(path, {"schema_v1.sql", "migrate_v1_to_v2.sql", "data_v2.sql"});
    return path;
  }
};

class DatabaseV4File : public TempDir {
 protected:
  // A version-3 file: a 1D and a multi-channel problem, winners and baselines with medians only.
  fs::path make_v3_file() {
    const fs::path path = dir_ / "v3.db";
    build_from_fixtures(path, {"schema_v1.sql", "migrate_v1_to_v2.sql", "migrate_v2_to_v3.sql",
                               "data_v3.sql"});
    return path;
  }
};

class DatabaseV5File : public TempDir {
 protected:
  // A version-4 file: the version-3 rows, then the spread columns of version 4.
  fs::path make_v4_file() {
    const fs::path path = dir_ / "v4.db";
    build_from_fixtures(path, {"schema_v1.sql", "migrate_v1_to_v2.sql", "migrate_v2_to_v3.sql",
                               "data_v3.sql", "migrate_v3_to_v4.sql"});
    return path;
  }
};

}  // namespace histtune::db::test
