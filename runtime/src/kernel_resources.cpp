// The CUBIN is an ELF64 file. Its symbol table names the kernels; its `.nv.info` section is a
// list of attributes, each a format byte, an attribute byte and a value: formats 1-3 carry at
// most two bytes inline, format 4 a 16-bit size and that many bytes. The per-kernel attributes
// read here are format 4 with (symbol index, value) as two 32-bit words.
#include "histtune/kernel_resources.hpp"

#include <cstdint>
#include <cstring>
#include <string>

namespace histtune {
namespace {

constexpr std::uint8_t kFormatSized = 4;
constexpr std::uint8_t kFrameSize = 0x11;  // EIATTR_FRAME_SIZE
constexpr std::uint8_t kRegCount = 0x2f;   // EIATTR_REGCOUNT
constexpr std::uint32_t kSymtab = 2;       // SHT_SYMTAB
constexpr std::uint32_t kNoBits = 8;       // SHT_NOBITS: no bytes in the file (shared memory)

struct Section {
  std::uint32_t name, type;
  std::uint64_t offset, size;
  std::uint32_t link;
  std::uint64_t entsize;
};

// Bounds-checked little-endian reads of the CUBIN's bytes.
struct Bytes {
  const std::vector<char>& b;
  bool fits(std::uint64_t at, std::uint64_t n) const { return at <= b.size() && n <= b.size() - at; }
  template <class T>
  std::optional<T> get(std::uint64_t at) const {
    if (!fits(at, sizeof(T))) return std::nullopt;
    T v;
    std::memcpy(&v, b.data() + at, sizeof(T));
    return v;
  }
  // The NUL-terminated string at `at`, empty where it runs off the end.
  std::string_view str(std::uint64_t at) const {
    if (at >= b.size()) return {};
    const void* end = std::memchr(b.data() + at, 0, b.size() - at);
    return end ? std::string_view(b.data() + at, static_cast<const char*>(end) - (b.data() + at))
               : std::string_view();
  }
};

std::optional<std::vector<Section>> sections(const Bytes& e) {
  if (!e.fits(0, 64) || std::memcmp(e.b.data(), "\x7f" "ELF", 4) != 0 || e.b[4] != 2 || e.b[5] != 1)
    return std::nullopt;  // not ELF64, little-endian
  const auto shoff = e.get<std::uint64_t>(0x28);
  const auto shentsize = e.get<std::uint16_t>(0x3A), shnum = e.get<std::uint16_t>(0x3C);
  if (!shoff || !shentsize || !shnum || *shentsize < 64) return std::nullopt;
  std::vector<Section> out;
  for (std::uint16_t i = 0; i < *shnum; ++i) {
    const std::uint64_t at = *shoff + std::uint64_t{i} * *shentsize;
    if (!e.fits(at, 64)) return std::nullopt;
    out.push_back({*e.get<std::uint32_t>(at), *e.get<std::uint32_t>(at + 4),
                   *e.get<std::uint64_t>(at + 24), *e.get<std::uint64_t>(at + 32),
                   *e.get<std::uint32_t>(at + 40), *e.get<std::uint64_t>(at + 56)});
    // A kernel's static shared memory is a NOBITS section of its size, held nowhere in the file.
    if (out.back().type != kNoBits && !e.fits(out.back().offset, out.back().size))
      return std::nullopt;
  }
  return out;
}

// The symbol table index of `name`.
std::optional<std::uint32_t> symbol(const Bytes& e, const std::vector<Section>& s,
                                    std::string_view name) {
  for (const Section& t : s) {
    if (t.type != kSymtab || t.entsize < 24 || t.link >= s.size()) continue;
    for (std::uint64_t i = 0; i < t.size / t.entsize; ++i) {
      const auto n = e.get<std::uint32_t>(t.offset + i * t.entsize);
      if (n && e.str(s[t.link].offset + *n) == name) return static_cast<std::uint32_t>(i);
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<KernelResources> kernel_resources(const std::vector<char>& cubin,
                                                std::string_view kernel) {
  const Bytes e{cubin};
  const auto s = sections(e);
  const auto shstrndx = e.get<std::uint16_t>(0x3E);
  if (!s || !shstrndx || *shstrndx >= s->size()) return std::nullopt;
  const auto sym = symbol(e, *s, kernel);
  if (!sym) return std::nullopt;
  std::optional<KernelResources> out;
  int frame = 0;
  for (const Section& info : *s) {
    if (e.str((*s)[*shstrndx].offset + info.name) != ".nv.info") continue;
    const std::uint64_t end = info.offset + info.size;
    for (std::uint64_t at = info.offset; at + 4 <= end;) {
      const auto format = *e.get<std::uint8_t>(at), attr = *e.get<std::uint8_t>(at + 1);
      if (format != kFormatSized) {
        at += 4;
        continue;
      }
      const std::uint16_t size = *e.get<std::uint16_t>(at + 2);
      if (at + 4 + size > end) break;
      const auto of = e.get<std::uint32_t>(at + 4), value = e.get<std::uint32_t>(at + 8);
      if (size >= 8 && of && value && *of == *sym) {
        if (attr == kRegCount) out = KernelResources{static_cast<int>(*value), 0};
        if (attr == kFrameSize) frame = static_cast<int>(*value);
      }
      at += 4 + size;
    }
  }
  if (!out) return out;
  out->local_bytes = frame;
  const std::string shared = ".nv.shared." + std::string(kernel);
  for (const Section& sec : *s)
    if (sec.type == kNoBits && e.str((*s)[*shstrndx].offset + sec.name) == shared)
      out->shared_bytes = static_cast<int>(sec.size);
  return out;
}

}  // namespace histtune
