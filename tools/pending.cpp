// `--pending` of show and tune: see pending.hpp.
#include "pending.hpp"

#include <algorithm>
#include <filesystem>
#include <string>

#include "gpu_models.hpp"
#include "histtune/status.hpp"
#include "histtune/tuner/inputs.hpp"
#include "histtune/tuner/tuner.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"

namespace histtune::cli {
namespace {

// The --problem form of a row, with the first call's even bounds where recorded.
std::string pending_spec(const db::PendingRow& r) {
  std::string s = problem_spec(r.problem);
  if (r.lower && r.upper) s += ":" + printf_text("%.17g", *r.lower) + ":" + printf_text("%.17g", *r.upper);
  return s;
}

nlohmann::json pending_json(const db::PendingRow& r) {
  return {{"device", r.device_uuid},
          {"device_name", r.device_name},
          {"problem", problem_json(r.problem)},
          {"spec", pending_spec(r)},
          {"calls", r.calls},
          {"level", r.level},
          {"lower", r.lower ? nlohmann::json(*r.lower) : nlohmann::json()},
          {"upper", r.upper ? nlohmann::json(*r.upper) : nlohmann::json()},
          {"first_seen", r.first_seen},
          {"last_seen", r.last_seen}};
}

}  // namespace

int show_pending(const Common& c) {
  const std::string path = resolve_db_path(c);
  const std::string side = db::pending_file_path(path);
  std::vector<db::PendingRow> rows;
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) rows = open_db_read_only(c)->pending();
  const std::size_t in_database = rows.size();
  const std::vector<db::PendingRow> in_side = db::read_pending_file(side);
  rows.insert(rows.end(), in_side.begin(), in_side.end());
  rows = db::sum_pending(rows);
  if (c.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& r : rows) list.push_back(pending_json(r));
    print_json({{"histtune", version()},
                {"command", "show"},
                {"database", path},
                {"side_file", side},
                {"pending", list}});
    return kOk;
  }
  if (rows.empty()) {
    std::printf("nothing pending in %s nor %s\n", path.c_str(), side.c_str());
    return kOk;
  }
  std::printf("%zu pending problems (%zu rows in %s, %zu in %s), most-called first;\n"
              "`histtune tune --pending` tunes those of the GPU it runs on:\n",
              rows.size(), in_database, path.c_str(), in_side.size(), side.c_str());
  std::printf("  %12s  %-13s  %-40s  %s\n", "calls", "lookup", "problem", "device");
  for (const auto& r : rows)
    std::printf("  %12llu  %-13s  %-40s  %s (%s)\n", static_cast<unsigned long long>(r.calls),
                r.level.c_str(), pending_spec(r).c_str(), r.device_name.c_str(),
                r.device_uuid.c_str());
  return kOk;
}

namespace {

// The pending rows of the boards of one model, one per problem: their calls summed, the first
// row's bounds kept; most-called first (stable: the database's order among equals).
std::vector<db::PendingRow> model_pending(const db::Database& database,
                                          const std::vector<DeviceInfo>& model,
                                          std::size_t& rows_read) {
  std::vector<db::PendingRow> rows;
  rows_read = 0;
  for (const DeviceInfo& d : model)
    for (db::PendingRow& r : database.pending(d.uuid)) {
      ++rows_read;
      auto same = std::find_if(rows.begin(), rows.end(),
                               [&](const db::PendingRow& o) { return o.problem == r.problem; });
      if (same == rows.end())
        rows.push_back(std::move(r));
      else
        same->calls += r.calls;
    }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const db::PendingRow& a, const db::PendingRow& b) { return a.calls > b.calls; });
  return rows;
}

// "GPU 0", or "GPUs 0, 1".
std::string gpus_text(const std::vector<DeviceInfo>& model) {
  return (model.size() == 1 ? "GPU " : "GPUs ") +
         join(model, [](const DeviceInfo& d) { return std::to_string(d.ordinal); });
}

}  // namespace

std::vector<Problem> pending_plan(db::Database& database, const std::vector<DeviceInfo>& model,
                                  std::FILE* text, bool quiet) {
  const std::string side = db::pending_file_path(database.path());
  const std::size_t moved = database.take_pending_file(side);
  std::size_t rows_read = 0;
  const std::vector<db::PendingRow> rows = model_pending(database, model, rows_read);
  const std::size_t elsewhere = database.pending().size() - rows_read;
  std::vector<Problem> plan;
  std::uint64_t calls = 0;
  for (const auto& r : rows) {
    std::string why;
    try {
      const Problem p = tuner::problem_of_key(r.problem, r.lower, r.upper);
      why = validate(p);
      if (why.empty()) plan.push_back(p);
    } catch (const Error& e) {
      why = e.what();
    }
    if (why.empty())
      calls += r.calls;
    else
      std::fprintf(stderr, "histtune: skipping pending %s: %s\n", pending_spec(r).c_str(),
                   why.c_str());
  }
  if (quiet) return plan;
  if (moved)
    std::fprintf(text, "histtune: moved %zu pending rows from %s into the database\n", moved,
                 side.c_str());
  std::fprintf(text, "histtune: %zu pending problems on %s (%llu calls recorded), "
               "most-called first%s\n",
               plan.size(), gpus_text(model).c_str(), static_cast<unsigned long long>(calls),
               elsewhere ? (", " + std::to_string(elsewhere) +
                            " more recorded on other GPUs (--gpu tunes those)").c_str()
                         : "");
  return plan;
}

void clear_tuned(db::Database& database, const std::vector<DeviceInfo>& model,
                 const std::vector<Problem>& plan) {
  for (const Problem& p : plan)
    if (!model.empty() && model_winner(database, model.front(), p))
      for (const DeviceInfo& d : model) database.clear_pending(d.uuid, p.key());
}

}  // namespace histtune::cli
