#include "core/iteration_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace ncclsweep {

double quantile_of_sorted(std::span<const double> sorted, double q) {
  const double position = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return quantile_of_sorted(values, 0.5);
}

IterationSummary summarize_iterations(std::span<const double> seconds) {
  if (seconds.empty()) return {};
  std::vector<double> sorted(seconds.begin(), seconds.end());
  std::sort(sorted.begin(), sorted.end());
  IterationSummary s;
  s.p50 = quantile_of_sorted(sorted, 0.50);
  s.p90 = quantile_of_sorted(sorted, 0.90);
  s.p99 = quantile_of_sorted(sorted, 0.99);
  s.min = sorted.front();
  s.max = sorted.back();
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
  return s;
}

double relative_standard_error(std::span<const double> seconds) {
  const double n = static_cast<double>(seconds.size());
  if (seconds.size() < 2) return std::numeric_limits<double>::infinity();
  const double mean = std::accumulate(seconds.begin(), seconds.end(), 0.0) / n;
  if (mean <= 0) return std::numeric_limits<double>::infinity();
  double squares = 0;
  for (const double x : seconds) squares += (x - mean) * (x - mean);
  const double stddev = std::sqrt(squares / (n - 1));
  return stddev / std::sqrt(n) / mean;
}

}  // namespace ncclsweep
