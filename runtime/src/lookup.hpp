// The dispatcher's graded lookup (see Dispatcher::lookup), over any family.
#pragma once

#include <mutex>
#include <string>

#include "histtune/dispatcher.hpp"

namespace histtune {

// Where the lookup reads: a database (null: none) behind its mutex, and what to say without one.
struct LookupSource {
  db::Database* database = nullptr;
  std::mutex* mutex = nullptr;
  bool strict = false;
  std::string db_path;
  std::string db_error;
};

FamilyChoice graded_lookup(const LookupSource& src, const DeviceInfo& d, const Problem& p);

}  // namespace histtune
