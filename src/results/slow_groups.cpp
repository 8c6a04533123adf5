#include "results/slow_groups.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "core/iteration_stats.hpp"

namespace ncclsweep {
namespace {

bool close(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)}); }

// True when grouping rank_time_us by `group` gives per_communicator's slowest and fastest ranks.
bool reproduces_per_communicator(const MeasurementRecord& record, const CommSplit& group, int world) {
  std::vector<double> slowest(record.per_communicator.size(), -1), fastest(record.per_communicator.size(), -1);
  for (int rank = 0; rank < world; ++rank) {
    const auto colour = static_cast<std::size_t>(split_colour(group, rank));
    if (colour >= slowest.size()) return false;
    const double t = record.rank_time_us[static_cast<std::size_t>(rank)];
    slowest[colour] = slowest[colour] < 0 ? t : std::max(slowest[colour], t);
    fastest[colour] = fastest[colour] < 0 ? t : std::min(fastest[colour], t);
  }
  for (const SubCommunicatorTime& g : record.per_communicator) {
    const auto colour = static_cast<std::size_t>(g.colour);
    if (colour >= slowest.size() || !close(slowest[colour], g.time_us.max) || !close(fastest[colour], g.time_us.min)) {
      return false;
    }
  }
  return true;
}

std::optional<CommSplit> inferred_layout(const MeasurementRecord& record, int world) {
  if (record.rank_time_us.size() != static_cast<std::size_t>(world)) return std::nullopt;
  std::optional<CommSplit> found;
  for (int stride = 1; stride * record.ranks <= world; ++stride) {
    if (world % (stride * record.ranks) != 0) continue;  // the colours need whole blocks
    const CommSplit candidate{record.communicator, record.ranks, stride};
    if (!reproduces_per_communicator(record, candidate, world)) continue;
    if (found) return std::nullopt;  // two strides fit: equal times cannot tell them apart
    found = candidate;
  }
  return found;
}

std::vector<std::string> hosts_of(const std::vector<int>& ranks, const std::vector<RankEntry>& entries) {
  std::vector<std::string> hosts;
  for (int rank : ranks) {
    for (const RankEntry& e : entries) {
      if (e.rank == rank && std::find(hosts.begin(), hosts.end(), e.host) == hosts.end()) hosts.push_back(e.host);
    }
  }
  return hosts;
}

}  // namespace

std::optional<CommSplit> group_layout(const MeasurementRecord& record, int world) {
  if (record.communicator == CommunicatorKind::world || record.ranks < 1 || record.communicators < 2 || record.ranks * record.communicators != world) {
    return std::nullopt;
  }
  const CommunicatorKind kind = record.communicator;
  if (kind == CommunicatorKind::size || kind == CommunicatorKind::intra_node) return CommSplit{kind, record.ranks, 1};
  if (kind == CommunicatorKind::stride || kind == CommunicatorKind::inter_node) {
    return CommSplit{kind, record.ranks, record.communicators};
  }
  return inferred_layout(record, world);
}

std::vector<int> group_members(const CommSplit& group, int colour, int world) {
  std::vector<int> ranks;
  for (int rank = 0; rank < world; ++rank) {
    if (split_colour(group, rank) == colour) ranks.push_back(rank);
  }
  return ranks;
}

std::vector<SlowGroup> find_slow_groups(const RunDocument& run, double threshold) {
  const int world = static_cast<int>(run.ranks.size());
  struct Tally {
    std::map<int, std::vector<double>> excess;  // colour -> one per measurement
    int measurements = 0;
    std::optional<CommSplit> layout;
  };
  std::map<std::tuple<CommunicatorKind, int, int>, Tally> tallies;  // (kind, size, groups)
  for (const MeasurementRecord& record : run.records) {
    if (record.communicator == CommunicatorKind::world || record.per_communicator.size() < 2) continue;
    Tally& tally = tallies[{record.communicator, record.ranks, record.communicators}];
    if (!tally.layout) tally.layout = group_layout(record, world);
    ++tally.measurements;
    for (const SubCommunicatorTime& g : record.per_communicator) {
      std::vector<double> others;
      for (const SubCommunicatorTime& o : record.per_communicator) {
        if (&o != &g) others.push_back(o.time_us.max);
      }
      const double median = median_of(others);
      if (median > 0) tally.excess[g.colour].push_back(g.time_us.max / median - 1);
    }
  }
  std::vector<SlowGroup> slow;
  for (const auto& [key, tally] : tallies) {
    for (const auto& [colour, excess] : tally.excess) {
      const double median = median_of(excess);
      if (!(median > threshold)) continue;
      SlowGroup s;
      s.kind = std::get<0>(key);
      s.size = std::get<1>(key);
      s.colour = colour;
      s.measurements = tally.measurements;
      s.slower_in = static_cast<int>(std::count_if(excess.begin(), excess.end(), [&](double e) { return e > threshold; }));
      s.median_excess = median;
      s.worst_excess = *std::max_element(excess.begin(), excess.end());
      if (tally.layout) {
        s.ranks = group_members(*tally.layout, colour, world);
        s.hosts = hosts_of(s.ranks, run.ranks);
      }
      slow.push_back(std::move(s));
    }
  }
  std::stable_sort(slow.begin(), slow.end(),
                   [](const SlowGroup& a, const SlowGroup& b) { return a.median_excess > b.median_excess; });
  return slow;
}

}  // namespace ncclsweep
