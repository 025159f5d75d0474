#include "histtune/jit.hpp"

#include <nvrtc.h>

#include <algorithm>
#include <cstdio>
#include <future>
#include <sstream>

#include "histtune/compile_processes.hpp"
#include "histtune/db/database.hpp"
#include "histtune/detail/cuda_check.hpp"
#include "histtune/status.hpp"
#include "histtune/templates/registry.hpp"

namespace histtune {
namespace {

[[noreturn]] void throw_nvrtc(nvrtcResult r, const char* call, const CompileRequest& req,
                              const std::string& log) {
  std::ostringstream s;
  s << call << " failed: " << nvrtcGetErrorString(r) << "\n  template: " << req.template_name
    << "\n  configuration: " << req.label << "\n  arch: sm_" << req.arch << "\n  options:";
  for (const auto& d : req.defines) s << ' ' << d;
  if (!log.empty()) s << "\n  NVRTC log:\n" << log;
  throw Error(StatusCode::compile_error, s.str());
}

std::vector<std::string> options(const CompileRequest& req) {
  std::vector<std::string> o = {"--gpu-architecture=sm_" + std::to_string(req.arch),
                                "--std=c++17"};
  o.insert(o.end(), req.defines.begin(), req.defines.end());
  return o;
}

}  // namespace

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> nvrtc_archs() {
  int n = 0;
  if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS) return {};
  std::vector<int> archs(static_cast<std::size_t>(n));
  if (n > 0) nvrtcGetSupportedArchs(archs.data());
  return archs;
}

namespace {
const std::vector<int>& listed_archs() {
  static const std::vector<int> archs = nvrtc_archs();  // the NVRTC of this process: fixed
  return archs;
}
}  // namespace

bool nvrtc_compiles_for(int arch) {
  const std::vector<int>& archs = listed_archs();
  return archs.empty() || std::find(archs.begin(), archs.end(), arch) != archs.end();
}

std::string nvrtc_arch_span() {
  const std::vector<int>& archs = listed_archs();
  if (archs.empty()) return {};
  return "sm_" + std::to_string(archs.front()) + " to sm_" + std::to_string(archs.back());
}

std::string cache_key(const CompileRequest& req) {
  std::string k = templates::get(req.template_name).hash + "|sm_" + std::to_string(req.arch) +
                  "|nvrtc" + nvrtc_version() + "|";
  for (const auto& o : options(req)) k += o + " ";
  return k;
}

CompiledKernel compile(const CompileRequest& req) {
  if (auto in_child = compile_processes::compile(req)) return std::move(*in_child);
  return compile_here(req);
}

CompiledKernel compile_here(const CompileRequest& req) {
  // NVRTC's own answer for an architecture it dropped (CUDA 13: sm_70 and older) is "invalid
  // option": say which GPUs this NVRTC serves instead.
  if (!nvrtc_compiles_for(req.arch))
    throw Error(StatusCode::compile_error,
                "histtune: NVRTC " + nvrtc_version() + " cannot compile for sm_" +
                    std::to_string(req.arch) + " (" + req.label + "): it compiles for " +
                    nvrtc_arch_span() +
                    "; an older GPU needs the NVRTC of a CUDA toolkit that still supports it");
  const templates::Template& t = templates::get(req.template_name);
  const std::string source(t.source);
  nvrtcProgram prog = nullptr;
  std::vector<std::string> header_sources;
  std::vector<const char*> header_texts, header_names;
  const std::vector<std::string> names = templates::headers();
  for (const auto& h : names) header_sources.emplace_back(templates::get(h).source);
  for (std::size_t i = 0; i < names.size(); ++i) {
    header_texts.push_back(header_sources[i].c_str());
    header_names.push_back(names[i].c_str());
  }
  nvrtcResult r = nvrtcCreateProgram(&prog, source.c_str(), req.template_name.c_str(),
                                     static_cast<int>(names.size()), header_texts.data(),
                                     header_names.data());
  if (r != NVRTC_SUCCESS) throw_nvrtc(r, "nvrtcCreateProgram", req, "");
  const std::vector<std::string> opts = options(req);
  std::vector<const char*> argv;
  for (const auto& o : opts) argv.push_back(o.c_str());
  // Leaves out the runtime's device-side declarations (textures, surfaces, device runtime calls),
  // which no template uses: the front end takes a third less time and the CUBIN is the same, byte
  // for byte (docs/tuning.md, "A cold plan"), so it is no part of the cache key either.
  argv.push_back("--minimal");
  r = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  CompiledKernel out;
  std::size_t log_size = 0;
  if (nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    out.log.resize(log_size);
    nvrtcGetProgramLog(prog, out.log.data());
    out.log.resize(log_size - 1);
  }
  if (r != NVRTC_SUCCESS) {
    nvrtcDestroyProgram(&prog);
    throw_nvrtc(r, "nvrtcCompileProgram", req, out.log);
  }
  std::size_t size = 0;
  r = nvrtcGetCUBINSize(prog, &size);
  if (r == NVRTC_SUCCESS) {
    out.cubin.resize(size);
    r = nvrtcGetCUBIN(prog, out.cubin.data());
  }
  nvrtcDestroyProgram(&prog);
  if (r != NVRTC_SUCCESS) throw_nvrtc(r, "nvrtcGetCUBIN", req, out.log);
  return out;
}

KernelCache::~KernelCache() {
  for (auto& [key, e] : entries_) {
    cudaError_t err = cudaLibraryUnload(e.library);
    // At process exit the runtime may already be torn down; that is not worth a message.
    if (err != cudaSuccess && err != cudaErrorCudartUnloading)
      std::fprintf(stderr, "histtune: cudaLibraryUnload failed: %s\n", cudaGetErrorString(err));
  }
}

Kernel KernelCache::get(const CompileRequest& req, const char* kernel_name) {
  const std::string key = cache_key(req);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it != entries_.end()) return kernel_of(it->second, kernel_name);
  }
  // Compile outside the lock: other threads keep launching cached kernels meanwhile.
  return load(req, compiled(req), kernel_name);
}

CompiledKernel KernelCache::compiled(const CompileRequest& req) {
  // One compile per kernel at a time: a request for a kernel another thread is compiling (the
  // problems tuned at once share kernels) waits for that compile instead of repeating it.
  const std::string key = cache_key(req);
  std::promise<CompiledKernel> mine;
  std::shared_future<CompiledKernel> theirs;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (const auto it = in_flight_.find(key); it != in_flight_.end()) {
      theirs = it->second;
      ++shared_compiles_;
    } else {
      in_flight_.emplace(key, mine.get_future().share());
    }
  }
  if (theirs.valid()) return theirs.get();
  try {
    CompiledKernel out = stored_or_compiled(req, key);
    mine.set_value(out);
    std::lock_guard<std::mutex> lock(mutex_);
    in_flight_.erase(key);
    return out;
  } catch (...) {
    mine.set_exception(std::current_exception());
    std::lock_guard<std::mutex> lock(mutex_);
    in_flight_.erase(key);
    throw;
  }
}

CompiledKernel KernelCache::stored_or_compiled(const CompileRequest& req, const std::string& key) {
  if (store_) {
    try {
      std::optional<std::vector<char>> image;
      {
        std::lock_guard<std::mutex> lock(store_mutex_);
        image = store_->get_cubin(key);
      }
      if (image) {
        std::lock_guard<std::mutex> lock(mutex_);
        ++store_hits_;
        return CompiledKernel{std::move(*image), {}};
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "histtune: CUBIN store unreadable, compiling: %s\n", e.what());
    }
  }
  CompiledKernel out = compile(req);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++compiles_;
  }
  if (store_) {
    try {
      std::lock_guard<std::mutex> lock(store_mutex_);
      store_->put_cubin(key, req.arch, nvrtc_version(), templates::get(req.template_name).hash,
                        req.label, out.cubin);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "histtune: could not store a CUBIN (kept in memory): %s\n", e.what());
    }
  }
  return out;
}

Kernel KernelCache::load(const CompileRequest& req, const CompiledKernel& compiled,
                         const char* kernel_name) {
  const std::string key = cache_key(req);
  std::lock_guard<std::mutex> lock(mutex_);
  return kernel_of(loaded(key, req, compiled, kernel_name), kernel_name);
}

void KernelCache::preload(const CompileRequest& req, const CompiledKernel& compiled) {
  const std::string key = cache_key(req);
  std::lock_guard<std::mutex> lock(mutex_);
  loaded(key, req, compiled, nullptr);
}

KernelCache::Entry& KernelCache::loaded(const std::string& key, const CompileRequest& req,
                                        const CompiledKernel& compiled, const char* name) {
  auto it = entries_.find(key);
  if (it != entries_.end()) return it->second;
  Entry e;
  cudaError_t err = cudaLibraryLoadData(&e.library, compiled.cubin.data(), nullptr, nullptr, 0,
                                        nullptr, nullptr, 0);
  if (err != cudaSuccess)
    detail::throw_cuda(err, "cudaLibraryLoadData(" + req.label + ", sm_" +
                                std::to_string(req.arch) + ")");
  try {
    if (name) kernel_of(e, name);
    return entries_.emplace(key, std::move(e)).first->second;
  } catch (...) {
    (void)cudaLibraryUnload(e.library);
    throw;
  }
}

Kernel KernelCache::kernel_of(Entry& e, const char* name) {
  if (auto it = e.kernels.find(name); it != e.kernels.end()) return it->second;
  Kernel k;
  const cudaError_t err = cudaLibraryGetKernel(&k.handle, e.library, name);
  if (err != cudaSuccess) detail::throw_cuda(err, "cudaLibraryGetKernel(" + std::string(name) + ")");
  e.kernels.emplace(name, k);
  return k;
}

void KernelCache::ensure_smem(const Kernel& k, int device, std::size_t bytes) {
  // The default dynamic limit is 48 KiB; above it the kernel must opt in, once per device.
  if (bytes <= 48 * 1024) return;
  std::lock_guard<std::mutex> lock(mutex_);
  std::size_t& set = smem_set_[{k.handle, device}];
  if (set >= bytes) return;
  HT_CUDA(cudaKernelSetAttributeForDevice(k.handle, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(bytes), device));
  set = bytes;
}

bool KernelCache::contains(const CompileRequest& req) const {
  const std::string key = cache_key(req);
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.count(key) != 0;
}

std::size_t KernelCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace histtune
