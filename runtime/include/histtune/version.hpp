// The histtune version this library was built as; recorded with every tuning result.
#pragma once

namespace histtune {
const char* version();
}
