#include "locate/host_layout.hpp"

#include <algorithm>
#include <map>

namespace ncclsweep::locate {
namespace {

void add_group(Step& step, Group group) {
  std::sort(group.ranks.begin(), group.ranks.end());
  const int color = static_cast<int>(step.groups.size());
  for (const int rank : group.ranks) step.color_of_rank[static_cast<std::size_t>(rank)] = color;
  step.groups.push_back(std::move(group));
}

const std::vector<int>& ranks_of(const HostLayout& layout, int host) {
  return layout.host_ranks[static_cast<std::size_t>(host)];
}

// Idle hosts' ranks: one group per host, not measured.
void add_idle(Step& step, const HostLayout& layout, const Round& round) {
  for (const int host : round.idle) add_group(step, {{host}, -1, ranks_of(layout, host), false});
}

Step empty_step(const HostLayout& layout, LocatePhase phase, int round) {
  Step step;
  step.phase = phase;
  step.round = round;
  step.color_of_rank.assign(static_cast<std::size_t>(layout.ranks()), -1);
  return step;
}

}  // namespace

int HostLayout::local_index(int rank) const {
  const auto& mine = host_ranks[static_cast<std::size_t>(host_of_rank[static_cast<std::size_t>(rank)])];
  return static_cast<int>(std::find(mine.begin(), mine.end(), rank) - mine.begin());
}

HostLayout layout_from_hosts(const std::vector<std::string>& rank_hosts) {
  HostLayout layout;
  std::map<std::string, int> index;
  for (std::size_t rank = 0; rank < rank_hosts.size(); ++rank) {
    const auto [it, added] = index.emplace(rank_hosts[rank], static_cast<int>(layout.hosts.size()));
    if (added) {
      layout.hosts.push_back(rank_hosts[rank]);
      layout.host_ranks.emplace_back();
    }
    layout.host_of_rank.push_back(it->second);
    layout.host_ranks[static_cast<std::size_t>(it->second)].push_back(static_cast<int>(rank));
  }
  return layout;
}

Step host_step(const HostLayout& layout) {
  Step step = empty_step(layout, LocatePhase::host, 0);
  for (int host = 0; host < layout.host_count(); ++host) {
    const auto& ranks = ranks_of(layout, host);
    add_group(step, {{host}, -1, ranks, ranks.size() >= 2});
  }
  return step;
}

std::vector<Step> gpu_pair_steps(const HostLayout& layout) {
  std::vector<std::vector<Round>> rounds_of_host;
  std::size_t rounds = 0;
  for (const auto& ranks : layout.host_ranks) {
    const int gpus = static_cast<int>(ranks.size());
    rounds_of_host.push_back(gpus >= 3 ? ring_rounds(gpus) : std::vector<Round>{});
    rounds = std::max(rounds, rounds_of_host.back().size());
  }
  std::vector<Step> steps;
  for (std::size_t r = 0; r < rounds; ++r) {
    Step step = empty_step(layout, LocatePhase::gpus, static_cast<int>(r) + 1);
    for (int host = 0; host < layout.host_count(); ++host) {
      const auto& ranks = ranks_of(layout, host);
      const auto& mine = rounds_of_host[static_cast<std::size_t>(host)];
      std::vector<bool> paired(ranks.size(), false);
      if (r < mine.size()) {
        for (const HostPair& pair : mine[r].pairs) {
          const auto a = static_cast<std::size_t>(pair.a), b = static_cast<std::size_t>(pair.b);
          paired[a] = paired[b] = true;
          add_group(step, {{host}, -1, {ranks[a], ranks[b]}, true});
        }
      }
      for (std::size_t i = 0; i < ranks.size(); ++i) {
        if (!paired[i]) add_group(step, {{host}, -1, {ranks[i]}, false});
      }
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

Step pairs_step(const HostLayout& layout, const Round& round, int round_number) {
  Step step = empty_step(layout, LocatePhase::pairs, round_number);
  for (const HostPair& pair : round.pairs) {
    std::vector<int> ranks = ranks_of(layout, pair.a);
    const auto& other = ranks_of(layout, pair.b);
    ranks.insert(ranks.end(), other.begin(), other.end());
    add_group(step, {{pair.a, pair.b}, -1, ranks, true});
  }
  add_idle(step, layout, round);
  return step;
}

Step rails_step(const HostLayout& layout, const Round& round, int round_number) {
  Step step = empty_step(layout, LocatePhase::rails, round_number);
  for (const HostPair& pair : round.pairs) {
    const auto& a = ranks_of(layout, pair.a);
    const auto& b = ranks_of(layout, pair.b);
    for (std::size_t rail = 0; rail < std::max(a.size(), b.size()); ++rail) {
      // A rail only one of the hosts has: its rank waits alone.
      if (rail >= a.size() || rail >= b.size()) {
        const int lone = rail < a.size() ? a[rail] : b[rail];
        add_group(step, {{rail < a.size() ? pair.a : pair.b}, static_cast<int>(rail), {lone}, false});
        continue;
      }
      add_group(step, {{pair.a, pair.b}, static_cast<int>(rail), {a[rail], b[rail]}, true});
    }
  }
  add_idle(step, layout, round);
  return step;
}

}  // namespace ncclsweep::locate
