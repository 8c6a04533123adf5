#pragma once
// When to stop timing one size: a fixed count (--iters), or once the mean iteration
// time is known to a target relative standard error, within iteration and time bounds.
// Decided from the cross-rank reduced per-iteration times, so every rank decides alike.
#include <span>
#include <string_view>

#include "core/name_table.hpp"

namespace ncclsweep {

struct StoppingRule {
  int fixed_iters = 0;           // > 0: exactly this many timed iterations, nothing else applies
  double target_spread = 0.005;  // relative standard error of the mean: 0.5% tells 2% apart
  int min_iters = 5;
  int max_iters = 1000;
  double min_seconds = 0.002;  // summed iteration time per size and placement
  double max_seconds = 0.5;
};

// Calls shorter than this are timed in samples of several calls, about this long (the
// rule's iteration counts count samples); the measuring loop and plan's estimate both use it.
inline constexpr double kSampleSeconds = 1e-3;

enum class StopReason { not_yet, fixed, spread, max_iters, max_time };
inline constexpr NameTable<StopReason, 5> kStopReasonNames{"stop reason",
                                                           {{{StopReason::not_yet, "not_yet"},
                                                             {StopReason::fixed, "fixed"},
                                                             {StopReason::spread, "spread"},
                                                             {StopReason::max_iters, "max_iters"},
                                                             {StopReason::max_time, "max_time"}}}};
constexpr std::string_view name_of(StopReason reason) { return kStopReasonNames.name(reason); }

// Whether the iterations timed so far (slowest rank per iteration) are enough.
StopReason stop_reason(const StoppingRule& rule, std::span<const double> iteration_seconds);

// How many iterations to time next (> 0 unless stop_reason says stop): at least up to
// min_iters, then about what the target spread needs, at most doubling, within the bounds.
int next_batch(const StoppingRule& rule, std::span<const double> iteration_seconds);

}  // namespace ncclsweep
