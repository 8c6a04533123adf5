#include "results/stragglers.hpp"

#include <algorithm>

#include "core/iteration_stats.hpp"

namespace ncclsweep {

std::vector<Straggler> find_stragglers(const RunDocument& run, const StragglerRule& rule) {
  std::size_t ranks = 0;
  for (const auto& r : run.records) ranks = std::max(ranks, r.rank_time_us.size());
  if (ranks < 3) return {};  // with two ranks the median is their mean: nobody stands out
  std::vector<int> slower(ranks, 0);
  std::vector<std::vector<double>> excess(ranks);
  int measurements = 0;
  for (const auto& r : run.records) {
    if (r.rank_time_us.size() != ranks) continue;
    const double median = median_of(r.rank_time_us);
    if (median <= 0) continue;
    ++measurements;
    for (std::size_t i = 0; i < ranks; ++i) {
      const double over = r.rank_time_us[i] / median - 1;
      excess[i].push_back(over);
      if (over > rule.threshold) ++slower[i];
    }
  }
  std::vector<Straggler> out;
  if (measurements < rule.min_measurements) return out;
  for (std::size_t i = 0; i < ranks; ++i) {
    if (slower[i] < rule.min_share * measurements) continue;
    Straggler s;
    s.rank = static_cast<int>(i);
    s.slower_in = slower[i];
    s.measurements = measurements;
    s.median_excess = median_of(excess[i]);
    for (const auto& entry : run.ranks) {
      if (entry.rank != s.rank) continue;
      s.host = entry.host;
      s.gpu_index = entry.gpu_index;
    }
    out.push_back(s);
  }
  return out;
}

}  // namespace ncclsweep
