#include "json_out.hpp"

#include <cstdio>

#include "common.hpp"
#include "histtune/family.hpp"
#include "histtune/version.hpp"
#include "histtune/weighted.hpp"

namespace histtune::cli {
namespace {
std::string arch_name(int cc_major, int cc_minor) {
  return "sm_" + std::to_string(cc_major * 10 + cc_minor);
}
}  // namespace

nlohmann::json device_json(const DeviceInfo& d) {
  return {{"ordinal", d.ordinal},           {"name", d.name},
          {"uuid", d.uuid},                 {"arch", arch_name(d.cc_major, d.cc_minor)},
          {"sm_count", d.sm_count},         {"memory_bytes", d.memory_bytes},
          {"l2_bytes", d.l2_bytes},         {"driver", d.driver_version},
          {"runtime", d.runtime_version}};
}

nlohmann::json device_json(const db::DeviceRow& d) {
  return {{"name", d.name},
          {"uuid", d.uuid},
          {"arch", arch_name(d.cc_major, d.cc_minor)},
          {"sm_count", d.sm_count},
          {"memory_bytes", d.memory_bytes},
          {"l2_bytes", d.l2_bytes},
          {"driver", d.driver_version},
          {"runtime", d.runtime_version},
          {"nvrtc", d.nvrtc_version}};
}

nlohmann::json problem_json(const db::ProblemRow& p) {
  nlohmann::json j = {{"spec", problem_spec(p)},      {"family", p.family},
                      {"sample_type", p.sample_type}, {"binning", p.binning},
                      {"num_bins", p.num_bins},       {"n", p.n}};
  if (const auto f = parse_family(p.family); f && family(*f).has_weights()) {
    Problem q;  // the weights and the shape, from their key columns (weighted::key_columns)
    q.family = *f;
    weighted::set_key_columns(q, p.channels, p.active_channels);
    j["weights"] = to_string(q.weight_type);
    if (weighted::form(q) == WeightedForm::rows) j["rows"] = q.rows;
    if (weighted::form(q) == WeightedForm::segments) j["segments"] = q.rows;
    if (weighted::form(q) == WeightedForm::channels) {
      j["channels"] = q.channels;
      j["active_channels"] = q.active_channels;
    }
  } else if (p.active_channels > 0) {  // 0: not a problem of channels (db::ProblemRow)
    j["channels"] = p.channels;
    j["active_channels"] = p.active_channels;
  } else if (const auto f = parse_family(p.family); f && family(*f).has_rows()) {
    j["rows"] = p.channels;  // the channels column holds a problem's rows
  }
  return j;
}

nlohmann::json timing_json(const tuner::Timing& t) {
  return {{"median_ms", t.median_ms}, {"min_ms", t.min_ms}, {"max_ms", t.max_ms},
          {"samples", t.samples}, {"hold_timeouts", t.hold_timeouts}};
}

void print_import_summary(const Common& c, const char* command, const std::string& database,
                          const db::ImportSummary& s, const nlohmann::json& source,
                          const std::string& what, const char* winners_note) {
  if (c.json) {
    nlohmann::json doc = {{"histtune", version()}, {"command", command}, {"database", database},
                          {"devices", s.devices},  {"problems", s.problems},
                          {"measurements", s.measurements}, {"winners", s.winners},
                          {"baselines", s.baselines}};
    doc.update(source);
    print_json(doc);
    return;
  }
  std::printf("histtune: %s: %zu devices, %zu problems, %zu new measurements, %zu winners set%s, "
              "%zu baselines set\n",
              what.c_str(), s.devices, s.problems, s.measurements, s.winners, winners_note,
              s.baselines);
}

void print_json(const nlohmann::json& doc) {
  // Names written by other tools may not be UTF-8; replace rather than fail the output.
  std::printf("%s\n", doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  std::fflush(stdout);
}

}  // namespace histtune::cli
