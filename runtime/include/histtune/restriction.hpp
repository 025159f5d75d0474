// Why a configuration may not run a problem on a device: which restriction refused it and the
// numbers it compared. Every family's check() returns one; holds() when the configuration may run.
#pragma once

#include <cstdint>
#include <string>

namespace histtune {

enum class RestrictionKind {
  none,             // every restriction holds
  parameter_value,  // a parameter's value is not one of its family's (name: the parameter)
  family_rule,      // one of the family's own rules (text: what it says)
  threads_per_sm,   // blocks_per_sm x block_threads (value) > the SM's threads (limit)
  smem_per_block,   // a block's shared memory (value, bytes) > the per-block opt-in limit
  smem_per_sm,      // blocks_per_sm x (shared memory + 1 KiB reserved) (value) > the SM's
  partials,         // a two-phase flush's partials (value, bytes; text: their shape) > the
                    // temporary memory limit
};

struct Restriction {
  RestrictionKind kind = RestrictionKind::none;
  std::int64_t value = 0;  // what the configuration needs (the parameter's value)
  std::int64_t limit = 0;  // what the device allows
  std::string text;         // parameter_value: the parameter; family_rule: the rule's words;
                            // partials: their shape ("blocks x bins")

  // A family's own rule, in its words.
  static Restriction rule(std::string words) {
    return {RestrictionKind::family_rule, 0, 0, std::move(words)};
  }
  bool holds() const { return kind == RestrictionKind::none; }
  // What refused the configuration, for logs and errors; empty when it holds.
  std::string message() const;
};

}  // namespace histtune
