#pragma once
// Per-node view of a run's timings: each host's ranks against the median rank of the
// whole run, so a slow node (a throttled GPU, a bad NIC, a busy CPU) shows as one line.
//
// Per measurement, a host's figures are relative to that measurement's median rank, so
// a 1 KiB and a 1 GiB call weigh the same; then the median over measurements gives the
// host's figure. Sizes are aggregated rather than listed because a slow node is slow at
// most sizes, and hosts x sizes x points would bury it; one noisy size does not move a
// median (docs/scale.md, "Per-node view").
#include <optional>
#include <string>
#include <vector>

#include "results/record.hpp"

namespace ncclsweep {

// Slower than the other hosts' median by more than this share (0.05 = 5%), a host "stands out".
inline constexpr double kSlowShare = 0.05;

struct NodeTiming {
  std::string host;
  std::vector<int> ranks;   // ascending
  double median_excess = 0;  // median over measurements of (host's median rank / all ranks' median) - 1
  double worst_excess = 0;   // the same for the host's slowest rank
  int worst_rank = -1;       // the host's rank that was its slowest in most measurements (lowest on ties)
  int slowest_in = 0;        // measurements in which this host's median rank was the slowest host's
};

struct NodeTimingView {
  std::vector<NodeTiming> nodes;  // hosts in order of first appearance in run.ranks
  int measurements = 0;           // records with a time for every rank
  std::optional<std::size_t> slowest;  // index into nodes; empty without measurements
  double slowest_vs_other_hosts = 0;   // its median_excess against the other hosts' median (0.1 = 10% slower)
  bool slowest_stands_out = false;     // slowest_vs_other_hosts > threshold, with 2+ hosts
  double threshold = kSlowShare;
};

// Records whose rank_time_us does not hold one time per rank of run.ranks (older files,
// failed points) are left out. The slowest host has the highest median_excess, then the
// highest worst_excess, then comes first.
NodeTimingView node_timings(const RunDocument& run, double threshold = kSlowShare);

}  // namespace ncclsweep
