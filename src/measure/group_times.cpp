#include "measure/group_times.hpp"

#include <algorithm>
#include <limits>

namespace ncclsweep {

void add_sub_communicator_times(MeasurementRecord& record, const PlannedCall& planned, int world,
                                const std::vector<double>& seconds_by_rank) {
  const CommSplit& group = planned.split;
  record.communicator = group.kind;
  record.communicators = group.is_world() ? 1 : world / group.size;
  const int ranks = static_cast<int>(seconds_by_rank.size());
  if (ranks != world) return;
  record.per_communicator.assign(static_cast<std::size_t>(record.communicators), SubCommunicatorTime{});
  std::vector<int> members(record.per_communicator.size(), 0);
  for (auto& g : record.per_communicator) g.time_us.min = std::numeric_limits<double>::max();
  for (int rank = 0; rank < ranks; ++rank) {
    const auto color = static_cast<std::size_t>(split_colour(group, rank));
    const double us = seconds_by_rank[static_cast<std::size_t>(rank)] * 1e6;
    SubCommunicatorTime& g = record.per_communicator[color];
    g.colour = static_cast<int>(color);
    g.time_us.min = std::min(g.time_us.min, us);
    g.time_us.max = std::max(g.time_us.max, us);
    g.time_us.avg += us;
    ++members[color];
  }
  for (std::size_t i = 0; i < record.per_communicator.size(); ++i) {
    SubCommunicatorTime& g = record.per_communicator[i];
    if (members[i] > 0) g.time_us.avg /= members[i];
    // The slowest rank of a group bounds its collective, as for the world.
    g.busbw_gbps = busbw_of(*planned.call.kind, planned.total_bytes, g.time_us.max * 1e-6, record.ranks);
  }
}

}  // namespace ncclsweep
