// NVRTC compilation of an embedded template for one configuration and architecture, and the
// in-memory cache of loaded kernels keyed by (template hash, defines, architecture, NVRTC version).
#pragma once

#include <cuda_runtime_api.h>

#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <string>
#include <vector>

namespace histtune {
namespace db {
class Database;
}

struct CompileRequest {
  std::string template_name;         // "hist1d.cuh"
  std::vector<std::string> defines;  // "-DHT_BLOCK_THREADS=256", ...
  int arch = 0;                      // 90 for sm_90
  std::string label;                 // the configuration's label, for error messages
};

struct CompiledKernel {
  std::vector<char> cubin;
  std::string log;  // NVRTC's log (warnings), may be empty
};

// "13.0"
std::string nvrtc_version();
// Architectures NVRTC can emit SASS for (sm_XY as XY).
std::vector<int> nvrtc_archs();
// Whether `arch` is among them (true where NVRTC cannot list them), and their span for messages:
// "sm_75 to sm_121" (empty where it cannot list them).
bool nvrtc_compiles_for(int arch);
std::string nvrtc_arch_span();
// Compiles to a CUBIN; throws Error(compile_error) carrying the label, options and full log.
// Needs no GPU. In a child process where the program turned that on (compile_processes.hpp).
CompiledKernel compile(const CompileRequest& req);
// compile() always in this process.
CompiledKernel compile_here(const CompileRequest& req);
// The cache key of a request: template hash, defines, arch, NVRTC version.
std::string cache_key(const CompileRequest& req);

struct Kernel {
  cudaKernel_t handle = nullptr;
  const void* func() const { return reinterpret_cast<const void*>(handle); }
};

class KernelCache {
 public:
  KernelCache() = default;
  // A persistent store of compiled kernels (the tuning database's `cubins` table), consulted
  // before NVRTC and filled after it, so re-tuning and first dispatch in a new process do not
  // compile what was compiled before. Optional; must outlive the cache.
  void set_store(db::Database* store) { store_ = store; }
  ~KernelCache();  // unloads libraries; logs, never throws
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  // Compiles (first time only), loads with cudaLibraryLoadData and returns `kernel_name`.
  Kernel get(const CompileRequest& req, const char* kernel_name);
  // The CUBIN for `req`: from the store when it has it, else compiled by NVRTC (and stored).
  // A request for a kernel another thread is compiling waits for that compile. Needs no GPU.
  CompiledKernel compiled(const CompileRequest& req);
  // Loads an already compiled CUBIN under the request's key (used by the tuner's compile pool).
  Kernel load(const CompileRequest& req, const CompiledKernel& compiled, const char* kernel_name);
  // load() without taking a kernel: a later get() of any kernel of req's program needs no
  // compile (the tuner's programs that many configurations share, KernelFamily::also_compiled).
  void preload(const CompileRequest& req, const CompiledKernel& compiled);
  // Raises the kernel's dynamic shared memory limit on `device` when `bytes` needs it.
  void ensure_smem(const Kernel& k, int device, std::size_t bytes);
  std::size_t size() const;
  bool contains(const CompileRequest& req) const;
  std::size_t compiles() const { return compiles_; }      // NVRTC compiles by this cache
  std::size_t store_hits() const { return store_hits_; }  // CUBINs the store supplied
  // Requests that waited for another thread's compile of the same kernel instead of compiling.
  std::size_t shared_compiles() const { return shared_compiles_; }

 private:
  // A loaded module and the kernels taken from it by name (a template may define several).
  struct Entry {
    cudaLibrary_t library = nullptr;
    std::map<std::string, Kernel> kernels;
  };
  // The kernel `name` of a loaded entry, taken from its library on first use (under mutex_).
  static Kernel kernel_of(Entry& e, const char* name);
  // The entry of `key`, its library loaded from `compiled` the first time (under mutex_); `name`:
  // a kernel it must define, checked before the entry is kept (null: none).
  Entry& loaded(const std::string& key, const CompileRequest& req, const CompiledKernel& compiled,
                const char* name);
  // compiled() without the sharing of compiles in flight.
  CompiledKernel stored_or_compiled(const CompileRequest& req, const std::string& key);
  mutable std::mutex mutex_;
  std::map<std::string, Entry> entries_;
  std::map<std::pair<cudaKernel_t, int>, std::size_t> smem_set_;  // (kernel, device) -> limit set
  std::size_t compiles_ = 0;
  std::size_t store_hits_ = 0;
  std::size_t shared_compiles_ = 0;
  std::map<std::string, std::shared_future<CompiledKernel>> in_flight_;  // by cache key
  db::Database* store_ = nullptr;
  std::mutex store_mutex_;  // one SQLite connection: one transaction at a time
};

}  // namespace histtune
