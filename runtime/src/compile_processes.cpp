#include "histtune/compile_processes.hpp"

#include <malloc.h>
#include <signal.h>
#include <sys/resource.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <utility>

#include "histtune/status.hpp"
#include "histtune/templates/registry.hpp"

extern char** environ;

namespace histtune::compile_processes {
namespace {

// ---- the wire: length-prefixed fields over a Unix socket ------------------------------------
// Request: magic, template hash, template name, label, arch, defines. Reply: a status byte, then
// the log and the CUBIN (kOk) or a message (kRejected: NVRTC's error; kCannot: not served).
constexpr std::uint32_t kMagic = 0x48544331;  // "HTC1"
enum Reply : std::uint8_t { kOk = 0, kRejected = 1, kCannot = 2 };
constexpr int kNice = 10;  // a child's scheduling priority (serve())

bool write_all(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    // MSG_NOSIGNAL: a child that died is a lost child, not a SIGPIPE that ends this program.
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == ENOTSOCK) w = ::write(fd, p, n);  // a child run by hand, on a pipe
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool read_all(int fd, void* data, std::size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

template <class T>
void put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <class Bytes>
void put_bytes(std::string& out, const Bytes& b) {
  put<std::uint64_t>(out, b.size());
  out.append(b.data(), b.size());
}
template <class T>
bool get(int fd, T& v) {
  return read_all(fd, &v, sizeof v);
}
template <class Bytes>
bool get_bytes(int fd, Bytes& b) {
  std::uint64_t n = 0;
  if (!get(fd, n) || n > (std::uint64_t{1} << 32)) return false;  // a CUBIN is a few MB at most
  b.resize(static_cast<std::size_t>(n));
  return read_all(fd, b.data(), b.size());
}

std::string request_bytes(const CompileRequest& req) {
  std::string out;
  put(out, kMagic);
  put_bytes(out, templates::get(req.template_name).hash);
  put_bytes(out, req.template_name);
  put_bytes(out, req.label);
  put<std::int32_t>(out, req.arch);
  put<std::uint32_t>(out, static_cast<std::uint32_t>(req.defines.size()));
  for (const auto& d : req.defines) put_bytes(out, d);
  return out;
}

// False at the end of input (or a request that does not parse: the parent is not histtune's).
bool read_request(int fd, std::string& hash, CompileRequest& req) {
  std::uint32_t magic = 0, defines = 0;
  if (!get(fd, magic) || magic != kMagic || !get_bytes(fd, hash) ||
      !get_bytes(fd, req.template_name) || !get_bytes(fd, req.label) || !get(fd, req.arch) ||
      !get(fd, defines))
    return false;
  req.defines.assign(defines, std::string());
  for (auto& d : req.defines)
    if (!get_bytes(fd, d)) return false;
  return true;
}

// The reply to one request, compiled here (in the child).
std::string answer(const std::string& hash, const CompileRequest& req) {
  std::string out;
  try {
    // Another build's template under the same name would be stored under this build's key.
    if (templates::get(req.template_name).hash != hash)
      throw std::runtime_error("template " + req.template_name + " differs from the parent's");
    const CompiledKernel k = compile_here(req);
    put(out, kOk);
    put_bytes(out, k.log);
    put_bytes(out, k.cubin);
  } catch (const Error& e) {
    out.clear();
    put(out, e.code() == StatusCode::compile_error ? kRejected : kCannot);
    put_bytes(out, std::string(e.what()));
  } catch (const std::exception& e) {
    out.clear();
    put(out, kCannot);
    put_bytes(out, std::string(e.what()));
  }
  return out;
}

// ---- the parent's children -----------------------------------------------------------------
struct Child {
  pid_t pid = -1;
  int fd = -1;
};

void end_child(const Child& c, bool kill_it) {
  ::close(c.fd);  // an idle child reads the end of its input and exits
  if (kill_it) ::kill(c.pid, SIGKILL);
  int status = 0;
  while (::waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
}

class Children {
 public:
  ~Children() { disable(); }

  void enable(std::vector<std::string> command, unsigned max) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (command == command_ && max == max_) return;  // every GPU's run of --gpu all asks
    command_ = std::move(command);
    max_ = command_.empty() ? 0 : max;
    end_idle();
  }
  void disable() { enable({}, 0); }
  bool enabled() {
    std::lock_guard<std::mutex> lock(mutex_);
    return max_ > 0;
  }

  // An idle child, or a new one while fewer than max run; nullopt otherwise.
  std::optional<Child> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (max_ == 0) return std::nullopt;
    if (!idle_.empty()) {
      const Child c = idle_.back();
      idle_.pop_back();
      return c;
    }
    if (running_ >= max_) return std::nullopt;
    std::optional<Child> c = start();
    if (c) ++running_;
    return c;
  }
  void give_back(const Child& c) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.served;
      if (max_ > 0) {
        idle_.push_back(c);
        return;
      }
      --running_;
    }
    end_child(c, false);  // turned off meanwhile: reaped outside the lock, as lose() does
  }
  // A child that failed mid-request: ended; the request is compiled here.
  void lose(const Child& c, const char* what) {
    end_child(c, true);
    std::lock_guard<std::mutex> lock(mutex_);
    --running_;
    ++stats_.lost;
    warn_once(std::string("a compile child ") + what + "; compiling in this process instead");
  }
  // The children cannot serve this program (another build): off for good.
  void refuse(const Child& c, const std::string& why) {
    end_child(c, true);
    std::lock_guard<std::mutex> lock(mutex_);
    --running_;
    warn_once("compile children turned off: " + why);
    max_ = 0;
    end_idle();
  }
  void count_here() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (max_ > 0) ++stats_.here;
  }
  Stats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }

 private:
  // Under mutex_.
  std::optional<Child> start() {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
      warn_once(std::string("socketpair failed: ") + std::strerror(errno));
      return std::nullopt;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, sv[1], 0);  // dup2 clears close-on-exec
    posix_spawn_file_actions_adddup2(&actions, sv[1], 1);
    std::vector<char*> argv;
    for (auto& a : command_) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(sv[1]);
    if (rc != 0) {
      ::close(sv[0]);
      warn_once("posix_spawn(" + command_.front() + ") failed: " + std::strerror(rc) +
                "; compiling in this process");
      max_ = 0;  // it will not start next time either
      return std::nullopt;
    }
    ++stats_.started;
    return Child{pid, sv[0]};
  }
  // Under mutex_.
  void end_idle() {
    for (const Child& c : idle_) end_child(c, false);
    running_ -= static_cast<unsigned>(idle_.size());
    idle_.clear();
  }
  void warn_once(const std::string& what) {
    if (warned_) return;
    warned_ = true;
    std::fprintf(stderr, "histtune: %s\n", what.c_str());
  }

  std::mutex mutex_;
  std::vector<std::string> command_;
  unsigned max_ = 0;
  unsigned running_ = 0;  // idle and busy
  std::vector<Child> idle_;
  Stats stats_;
  bool warned_ = false;
};

Children& children() {
  static Children c;
  return c;
}

}  // namespace

void enable(std::vector<std::string> command, unsigned max) {
  children().enable(std::move(command), max);
}
void disable() { children().disable(); }
bool enabled() { return children().enabled(); }
Stats stats() { return children().stats(); }

std::vector<std::string> this_program() {
  std::string path(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", path.data(), path.size() - 1);
  if (n <= 0) return {};
  path.resize(static_cast<std::size_t>(n));
  return {path, kServeArgument};
}

namespace {

// compile() by a child taken from `all`; nullopt where none served.
std::optional<CompiledKernel> in_a_child(Children& all, const CompileRequest& req) {
  const std::string request = request_bytes(req);  // before take(): it throws for no template
  const std::optional<Child> c = all.take();
  if (!c) return std::nullopt;
  std::uint8_t status = kCannot;
  std::string text;
  CompiledKernel out;
  if (!write_all(c->fd, request.data(), request.size()) ||
      !get(c->fd, status) || !get_bytes(c->fd, status == kOk ? out.log : text) ||
      (status == kOk && !get_bytes(c->fd, out.cubin))) {
    all.lose(*c, "ended or stopped answering");
    return std::nullopt;
  }
  if (status == kCannot) {
    all.refuse(*c, text);
    return std::nullopt;
  }
  all.give_back(*c);
  if (status == kRejected) throw Error(StatusCode::compile_error, text);
  return out;
}

}  // namespace

std::optional<CompiledKernel> compile(const CompileRequest& req) {
  Children& all = children();
  if (!all.enabled()) return std::nullopt;  // a library's compiles: nothing to encode
  std::optional<CompiledKernel> out = in_a_child(all, req);
  if (!out) all.count_here();
  return out;
}

bool asked_to_serve(int argc, char** argv) {
  return argc == 2 && std::strcmp(argv[1], kServeArgument) == 0;
}

int serve() {
  // Below the parent: its threads that time the GPU must have a core the moment they wake, or
  // the timed calls' host side grows (docs/tuning.md, "A cold plan").
  (void)::setpriority(PRIO_PROCESS, 0, kNice);
  // NVRTC allocates and frees about 10 MB a compile: kept in the heap, the next compile reuses
  // it instead of faulting in fresh pages (180 compiles here: 402,000 -> 33,000 minor faults,
  // 0.9-1.1 -> 0.1-0.2 s of system time; docs/tuning.md, "A cold plan").
  (void)::mallopt(M_MMAP_THRESHOLD, 1 << 30);
  (void)::mallopt(M_TRIM_THRESHOLD, 1 << 30);
  const int out = ::dup(1);
  if (out < 0 || ::dup2(2, 1) < 0) return 1;  // stray prints to stderr, never into a reply
  std::string hash;
  CompileRequest req;
  while (read_request(0, hash, req)) {
    const std::string reply = answer(hash, req);
    if (!write_all(out, reply.data(), reply.size())) return 1;
  }
  return 0;
}

}  // namespace histtune::compile_processes
