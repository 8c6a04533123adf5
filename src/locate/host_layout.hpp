#pragma once
// Which ranks sit on which host, and the sub-communicators each phase splits the one
// world into: a colour per rank, and what each colour's group is.
#include <string>
#include <vector>

#include "locate/locate_kinds.hpp"
#include "locate/tournament.hpp"

namespace ncclsweep::locate {

struct HostLayout {
  std::vector<std::string> hosts;            // distinct host names, in order of their first rank
  std::vector<int> host_of_rank;             // world rank -> host index
  std::vector<std::vector<int>> host_ranks;  // host index -> its world ranks, ascending

  int ranks() const { return static_cast<int>(host_of_rank.size()); }
  int host_count() const { return static_cast<int>(hosts.size()); }
  // The rank's position among its host's ranks (its rail).
  int local_index(int rank) const;
};

// From every rank's host name, in rank order.
HostLayout layout_from_hosts(const std::vector<std::string>& rank_hosts);

// One sub-communicator of a step.
struct Group {
  std::vector<int> hosts;  // one host (host phase) or a pair (pairs, rails)
  int rail = -1;           // rails phase: the local index every member has
  std::vector<int> ranks;  // world ranks, ascending
  bool measured = true;    // false: a bye or a lone rank, run only so every rank calls alike
};

// One split of the world: every rank in exactly one group; colour = group index.
struct Step {
  LocatePhase phase = LocatePhase::host;
  int round = 0;      // 0 for the host phase; 1.. for pairs and rails
  std::vector<Group> groups;
  std::vector<int> color_of_rank;
};

// Each host's ranks together; hosts with one rank are not measured.
Step host_step(const HostLayout& layout);
// Within each host of three or more ranks, the neighbour pairs of its ranks (local i
// with i+1, and the last with the first), two ranks per group, in the rounds of
// ring_rounds (2, or 3 for an odd count): phase "gpus". Ranks without a partner in a
// round, and hosts of one or two ranks, wait alone (two ranks are one pair, with no
// other on the host to compare it with; the host step measures it).
std::vector<Step> gpu_pair_steps(const HostLayout& layout);
// Each pair of the round on its two hosts' ranks; idle hosts each alone.
Step pairs_step(const HostLayout& layout, const Round& round, int round_number);
// Each pair of the round split by rail: local rank i of one host with local rank i of the other.
Step rails_step(const HostLayout& layout, const Round& round, int round_number);

}  // namespace ncclsweep::locate
