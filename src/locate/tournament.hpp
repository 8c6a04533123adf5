#pragma once
// Which hosts measure against which, round by round. Every round is a set of disjoint
// host pairs, so all pairs of a round run at once and none waits on another's traffic.
#include <vector>

namespace ncclsweep::locate {

struct HostPair {
  int a = 0, b = 0;  // host indices, a < b
  auto operator<=>(const HostPair&) const = default;
};

struct Round {
  std::vector<HostPair> pairs;
  std::vector<int> idle;  // hosts without a partner this round (a bye)
};

// The circle method: H-1 rounds of H/2 disjoint pairs for even H, H rounds with one bye
// each for odd H; every pair of hosts meets exactly once. Fewer than 2 hosts: no rounds.
std::vector<Round> round_robin(int hosts);

// A quick screen: every host meets its two neighbours on the ring 0-1-...-(H-1)-0, in
// two rounds (three for an odd H, whose ring cannot be split into two matchings; one
// round for H = 2, whose two neighbours are the same host).
std::vector<Round> ring_rounds(int hosts);

// How many pairs each round of round_robin / ring_rounds holds, without building them
// (100000 hosts are 10^5 rounds of 5 x 10^4 pairs): what estimates count.
std::vector<long long> round_robin_pairs(int hosts);
std::vector<long long> ring_round_pairs(int hosts);

}  // namespace ncclsweep::locate
