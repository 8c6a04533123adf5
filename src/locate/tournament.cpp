#include "locate/tournament.hpp"

#include <algorithm>

namespace ncclsweep::locate {
namespace {

HostPair ordered(int x, int y) { return {std::min(x, y), std::max(x, y)}; }

// Fills `idle` with the hosts no pair of the round names.
void mark_idle(Round& round, int hosts) {
  std::vector<bool> busy(static_cast<std::size_t>(hosts), false);
  for (const HostPair& p : round.pairs) busy[static_cast<std::size_t>(p.a)] = busy[static_cast<std::size_t>(p.b)] = true;
  for (int h = 0; h < hosts; ++h) {
    if (!busy[static_cast<std::size_t>(h)]) round.idle.push_back(h);
  }
}

}  // namespace

std::vector<Round> round_robin(int hosts) {
  if (hosts < 2) return {};
  // An odd count gets a phantom host; whoever meets it sits the round out.
  const int slots = hosts % 2 == 0 ? hosts : hosts + 1;
  std::vector<int> circle(static_cast<std::size_t>(slots));
  for (int i = 0; i < slots; ++i) circle[static_cast<std::size_t>(i)] = i;
  std::vector<Round> rounds;
  for (int r = 0; r < slots - 1; ++r) {
    Round round;
    for (int i = 0; i < slots / 2; ++i) {
      const int x = circle[static_cast<std::size_t>(i)], y = circle[static_cast<std::size_t>(slots - 1 - i)];
      if (x < hosts && y < hosts) round.pairs.push_back(ordered(x, y));
    }
    std::sort(round.pairs.begin(), round.pairs.end());
    mark_idle(round, hosts);
    rounds.push_back(round);
    // Slot 0 stays; the others turn one place.
    std::rotate(circle.begin() + 1, circle.end() - 1, circle.end());
  }
  return rounds;
}

std::vector<Round> ring_rounds(int hosts) {
  if (hosts < 2) return {};
  if (hosts == 2) {
    Round round{{{0, 1}}, {}};
    return {round};
  }
  // Edge i joins host i and i+1 (mod H). Even edges, then odd edges; for odd H the last
  // edge (H-1, 0) would touch host 0 twice in the even round, so it gets a round alone.
  std::vector<Round> rounds(hosts % 2 == 0 ? 2 : 3);
  for (int edge = 0; edge < hosts; ++edge) {
    const bool closing_odd = hosts % 2 == 1 && edge == hosts - 1;
    Round& round = rounds[closing_odd ? 2 : static_cast<std::size_t>(edge % 2)];
    round.pairs.push_back(ordered(edge, (edge + 1) % hosts));
  }
  for (Round& round : rounds) {
    std::sort(round.pairs.begin(), round.pairs.end());
    mark_idle(round, hosts);
  }
  return rounds;
}

std::vector<long long> round_robin_pairs(int hosts) {
  if (hosts < 2) return {};
  // The circle method's counts: a phantom host for odd H takes one pair out of each round.
  const int rounds = hosts % 2 == 0 ? hosts - 1 : hosts;
  return std::vector<long long>(static_cast<std::size_t>(rounds), hosts / 2);
}

std::vector<long long> ring_round_pairs(int hosts) {
  if (hosts < 2) return {};
  if (hosts == 2) return {1};
  if (hosts % 2 == 0) return {hosts / 2, hosts / 2};
  return {(hosts - 1) / 2, (hosts - 1) / 2, 1};  // the closing edge (H-1, 0) alone
}

}  // namespace ncclsweep::locate
