// `histtune explain --problem SPEC`: which configuration a call would run, and why, by the
// dispatcher's own lookup (Dispatcher::lookup) on a read-only database. Needs no GPU: the device
// is this machine's GPU, a device stored in the database (--device) or an architecture (--arch).
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "command.hpp"
#include "histtune/dispatcher.hpp"
#include "histtune/jit.hpp"
#include "histtune/kernel_resources.hpp"
#include "histtune/status.hpp"
#include "histtune/version.hpp"
#include "json_out.hpp"
#include "options.hpp"
#include "standing.hpp"

namespace histtune::cli {
namespace {

struct ExplainValues {
  std::string problem, device, arch;
  std::string cubin;  // --cubin: where the compiled kernel goes
  bool strict = false;
  bool resources = false;
};

const char* level_meaning(LookupLevel level) {
  switch (level) {
    case LookupLevel::exact: return "tuned on this device for exactly this problem";
    case LookupLevel::same_model:
      return "tuned for exactly this problem on another board of this model";
    case LookupLevel::nearest_shape:
      return "tuned on this device for the nearest bins and n (same type and binning)";
    case LookupLevel::same_arch: return "tuned on another device of the same architecture";
    case LookupLevel::builtin_default: return "nothing usable stored: the built-in default";
  }
  return "";
}

// A stored device as the lookup sees it: its architecture's limits, its own SMs and memory,
// and this machine's driver (what a call here would be judged against; 0: none, not compared).
DeviceInfo stored_device(const db::DeviceRow& row) {
  std::optional<DeviceInfo> d = describe_arch(row.cc_major, row.cc_minor);
  if (!d)
    throw Error(StatusCode::invalid_argument,
                "--device " + row.uuid + " is sm_" + std::to_string(row.cc_major) +
                    std::to_string(row.cc_minor) + ", whose limits histtune does not know");
  d->name = row.name;
  d->uuid = row.uuid;
  d->sm_count = row.sm_count;
  d->memory_bytes = row.memory_bytes;
  d->l2_bytes = row.l2_bytes;
  d->driver_version = local_driver_version();
  return *d;
}

DeviceInfo arch_device(const std::string& arch) {
  int cc = -1;
  if (arch.rfind("sm_", 0) == 0 && arch.size() >= 5 && arch.size() <= 6 &&
      arch.find_first_not_of("0123456789", 3) == std::string::npos)
    cc = std::stoi(arch.substr(3));
  std::optional<DeviceInfo> d;
  if (cc > 0) d = describe_arch(cc / 10, cc % 10);
  if (!d)
    throw Error(StatusCode::invalid_argument,
                "--arch '" + arch + "': expected sm_XY of a known architecture (sm_70, sm_75, "
                "sm_80, sm_86, sm_87, sm_89, sm_90, sm_100, sm_120)");
  d->driver_version = local_driver_version();
  return *d;
}

// --device, else --arch, else this machine's GPU, else the database's only device.
DeviceInfo explained_device(const Common& c, const ExplainValues& v, std::string& source) {
  if (!v.arch.empty()) {
    source = "--arch " + v.arch;
    return arch_device(v.arch);
  }
  std::vector<db::DeviceRow> stored;
  const std::string path = resolve_db_path(c);
  if (std::filesystem::exists(path)) stored = open_db_read_only(c)->devices();
  const std::string known =
      join(stored, [](const db::DeviceRow& d) { return d.uuid + " (" + d.name + ")"; });
  if (!v.device.empty()) {
    for (const auto& d : stored)
      if (d.uuid == v.device) return source = "stored in the database", stored_device(d);
    throw Error(StatusCode::invalid_argument, "--device " + v.device + " is not in " + path +
                                                  " (it holds: " +
                                                  (known.empty() ? "none" : known) + ")");
  }
  try {
    source = "this machine's GPU";
    return select_device(c);
  } catch (const Error& e) {
    if (e.code() != StatusCode::no_device) throw;
    if (stored.size() != 1)
      throw Error(StatusCode::invalid_argument,
                  std::string(e.what()) + ": name a device with --device UUID (" +
                      (known.empty() ? "the database holds none" : "stored: " + known) +
                      ") or --arch sm_XY");
  }
  source = "the database's only device (no GPU here)";
  return stored_device(stored.front());
}

// The chosen configuration's program compiled by NVRTC for the device's architecture (no GPU).
std::vector<char> compiled_cubin(const FamilyChoice& choice, const Problem& p,
                                 const DeviceInfo& d) {
  return compile(choice.family->request(choice.config, p, d.arch())).cubin;
}

// --cubin FILE: the CUBIN as NVRTC made it, for `cuobjdump -sass` or `nvdisasm`.
void write_cubin(const std::vector<char>& cubin, const std::string& path) {
  std::ofstream out(path, std::ios::binary);
  out.write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
  out.close();
  if (!out) throw Error(StatusCode::invalid_argument, "cannot write --cubin file " + path);
}

// --resources: what the CUBIN says the kernel (the family's kernel_name()) asks of an SM.
KernelResources compiled_resources(const FamilyChoice& choice, const std::vector<char>& cubin,
                                   const DeviceInfo& d) {
  const std::optional<KernelResources> r = kernel_resources(cubin, choice.family->kernel_name());
  if (!r)
    throw Error(StatusCode::internal,
                std::string("explain --resources: no register count for ") +
                    choice.family->kernel_name() + " in the CUBIN of " + choice.label() +
                    " (sm_" + std::to_string(d.arch()) + ", NVRTC " + nvrtc_version() + ")");
  return *r;
}

// The detail's parts: what was matched or why it fell back, then each skipped row and the
// unverified note, one per line.
std::vector<std::string> detail_lines(const std::string& detail) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (true) {
    std::size_t next = std::string::npos;
    for (const char* mark : {"; skipped ", "; unverified: ", "; database lookup failed: "}) {
      const std::size_t at = detail.find(mark, from);
      if (at < next) next = at;
    }
    out.push_back(detail.substr(from, next - from));
    if (next == std::string::npos) return out;
    from = next + 2;
  }
}

int run_explain(const Common& c, const ExplainValues& v) {
  const Problem p = parse_problem(v.problem);
  std::string source;
  const DeviceInfo d = explained_device(c, v, source);
  DispatcherOptions options;
  options.db_path = resolve_db_path(c);
  options.read_only = true;
  if (v.strict) options.strict = true;
  const Dispatcher dispatcher(options);
  const FamilyChoice choice = dispatcher.lookup(d, p);
  const std::vector<std::string> lines = detail_lines(choice.detail);
  std::optional<KernelResources> res;
  if (v.resources || !v.cubin.empty()) {
    const std::vector<char> cubin = compiled_cubin(choice, p, d);
    if (!v.cubin.empty()) write_cubin(cubin, v.cubin);
    if (v.resources) res = compiled_resources(choice, cubin, d);
  }
  if (c.json) {
    nlohmann::json resources = nullptr;
    if (res)
      resources = {{"kernel", choice.family->kernel_name()}, {"registers", res->registers},
                   {"local_bytes", res->local_bytes}, {"shared_bytes", res->shared_bytes},
                   {"nvrtc", nvrtc_version()}};
    nlohmann::json dev = {{"name", d.name}, {"uuid", d.uuid},
                          {"arch", "sm_" + std::to_string(d.arch())}, {"source", source}};
    print_json({{"histtune", version()}, {"command", "explain"},
                {"database", dispatcher.db_path()}, {"strict", dispatcher.strict()},
                {"problem", p.describe()}, {"device", dev}, {"family", choice.family->name()},
                {"configuration", choice.label()}, {"level", to_string(choice.level)},
                {"unverified", choice.unverified}, {"stale", choice.stale},
                {"detail", lines},
                {"resources", resources},
                {"cubin", v.cubin.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.cubin)}});
    return kOk;
  }
  std::printf("problem   %s\n", p.describe().c_str());
  std::printf("device    %s%s%s, sm_%d: %s\n", d.name.c_str(), d.uuid.empty() ? "" : " ",
              d.uuid.c_str(), d.arch(), source.c_str());
  std::printf("database  %s%s\n", dispatcher.db_path().c_str(),
              dispatcher.strict() ? " (strict: unverified rows skipped)" : "");
  std::printf("runs      %s\n", choice.label().c_str());
  std::printf("level     %s: %s\n", to_string(choice.level), level_meaning(choice.level));
  if (choice.unverified) std::printf("unverified  recorded under %s\n", choice.stale.c_str());
  std::printf("why       %s\n", lines.front().c_str());
  for (std::size_t i = 1; i < lines.size(); ++i) std::printf("          %s\n", lines[i].c_str());
  if (res)
    std::printf("kernel    %s: %d registers a thread, %d bytes of local memory a thread, %d bytes "
                "of static shared memory a block (NVRTC %s, sm_%d)\n",
                choice.family->kernel_name(), res->registers, res->local_bytes, res->shared_bytes,
                nvrtc_version().c_str(), d.arch());
  if (!v.cubin.empty())
    std::printf("cubin     %s (sm_%d, NVRTC %s)\n", v.cubin.c_str(), d.arch(),
                nvrtc_version().c_str());
  return kOk;
}

void declare(CLI::App* app, Common& common, ExplainValues& v) {
  add_common(app, common, kGpu | kDb | kJson, {"print the answer as JSON"});
  app->add_option("--problem", v.problem, "the call's problem, TYPE:BINNING:BINS:N")
      ->type_name("SPEC")
      ->required();
  auto* device = app->add_option("--device", v.device, "a device stored in the database")
                     ->type_name("UUID");
  app->add_option("--arch", v.arch, "any device of this architecture (no GPU, no stored device)")
      ->type_name("sm_XY")
      ->excludes(device);
  app->add_flag("--resources", v.resources,
                "also compile the configuration's kernel with NVRTC for the device's\n"
                "architecture (no GPU) and print its registers and local memory a thread\n"
                "and its static shared memory a block");
  app->add_option("--cubin", v.cubin,
                  "also write the configuration's kernel, compiled with NVRTC for the device's\n"
                  "architecture (no GPU), to FILE: a CUBIN to read with cuobjdump -sass")
      ->type_name("FILE");
  app->add_flag("--strict", v.strict,
                "skip rows recorded under another driver, NVRTC or histtune, as\n"
                "HISTTUNE_STRICT=1 does");
}

}  // namespace

Command explain_command() {
  return {"explain", "which configuration a call would run, and why (needs no GPU)",
          "Runs the dispatcher's lookup on the database, read-only: the configuration, the\n"
          "level it was found at (exact, same_model, nearest_shape, same_arch, default), what\n"
          "was matched, and every stored row skipped on the way (stale: another kernel\n"
          "template; unverified with --strict: another driver, NVRTC or histtune) and why. The\n"
          "device: --device UUID (one stored in the database), --arch sm_XY (any of that\n"
          "architecture: its limits and its stored devices), else this machine's GPU, else the\n"
          "database's only device. --resources adds what the kernel asks of an SM (registers\n"
          "and local memory a thread, static shared memory a block, from the CUBIN NVRTC\n"
          "compiles for that architecture);\n"
          "--cubin FILE writes that CUBIN (its machine code: cuobjdump -sass FILE).",
          bind_values<ExplainValues>(declare, run_explain)};
}

}  // namespace histtune::cli
