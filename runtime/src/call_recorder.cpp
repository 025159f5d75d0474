// Pending problems, recorded from the first call of each shape below `exact`: see
// call_recorder.hpp.
#include "histtune/call_recorder.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>
#include <vector>

#include "histtune/dispatcher.hpp"
#include "log.hpp"

namespace histtune {

bool record_from_env() {
  const char* v = std::getenv("HISTTUNE_RECORD");
  return !(v && (!std::strcmp(v, "0") || !std::strcmp(v, "off") || !std::strcmp(v, "false")));
}

CallRecorder::CallRecorder(db::Database* database, std::string side_path)
    : database_(database), side_path_(std::move(side_path)) {}

CallRecorder::~CallRecorder() { flush(); }

std::atomic<std::uint64_t>* CallRecorder::first_call(const DeviceInfo& d, const Problem& p,
                                                     LookupLevel level) noexcept {
  if (p.total_samples() == 0 || d.uuid.empty()) return nullptr;
  std::atomic<std::uint64_t>* counter = nullptr;
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    Entry& e = entries_.emplace_back();
    e.row.device_uuid = d.uuid;
    e.row.device_name = d.name;
    e.row.problem = p.key();
    if (p.binning == Binning::even) {  // what the tuner draws its inputs over
      e.row.lower = p.lower;
      e.row.upper = p.upper;
    }
    e.row.level = to_string(level);
    e.calls.store(1, std::memory_order_relaxed);
    counter = &e.calls;
  } catch (...) {
    return nullptr;  // out of memory: this shape goes unrecorded, the call goes on
  }
  flush();
  return counter;
}

void CallRecorder::flush() noexcept {
  try {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<db::PendingRow> rows;
    std::vector<std::pair<Entry*, std::uint64_t>> taken;
    for (Entry& e : entries_) {
      const std::uint64_t now = e.calls.load(std::memory_order_relaxed);
      if (now == e.flushed) continue;
      rows.push_back(e.row);
      rows.back().calls = now - e.flushed;
      taken.emplace_back(&e, now);
    }
    if (rows.empty()) return;
    write_rows(rows);
    // Written or dropped: either way these calls are done with.
    for (auto& [e, now] : taken) e->flushed = now;
  } catch (...) {
    // Recording must never fail a call, nor a destructor.
  }
}

// Under mutex_. The database first, then the side file; each is given up on its first failure.
bool CallRecorder::write_rows(const std::vector<db::PendingRow>& rows) {
  std::string why;
  if (database_ && !database_failed_) {
    try {
      database_->add_pending(rows);
      return true;
    } catch (const std::exception& e) {
      database_failed_ = true;
      why = std::string("the tuning database refused them (") + e.what() + ")";
    }
  }
  if (!side_path_.empty() && !side_failed_) {
    try {
      std::error_code ec;  // a first record may come before any tuning made the folder
      std::filesystem::create_directories(std::filesystem::path(side_path_).parent_path(), ec);
      db::append_pending_file(side_path_, rows);
      if (!why.empty() && !said_ && log_level() >= 1)
        std::fprintf(stderr, "histtune: recording untuned calls in %s: %s\n", side_path_.c_str(),
                     why.c_str());
      said_ = true;
      return true;
    } catch (const std::exception& e) {
      side_failed_ = true;
      why += (why.empty() ? "" : "; ") + std::string(e.what());
    }
  }
  if (!said_ && log_level() >= 1)
    std::fprintf(stderr, "histtune: not recording untuned calls: %s\n",
                 why.empty() ? "nowhere to record them" : why.c_str());
  said_ = true;
  return false;
}

std::string CallRecorder::destination() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (database_ && !database_failed_) return "database";
  if (!side_path_.empty() && !side_failed_) return side_path_;
  return "";
}

}  // namespace histtune
