// The tuning database: devices, problems, configurations, every measurement and the winner per
// (device, problem), stored in SQLite through SQLiteCpp. This layer knows nothing of CUDA: devices
// and configurations arrive as plain rows, configurations as their label (the key) plus JSON params.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace SQLite { class Database; }

namespace histtune::db {

// Thrown for every storage failure; the message names the SQLite call, the database path and
// SQLite's own error text.
class DbError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct DeviceRow {
  std::string uuid;  // the device's UUID string ("GPU-..."): the device key
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  std::int64_t memory_bytes = 0;
  std::int64_t l2_bytes = 0;
  int driver_version = 0;   // as cudaDriverGetVersion reports it, e.g. 13000
  int runtime_version = 0;  // as cudaRuntimeGetVersion reports it
  std::int64_t memory_clock_khz = 0;  // peak memory clock; 0 where unknown (schema v2)
  // e.g. "12.8"; kernels compiled by another NVRTC may differ. The initializer keeps callers that
  // aggregate-initialise the v1 fields free of -Wmissing-field-initializers.
  std::string nvrtc_version{};
};

// Two boards of one model: the same name, compute capability, SM count and memory size (as the
// driver reports it; the clocks and driver may differ). A winner tuned on one serves the others
// at the lookup level `same_model`, and `histtune tune --gpu all` splits a plan between them.
inline bool same_model(const DeviceRow& a, const DeviceRow& b) {
  return a.name == b.name && a.cc_major == b.cc_major && a.cc_minor == b.cc_minor &&
         a.sm_count == b.sm_count && a.memory_bytes == b.memory_bytes;
}

// One problem: which kernel family, the sample type ("u8", "u16", "u32", "i32", "f32", "i8",
// "i16", "f16", "bf16", "i64", "u64", "f64"), the binning ("direct" or "even"), the bin count and the sample count; for multi-channel
// problems (schema v3) the channels per row and how many of them are histogrammed (0: not a
// multi-channel problem). All seven fields are the key.
struct ProblemRow {
  std::string family;
  std::string sample_type;
  std::string binning;
  std::uint32_t num_bins = 0;
  std::uint64_t n = 0;
  std::uint32_t channels = 1;
  std::uint32_t active_channels = 0;
  bool operator==(const ProblemRow& o) const {
    return family == o.family && sample_type == o.sample_type && binning == o.binning &&
           num_bins == o.num_bins && n == o.n && channels == o.channels &&
           active_channels == o.active_channels;
  }
};

// The distribution name of the robust winner (the `winners` table): the configuration with the
// best worst case over every distribution measured.
constexpr const char* kAnyDistribution = "any";

// One timed configuration of one problem on one device.
struct MeasurementRow {
  std::string config_label;  // e.g. "tpb256.ipt4.pc2.u1.pad1.bps8": the configuration key
  std::string params_json;   // the same configuration as a JSON object, for readers of the DB
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int samples = 0;
  bool verified = false;  // output matched the host reference exactly
  std::string template_hash;
  std::string histtune_version{};  // the build that measured it, so stale results can be pruned
  // The input data it was timed on ("uniform", "skewed", "constant", "runs", ...; schema v3).
  std::string distribution = "uniform";
};

// The chosen configuration of (device, problem): the robust one (distribution kAnyDistribution,
// the `winners` table), or the best for one input distribution (`distribution_winners`, v3).
struct WinnerRow {
  DeviceRow device;
  ProblemRow problem;
  std::string config_label;
  double median_ms = 0;
  std::string template_hash;
  std::string histtune_version{};
  std::string distribution = kAnyDistribution;
};

// What `histtune compare` measured beside the winner of one (device, problem), all in one run.
// Unset times were not measured (NULL in the database).
struct BaselineRow {
  ProblemRow problem;                // filled by the readers; set_baseline takes it as an argument
  std::optional<double> default_ms;  // the built-in default configuration
  std::optional<double> cub_ms;      // CUB's DeviceHistogram, where CUB can express the problem
  std::optional<double> floor_ms;    // input bytes / read_gbps
  std::optional<double> read_gbps;   // the read bandwidth measured in that run
  // The fastest and slowest call of the default and of CUB (schema v4); absent in rows stored
  // before, or where that one was not measured.
  std::optional<double> default_min_ms, default_max_ms;
  std::optional<double> cub_min_ms, cub_max_ms;
  std::string measured_at;  // set by the database
};

// A problem a program called that the runtime resolved below `exact` on one device (schema v5),
// with how often it was called: what `histtune tune --pending` tunes, most-called first.
struct PendingRow {
  std::string device_uuid;
  std::string device_name;
  ProblemRow problem;
  // Even binning's bounds, of the first call recorded (the key does not hold them); unset for the
  // other binnings.
  std::optional<double> lower{}, upper{};
  std::string level;  // the lookup level of the latest record: nearest_shape, same_arch, default
  std::uint64_t calls = 0;
  std::string first_seen{}, last_seen{};  // UTC; set by the database or the side file's writer
};

// Which winner stays where an imported one names another configuration than the stored one.
enum class WinnerRule {
  faster,    // the lower recorded median
  existing,  // the stored one: medians recorded in two runs (merge) are not comparable
};

// A (device, problem, distribution) whose stored and imported winners name different
// configurations, and which one the WinnerRule kept.
struct WinnerConflict {
  std::string device_uuid;
  ProblemRow problem;
  std::string distribution;  // kAnyDistribution: the robust winner
  std::string stored_label, imported_label;
  double stored_ms = 0, imported_ms = 0;
  std::string imported_template_hash, imported_histtune_version;
  bool imported_kept = false;
};

// What import_json / merge_from added: devices and problems not known before, measurements newly
// inserted (identical ones already present are skipped), winners and baselines set or replaced
// (by the WinnerRule, by a more recent baseline), and the winners that disagreed.
struct ImportSummary {
  std::size_t devices = 0, problems = 0, measurements = 0, winners = 0, baselines = 0;
  std::vector<WinnerConflict> conflicts{};
};

// What prune deleted, or with `dry_run` would delete, per table.
struct PruneSummary {
  std::size_t measurements = 0, winners = 0, distribution_winners = 0, problems = 0,
              configurations = 0;
  std::size_t total() const {
    return measurements + winners + distribution_winners + problems + configurations;
  }
};

// What prune keeps: measurements and winners whose template hash / histtune version differ from a
// given one are deleted (only of `device_uuid` when given, only of problems of `family` when
// given: each family's kernel has its own template hash). Unset fields keep everything.
struct PruneOptions {
  std::optional<std::string> keep_template_hash, keep_histtune_version, device_uuid;
  std::optional<std::string> family{};
  bool dry_run = false;  // count what would go, delete nothing
};

class Database {
 public:
  static constexpr int kSchemaVersion = 5;

  enum class OpenMode { kReadWrite, kReadOnly };

  // Opens (creating the file, its parent folders and the schema on first use) the database at
  // `path`; ":memory:" gives a private in-memory database. An older schema is migrated forward in
  // one transaction, keeping all data. A file whose schema is newer than kSchemaVersion, or that is
  // not a histtune database, is refused with DbError and left untouched. kReadOnly never writes
  // the file: an existing histtune database only; an older schema is migrated in a memory copy.
  explicit Database(const std::string& path, OpenMode mode = OpenMode::kReadWrite);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Where the database lives when no path is given: $HISTTUNE_DB if set and non-empty, else
  // $XDG_DATA_HOME/histtune/histtune.db, else $HOME/.local/share/histtune/histtune.db.
  static std::string default_path();

  const std::string& path() const { return path_; }
  int schema_version() const;

  // Inserts or updates (by uuid / by all key fields / by family+label) and returns the row id.
  std::int64_t upsert_device(const DeviceRow& device);
  std::int64_t upsert_problem(const ProblemRow& problem);
  std::int64_t upsert_config(const std::string& family, const std::string& label,
                             const std::string& params_json);

  // Stores the measurements of one problem in one transaction: all or none.
  void record_measurements(const DeviceRow& device, const ProblemRow& problem,
                           const std::vector<MeasurementRow>& rows);
  // Sets (replaces) the winner of (device, problem), in one transaction.
  void set_winner(const DeviceRow& device, const ProblemRow& problem, const std::string& label,
                  double median_ms, const std::string& template_hash,
                  const std::string& histtune_version = "");

  // Sets the robust winner (as set_winner does) and replaces every per-distribution winner of
  // (device, problem) by `by_distribution`, in one transaction. The rows' device and problem are
  // not read; each row's `distribution` names it (kAnyDistribution is not allowed there).
  void set_winners(const DeviceRow& device, const ProblemRow& problem, const WinnerRow& robust,
                   const std::vector<WinnerRow>& by_distribution);
  // The per-distribution winners of (device, problem), ordered by distribution.
  std::vector<WinnerRow> distribution_winners(const std::string& device_uuid,
                                              const ProblemRow& problem) const;
  // Every per-distribution winner of one device, ordered like winners(), then by distribution.
  std::vector<WinnerRow> distribution_winners(const std::string& device_uuid) const;
  // The winner for a caller that knows its data: the winner of `distribution` when one is
  // stored, else the robust winner (whose distribution reads kAnyDistribution); nullopt when the
  // problem has neither.
  std::optional<WinnerRow> winner_for(const std::string& device_uuid, const ProblemRow& problem,
                                      const std::string& distribution) const;

  std::optional<DeviceRow> device(const std::string& uuid) const;
  // Every device, ordered by name then uuid.
  std::vector<DeviceRow> devices() const;
  // Sets (replaces) the baselines of (device, problem), in one transaction; b.problem is not
  // read, `problem` says which. measured_at is set to now.
  void set_baseline(const DeviceRow& device, const ProblemRow& problem, const BaselineRow& b);
  std::optional<BaselineRow> baseline(const std::string& device_uuid, const ProblemRow& problem) const;
  // Every baseline of one device, ordered like winners().
  std::vector<BaselineRow> baselines(const std::string& device_uuid) const;
  std::optional<WinnerRow> winner(const std::string& device_uuid, const ProblemRow& problem) const;
  // Every winner of one device, ordered by family, sample type, binning, bins, n.
  std::vector<WinnerRow> winners(const std::string& device_uuid) const;
  // Winners of one device for problems of the same family, sample type, binning, channels and
  // active channels (any bins, n).
  std::vector<WinnerRow> winners_like(const std::string& device_uuid, const ProblemRow& like) const;
  // Winners of exactly `problem` on the other devices of `device`'s model (same_model; the
  // device itself excluded by UUID), ordered by UUID.
  std::vector<WinnerRow> winners_same_model(const DeviceRow& device,
                                            const ProblemRow& problem) const;
  // Winners on other devices of the same compute capability, same family, sample type, binning,
  // channels and active channels.
  std::vector<WinnerRow> winners_same_arch(int cc_major, int cc_minor,
                                           const std::string& exclude_uuid,
                                           const ProblemRow& like) const;
  // Every measurement of (device, problem), on every distribution, fastest first.
  std::vector<MeasurementRow> measurements(const std::string& device_uuid,
                                           const ProblemRow& problem) const;

  // Pending problems (schema v5). add_pending adds each row's calls to the stored row of its
  // (device, problem), inserting it where new (the bounds of the first row stay, the level is the
  // latest), in one transaction. A robust winner stored for (device, problem) by set_winner or
  // set_winners removes its pending row in the same transaction: it resolves `exact` from then on.
  void add_pending(const std::vector<PendingRow>& rows);
  // Every pending row (of one device when given), most-called first, then the latest seen.
  std::vector<PendingRow> pending(const std::optional<std::string>& device_uuid = std::nullopt) const;
  // Removes the pending row of (device, problem); returns whether there was one.
  bool clear_pending(const std::string& device_uuid, const ProblemRow& problem);
  // Moves the rows of a pending side file (see append_pending_file) into the table and removes
  // the file: renamed first, so that a program recording meanwhile starts a new one. Returns the
  // rows moved; a missing file moves none.
  std::size_t take_pending_file(const std::string& side_path);

  // Compiled kernels, kept across processes. The key is the caller's (it should cover arch, NVRTC
  // version, template hash and configuration); put replaces, in one transaction.
  void put_cubin(const std::string& cache_key, int arch, const std::string& nvrtc_version,
                 const std::string& template_hash, const std::string& label,
                 const std::vector<char>& image);
  std::optional<std::vector<char>> get_cubin(const std::string& cache_key) const;

  // The whole database (or one device's part) as JSON, format described in
  // docs/database-format.md. Cubins are not exported: they are rebuilt where they are needed.
  std::string export_json(const std::optional<std::string>& device_uuid = std::nullopt) const;
  // Validates the whole document first (a DbError names the JSON path of the first problem and
  // nothing is written), then stores it in one transaction. Identical measurements are skipped;
  // an imported winner (robust or per distribution) replaces an existing one only when it is
  // faster (by `rule`), an imported baseline only when it was measured later. Reads format
  // versions 1 and 2. An import that changes nothing writes nothing.
  ImportSummary import_json(const std::string& text, WinnerRule rule = WinnerRule::faster);
  // Imports the export of another database file, opened read-only: the same rules as import_json.
  ImportSummary merge_from(const std::string& other_db_path,
                           WinnerRule rule = WinnerRule::faster);
  // Deletes stale measurements and winners of either kind (see PruneOptions), then problems and
  // configurations nothing refers to any more, in one transaction; returns the rows deleted.
  std::size_t prune(const PruneOptions& options);
  // The same, counted per table; with options.dry_run everything is rolled back.
  PruneSummary prune_summary(const PruneOptions& options);

 private:
  // Every call on an open connection goes through one of these (defined in db/src/internal.hpp):
  // take mutex_, run fn(connection) and turn a SQLite failure into a DbError naming `operation`
  // and path_. write runs fn in one IMMEDIATE transaction, committed when fn returns.
  template <typename Fn>
  auto write(const char* operation, Fn&& fn);
  template <typename Fn>
  auto read(const char* operation, Fn&& fn) const;

  std::string path_;
  std::unique_ptr<SQLite::Database> db_;  // behind a pointer: SQLiteCpp stays out of this header
  // One connection serves every thread (the tuner's compile pool stores CUBINs while the main
  // thread stores measurements): a transaction must not interleave with another thread's calls.
  mutable std::recursive_mutex mutex_;
};

// The side file of pending problems, for a database that cannot take them (read-only, missing,
// unusable): `<database path>.pending`, text, one line per record, appended (docs/
// database-format.md). A crash can leave a partial last line, which readers skip.
std::string pending_file_path(const std::string& database_path);
// Appends the rows (their calls since the last append) in one write; throws DbError naming the
// file and the system's error when it cannot.
void append_pending_file(const std::string& side_path, const std::vector<PendingRow>& rows);
// The rows of a side file, as sum_pending sums them; a missing file has none. Lines it cannot
// read are skipped.
std::vector<PendingRow> read_pending_file(const std::string& side_path);
// One row per (device, problem): the calls summed, the earliest first_seen, the latest last_seen
// with its level and device name, the first row's bounds; ordered like Database::pending().
std::vector<PendingRow> sum_pending(const std::vector<PendingRow>& rows);

}  // namespace histtune::db
