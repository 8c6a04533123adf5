#pragma once
// Which sub-communicator groups are slow, and which hosts their ranks are on: "dp group 3
// (ranks 3,11,19,27) spans hosts node0,node1: 12% slower than the other groups".
//
// A group's time in a measurement is its slowest rank's (per_communicator[].time_us.max). Per
// measurement each group is compared with the median of the other groups that ran at
// once (not of all groups: with two groups that would halve the gap); the median of that
// excess over every measurement of the same group kind and size is the group's figure.
#include <optional>
#include <string>
#include <vector>

#include "spec/comm_split.hpp"
#include "results/node_timing.hpp"
#include "results/record.hpp"

namespace ncclsweep {

// Where a grouped record's groups sit among `world` ranks. The record keeps the kind, the
// group size (ranks) and the count (groups) but not the stride: size and intra-node
// groups are adjacent (stride 1); stride and inter-node groups have stride = groups.
// Workload kinds (dp, tp, ...) take their stride from the layout, which the run does not
// keep: that stride is the one whose groups' slowest and fastest ranks in rank_time_us
// reproduce per_communicator, when exactly one does. Empty when it cannot be told.
std::optional<CommSplit> group_layout(const MeasurementRecord& record, int world);

// The ranks of the group with colour `colour`, ascending (spec/comm_split.hpp's colours).
std::vector<int> group_members(const CommSplit& group, int colour, int world);

struct SlowGroup {
  CommunicatorKind kind = CommunicatorKind::world;  // the records' communicator
  int size = 0;      // ranks per group
  int colour = 0;    // per_communicator[].colour
  std::vector<int> ranks;          // empty when the layout could not be told
  std::vector<std::string> hosts;  // distinct, in rank order; empty with ranks
  int measurements = 0;            // grouped records of this kind and size
  int slower_in = 0;               // ... in which it exceeded the threshold
  double median_excess = 0;        // median over them of its time / the other groups' median - 1
  double worst_excess = 0;         // the largest of those
};

// Groups whose median_excess exceeds `threshold`, slowest first.
std::vector<SlowGroup> find_slow_groups(const RunDocument& run, double threshold = kSlowShare);

}  // namespace ncclsweep
