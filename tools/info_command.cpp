// `histtune info`: the device, the toolchain, and where the database is and what it holds.
#include <cstdio>
#include <filesystem>

#include "commands.hpp"
#include "histtune/version.hpp"
#include "histtune/jit.hpp"

namespace histtune::cli {

int run_info(const Common& c) {
  const std::string path = resolve_db_path(c);
  std::printf("histtune %s, NVRTC %s\n", version(), nvrtc_version().c_str());
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    auto database = open_db(c);
    std::printf("database: %s (schema %d)\n", path.c_str(), database->schema_version());
  } else {
    std::printf("database: %s (not created yet)\n", path.c_str());
  }
  const DeviceInfo d = select_device(c);  // throws "no CUDA device" where there is none
  std::printf("GPU %d: %s, %s, sm_%d, %d SMs, %.1f GiB, L2 %.0f MiB, driver %d, runtime %d\n",
              d.ordinal, d.name.c_str(), d.uuid.c_str(), d.arch(), d.sm_count,
              d.memory_bytes / 1073741824.0, d.l2_bytes / 1048576.0, d.driver_version,
              d.runtime_version);
  if (std::filesystem::exists(path, ec)) {
    auto database = open_db(c);
    const auto winners = database->winners(d.uuid);
    std::printf("tuned problems on this GPU: %zu\n", winners.size());
    for (const auto& w : winners)
      std::printf("  %s %s %s bins=%u n=%llu -> %s (%s ms)\n", w.problem.family.c_str(),
                  w.problem.sample_type.c_str(), w.problem.binning.c_str(), w.problem.num_bins,
                  static_cast<unsigned long long>(w.problem.n), w.config_label.c_str(),
                  fmt_ms(w.median_ms).c_str());
  }
  return kOk;
}

}  // namespace histtune::cli
