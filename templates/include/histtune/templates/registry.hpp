// The embedded kernel templates, by file name ("hist1d.cuh"), with a content hash that keys
// compiled kernels and tuning results to the exact source they came from.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace histtune::templates {

struct Template {
  std::string_view name;
  std::string_view source;
  std::string hash;  // FNV-1a 64 of the source and every shared header's, 16 hex digits
};

// Throws std::out_of_range naming the template and the ones that exist.
const Template& get(std::string_view name);
std::vector<std::string> names();
// The shared headers ("ht_*.cuh") every template may #include; NVRTC gets them by name.
std::vector<std::string> headers();

// Used by the generated sources to register themselves at static-initialisation time.
struct Registrar {
  Registrar(const char* name, const char* text, std::size_t size);
};

}  // namespace histtune::templates
