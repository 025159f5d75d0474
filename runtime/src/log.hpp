// $HISTTUNE_LOG, read once (dispatcher.cpp): 0 nothing, 1 (the default) compiles and lookups that
// skipped or doubted a stored row, 2 every first call too.
#pragma once

namespace histtune {

int log_level();

}  // namespace histtune
