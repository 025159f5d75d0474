// The public entry points' one way to the dispatcher: Dispatcher::run on the default dispatcher,
// remembering the choice per family for last_choice() and last_multichannel_choice().
#pragma once

#include <string>
#include <type_traits>

#include "histtune/histtune.hpp"

namespace histtune {

Status run_recorded(const Problem& p, const void* d_samples, std::uint32_t* d_counts,
                    cudaStream_t stream);
// The same with 64-bit counts (1D problems; Dispatcher::run's chunked path).
Status run_recorded(const Problem& p, const void* d_samples, std::uint64_t* d_counts,
                    cudaStream_t stream);
// Which family of rows (batched, segmented) made this thread's last successful call of rows.
Family last_rows_family();
// Which weighted family (weighted, weighted_det) made this thread's last successful weighted call.
Family last_weighted_family();
// This thread's last successful call's choice in family f (empty before one).
FamilyChoice last_family_choice(Family f);
// Why integer even bounds cannot be carried exactly by a Problem's doubles (beyond +-2^53), or
// empty; float and double bounds always can.
std::string inexact_bounds(std::int64_t lower, std::int64_t upper);
std::string inexact_bounds(float lower, float upper);
std::string inexact_bounds(double lower, double upper);

// A call's even bounds into p: those of i64 and u64 samples exactly (set_even_bounds), the others
// as doubles once inexact_bounds() finds them exact. Why they cannot be, or empty.
template <class Bound>
std::string set_call_bounds(Problem& p, Bound lower, Bound upper) {
  if constexpr (std::is_same_v<Bound, std::uint64_t>) {  // u64's own bounds
    set_even_bounds(p, lower, upper);
    return {};
  } else {
    if constexpr (std::is_same_v<Bound, std::int64_t>) {
      if (is_int64(p.sample_type)) {
        set_even_bounds(p, lower, upper);
        return {};
      }
    }
    if (std::string why = inexact_bounds(lower, upper); !why.empty()) return why;
    p.lower = static_cast<double>(lower);
    p.upper = static_cast<double>(upper);
    return {};
  }
}

}  // namespace histtune
