#include "results/node_timing.hpp"

#include <algorithm>
#include <map>

#include "core/iteration_stats.hpp"

namespace ncclsweep {
namespace {

std::vector<NodeTiming> hosts_of(const std::vector<RankEntry>& ranks) {
  std::vector<NodeTiming> nodes;
  for (const RankEntry& r : ranks) {
    auto node = std::find_if(nodes.begin(), nodes.end(), [&](const NodeTiming& n) { return n.host == r.host; });
    if (node == nodes.end()) {
      nodes.push_back(NodeTiming{r.host, {}, 0, 0, -1, 0});
      node = nodes.end() - 1;
    }
    node->ranks.push_back(r.rank);
  }
  for (auto& n : nodes) std::sort(n.ranks.begin(), n.ranks.end());
  return nodes;
}

bool ranks_are_indices(const std::vector<RankEntry>& ranks) {
  for (const RankEntry& r : ranks) {
    if (r.rank < 0 || static_cast<std::size_t>(r.rank) >= ranks.size()) return false;
  }
  return true;
}

}  // namespace

NodeTimingView node_timings(const RunDocument& run, double threshold) {
  NodeTimingView view;
  view.threshold = threshold;
  view.nodes = hosts_of(run.ranks);
  if (view.nodes.empty() || !ranks_are_indices(run.ranks)) return view;
  const std::size_t world = run.ranks.size();
  std::vector<std::vector<double>> median_excess(view.nodes.size()), worst_excess(view.nodes.size());
  std::vector<std::map<int, int>> worst_counts(view.nodes.size());
  for (const MeasurementRecord& record : run.records) {
    if (record.rank_time_us.size() != world) continue;
    const double all = median_of(record.rank_time_us);
    if (all <= 0) continue;
    ++view.measurements;
    std::size_t slowest_here = 0;
    double slowest_median = -1;
    for (std::size_t n = 0; n < view.nodes.size(); ++n) {
      std::vector<double> times;
      int worst = -1;
      for (int rank : view.nodes[n].ranks) {
        const double t = record.rank_time_us[static_cast<std::size_t>(rank)];
        times.push_back(t);
        if (worst < 0 || t > record.rank_time_us[static_cast<std::size_t>(worst)]) worst = rank;
      }
      const double median = median_of(times);
      median_excess[n].push_back(median / all - 1);
      worst_excess[n].push_back(record.rank_time_us[static_cast<std::size_t>(worst)] / all - 1);
      ++worst_counts[n][worst];
      if (median > slowest_median) {
        slowest_median = median;
        slowest_here = n;
      }
    }
    ++view.nodes[slowest_here].slowest_in;
  }
  if (view.measurements == 0) return view;
  for (std::size_t n = 0; n < view.nodes.size(); ++n) {
    NodeTiming& node = view.nodes[n];
    node.median_excess = median_of(median_excess[n]);
    node.worst_excess = median_of(worst_excess[n]);
    int most = 0;
    for (const auto& [rank, count] : worst_counts[n]) {  // ascending ranks: the lowest wins ties
      if (count > most) {
        most = count;
        node.worst_rank = rank;
      }
    }
  }
  std::size_t slowest = 0;
  for (std::size_t n = 1; n < view.nodes.size(); ++n) {
    const NodeTiming& a = view.nodes[n];
    const NodeTiming& b = view.nodes[slowest];
    if (a.median_excess > b.median_excess || (a.median_excess == b.median_excess && a.worst_excess > b.worst_excess)) {
      slowest = n;
    }
  }
  view.slowest = slowest;
  if (view.nodes.size() < 2) return view;
  // Against the other hosts only: with two hosts, a median that included the slow one
  // would halve the gap.
  std::vector<double> others;
  for (std::size_t n = 0; n < view.nodes.size(); ++n) {
    if (n != slowest) others.push_back(1 + view.nodes[n].median_excess);
  }
  const double median_other = median_of(others);
  view.slowest_vs_other_hosts = median_other > 0 ? (1 + view.nodes[slowest].median_excess) / median_other - 1 : 0;
  view.slowest_stands_out = view.slowest_vs_other_hosts > threshold;
  return view;
}

}  // namespace ncclsweep
