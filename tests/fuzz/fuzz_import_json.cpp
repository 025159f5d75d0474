// libFuzzer target: Database::import_json of untrusted text, the path of `histtune import`.
// Besides crashes, hangs and sanitizer reports, it fails (abort) when
//  - an import that throws changed the database (import_json promises all or nothing);
//  - after an import that succeeded, the export does not import into a fresh database, or that
//    database exports differently (an export must carry everything it shows);
//  - importing the same document a second time changes the database (identical measurements
//    are skipped, only faster winners and later baselines replace).
// Every input starts from a database that holds the seed below, so "unchanged" means something.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "histtune/db/database.hpp"

namespace {

using histtune::db::Database;
using histtune::db::DbError;

// One device and one result that touches every table: measurements on two distributions (two
// configurations), both kinds of winner and a baseline. Small: every refused input exports it.
constexpr const char* kSeed = R"json({
 "format": "histtune-db", "format_version": 2, "histtune_version": "0.1.0",
 "exported_at": "2025-01-31T12:00:00.000Z",
 "devices": [{"uuid": "GPU-seed", "name": "Seed H100", "cc_major": 9, "cc_minor": 0,
   "sm_count": 132, "memory_bytes": 85017493504, "l2_bytes": 52428800,
   "driver_version": 13000, "runtime_version": 13000, "memory_clock_khz": 2619000,
   "nvrtc_version": "13.0"}],
 "results": [
  {"device": "GPU-seed",
   "problem": {"family": "hist1d", "sample_type": "u8", "binning": "direct", "num_bins": 256,
               "n": 16777216, "channels": 1, "active_channels": 0},
   "measurements": [
    {"config_label": "tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad0.bps8", "params": {"block_threads": 256},
     "median_ms": 0.05, "min_ms": 0.049, "max_ms": 0.051, "samples": 10, "verified": true,
     "template_hash": "h1", "histtune_version": "0.1.0", "distribution": "uniform"},
    {"config_label": "tpb512.vpt2.vec16.pc2.lay0.agg1.u2.pad1.bps4", "params": {"block_threads": 512},
     "median_ms": 0.04, "min_ms": 0.039, "max_ms": 0.041, "samples": 10, "verified": true,
     "template_hash": "h1", "histtune_version": "0.1.0", "distribution": "skewed"}],
   "winner": {"config_label": "tpb512.vpt2.vec16.pc2.lay0.agg1.u2.pad1.bps4", "median_ms": 0.04,
              "template_hash": "h1", "histtune_version": "0.1.0"},
   "winners_by_distribution": [
    {"distribution": "uniform", "config_label": "tpb256.vpt1.vec0.pc1.lay0.agg0.u0.pad0.bps8",
     "median_ms": 0.05, "template_hash": "h1", "histtune_version": "0.1.0"}],
   "baseline": {"default_ms": 0.06, "cub_ms": 0.045, "floor_ms": null, "read_gbps": 3000.0,
                "measured_at": "2025-01-31T12:00:00.000Z"}}]
})json";

[[noreturn]] void fail(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_import_json: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// An export without its own time, which differs between any two calls.
std::string without_time(const std::string& exported) {
  nlohmann::json doc = nlohmann::json::parse(exported);
  doc.erase("exported_at");
  return doc.dump(1);
}

std::string snapshot(const Database& db) { return without_time(db.export_json()); }

std::unique_ptr<Database> seeded() {
  auto db = std::make_unique<Database>(":memory:");
  db->import_json(kSeed);
  return db;
}

// Imports `text` into `db` and checks that it becomes `expected` (an export without its time).
void import_expecting(Database& db, const std::string& text, const std::string& expected,
                      const char* what) {
  try {
    db.import_json(text);
  } catch (const DbError& e) {
    fail(what, std::string("it throws: ") + e.what());
  }
  if (const std::string got = snapshot(db); got != expected)
    fail(what, "expected\n" + expected + "\n--- got\n" + got);
}

// What must hold after `text` imported into `db`.
void check_success(Database& db, const std::string& text) {
  const std::string exported = db.export_json();
  const std::string after = without_time(exported);
  Database fresh(":memory:");
  import_expecting(fresh, exported, after, "export -> import into a fresh database differs");
  import_expecting(db, text, after, "importing the same document twice changed the database");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Holds the seed whenever an input starts: refused imports must leave it so (checked), and
  // a successful one is followed by a fresh copy.
  static std::unique_ptr<Database> db = seeded();
  static const std::string seed_snapshot = snapshot(*db);
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    db->import_json(text);
  } catch (const DbError& e) {
    const std::string now = snapshot(*db);
    if (now != seed_snapshot)
      fail("a failed import changed the database", std::string(e.what()) + "\n" + now);
    return 0;
  }
  check_success(*db, text);
  db = seeded();
  return 0;
}
