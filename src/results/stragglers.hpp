#pragma once
// Which ranks are consistently slow: per measurement, each rank's average per-call time
// against the median rank's. A rank is flagged when it is slower than the median by more
// than `threshold` in at least `min_share` of the measurements that have per-rank times.
#include <vector>

#include "results/record.hpp"

namespace ncclsweep {

struct StragglerRule {
  double threshold = 0.05;  // 5% slower than the median rank
  double min_share = 0.75;  // in three measurements of four
  int min_measurements = 4;  // fewer say nothing
};

// Ranks in rank order; host and GPU from run.ranks where known.
std::vector<Straggler> find_stragglers(const RunDocument& run, const StragglerRule& rule = {});

}  // namespace ncclsweep
