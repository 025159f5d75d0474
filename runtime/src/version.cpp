#include "histtune/version.hpp"

namespace histtune {
const char* version() { return HISTTUNE_VERSION; }
}  // namespace histtune
