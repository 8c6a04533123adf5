#pragma once
// Statistics over per-iteration times: percentiles for the record, and the relative
// standard error of the mean that the noise-based stop aims at.
#include <span>
#include <vector>

namespace ncclsweep {

struct IterationSummary {
  double p50 = 0, p90 = 0, p99 = 0, min = 0, max = 0, mean = 0;
};

// The q-quantile (0..1) with linear interpolation between the closest ranks (the
// "type 7" rule of R and numpy), so p50 of an even count is the mean of the middle two.
// `sorted` must be sorted ascending and not empty.
double quantile_of_sorted(std::span<const double> sorted, double q);

// The median of unsorted values (the mean of the middle two for an even count); not empty.
double median_of(std::vector<double> values);

// Empty input gives all zeros.
IterationSummary summarize_iterations(std::span<const double> seconds);

// Standard error of the mean over the mean (0.01 = 1%). Infinite with fewer than two
// values or a zero mean: nothing can be said yet.
double relative_standard_error(std::span<const double> seconds);

}  // namespace ncclsweep
