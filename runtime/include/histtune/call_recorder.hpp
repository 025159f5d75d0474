// Recording what programs call: the dispatcher hands each shape whose first call resolved below
// `exact` and `same_model` (tuned_for_model) to a CallRecorder, which keeps it, with its call
// count, as a pending problem in the tuning database, or in the side file beside it where the
// database cannot take it, for `histtune tune --pending` (docs/tuning.md, "Record, then tune").
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>

#include "histtune/db/database.hpp"
#include "histtune/device.hpp"
#include "histtune/problem.hpp"

namespace histtune {

enum class LookupLevel;  // dispatcher.hpp

class CallRecorder {
 public:
  // Records into `database` when given (it must outlive the recorder), else, or once the database
  // has refused a write (read-only, locked, full), into the side file `side_path`; an empty
  // side_path records nowhere else.
  CallRecorder(db::Database* database, std::string side_path);
  // Flushes what is left.
  ~CallRecorder();
  CallRecorder(const CallRecorder&) = delete;
  CallRecorder& operator=(const CallRecorder&) = delete;

  // The first call of p's shape on d, resolved at `level` (below same_model): counted once, then
  // flushed at once, so that a crash later loses at most counts. Returns the counter that the
  // shape's later calls add to (valid while the recorder lives; a relaxed increment is all a
  // warm call pays), or null for a problem without samples, which is not worth tuning. Never
  // throws.
  std::atomic<std::uint64_t>* first_call(const DeviceInfo& d, const Problem& p,
                                         LookupLevel level) noexcept;
  // Writes the calls counted since the last flush. Recording never fails a call: where neither
  // the database nor the side file takes the rows they are dropped, and the first failure is said
  // once on stderr (unless $HISTTUNE_LOG is 0). Never throws.
  void flush() noexcept;

  // Where the next flush writes: "database", the side file's path, or "" (nowhere).
  std::string destination() const;

 private:
  struct Entry {
    db::PendingRow row;
    std::atomic<std::uint64_t> calls{0};
    std::uint64_t flushed = 0;  // of calls, written so far
  };
  bool write_rows(const std::vector<db::PendingRow>& rows);

  mutable std::mutex mutex_;
  std::deque<Entry> entries_;  // never erased: the counters' addresses stay valid
  db::Database* database_ = nullptr;
  std::string side_path_;
  bool database_failed_ = false;
  bool side_failed_ = false;
  bool said_ = false;  // the one line on stderr
};

// Whether recording is on unless an option says: $HISTTUNE_RECORD unset, empty or anything but
// 0, off or false.
bool record_from_env();

}  // namespace histtune
