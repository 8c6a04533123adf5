#include "core/stopping_rule.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/iteration_stats.hpp"

namespace ncclsweep {

StopReason stop_reason(const StoppingRule& rule, std::span<const double> iteration_seconds) {
  const int n = static_cast<int>(iteration_seconds.size());
  if (rule.fixed_iters > 0) return n >= rule.fixed_iters ? StopReason::fixed : StopReason::not_yet;
  const double elapsed = std::accumulate(iteration_seconds.begin(), iteration_seconds.end(), 0.0);
  if (n >= rule.max_iters) return StopReason::max_iters;
  if (elapsed >= rule.max_seconds && n >= 1) return StopReason::max_time;
  if (n < rule.min_iters || elapsed < rule.min_seconds) return StopReason::not_yet;
  return relative_standard_error(iteration_seconds) <= rule.target_spread ? StopReason::spread : StopReason::not_yet;
}

int next_batch(const StoppingRule& rule, std::span<const double> iteration_seconds) {
  const int n = static_cast<int>(iteration_seconds.size());
  if (rule.fixed_iters > 0) return std::max(rule.fixed_iters - n, 0);
  if (n < rule.min_iters) return rule.min_iters - n;
  const double elapsed = std::accumulate(iteration_seconds.begin(), iteration_seconds.end(), 0.0);
  const double mean = n > 0 ? elapsed / n : 0;
  double wanted = n;  // doubling by default
  const double spread = relative_standard_error(iteration_seconds);
  if (std::isfinite(spread) && rule.target_spread > 0) {
    // The standard error shrinks with sqrt(n): n * (spread/target)^2 iterations in all.
    const double ratio = spread / rule.target_spread;
    wanted = std::min(wanted, std::max(1.0, std::ceil(n * ratio * ratio) - n));
  }
  if (mean > 0 && elapsed < rule.min_seconds) wanted = std::max(wanted, std::ceil((rule.min_seconds - elapsed) / mean));
  if (mean > 0) wanted = std::min(wanted, std::ceil((rule.max_seconds - elapsed) / mean));
  wanted = std::min(wanted, static_cast<double>(rule.max_iters - n));
  return static_cast<int>(std::max(wanted, 1.0));
}

}  // namespace ncclsweep
