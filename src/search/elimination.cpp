#include <algorithm>

#include "search/exploration.hpp"

namespace ncclsweep {

void Elimination::enter(int band, std::vector<int> candidates) {
  const auto b = static_cast<std::size_t>(band);
  alive[b] = std::move(candidates);
  settled[b] = alive[b].empty();
  leader[b] = -1;
  tied[b].clear();
}

void Elimination::evaluate(SearchState& state) {
  const SearchStatistics& stats = state.options.stats;
  for (std::size_t b = 0; b < alive.size(); ++b) {
    if (settled[b] || alive[b].empty()) continue;
    std::erase_if(alive[b], [&](int c) { return state.is_failed(c); });
    const int band = static_cast<int>(b);
    // The leader: the best measured score; unmeasured candidates wait.
    int best = -1;
    std::optional<BandScore> best_score;
    bool all_measured = true;
    for (const int c : alive[b]) {
      const auto s = state.score(c, band);
      if (!s) {
        all_measured = false;
        continue;
      }
      if (!best_score || s->mean_log > best_score->mean_log) best = c, best_score = s;
    }
    if (!best_score) {
      settled[b] = alive[b].empty();  // every one left failed
      continue;
    }
    leader[b] = best;
    std::vector<int> kept{best}, ties;
    bool open = !all_measured;
    bool all_full = best_score->occasions >= state.options.max_occasions;
    for (const int c : alive[b]) {
      if (c == best) continue;
      const auto s = state.score(c, band);
      if (!s) {
        kept.push_back(c);
        continue;
      }
      const Standing st = stand(*best_score, *s, stats);
      BandFate& fate = state.outcome.fates[static_cast<std::size_t>(c)].bands[b];
      if (st.beaten) {
        fate = {FateState::dropped, state.current.number, best, st.gain};
        continue;
      }
      kept.push_back(c);
      fate.state = st.tied ? FateState::tied : FateState::alive;
      if (st.tied) {
        ties.push_back(c);
      } else {
        open = true;
        all_full = all_full && s->occasions >= state.options.max_occasions;
      }
    }
    alive[b] = kept;
    tied[b] = ties;
    state.outcome.fates[static_cast<std::size_t>(best)].bands[b].state = FateState::leader;
    // Settled: nobody left to separate, or nothing more to learn within the grid's repeats.
    settled[b] = !open || (all_measured && all_full);
  }
}

std::vector<RoundItem> Elimination::next_items(const SearchState& state) const {
  std::vector<RoundItem> items;
  for (std::size_t b = 0; b < alive.size(); ++b) {
    if (settled[b]) continue;
    for (const int c : alive[b]) {
      if (state.is_failed(c)) continue;
      const auto s = state.score(c, static_cast<int>(b));
      const int occasions = s ? s->occasions : 0;
      if (occasions > rounds || occasions >= state.options.max_occasions) continue;
      auto item = std::find_if(items.begin(), items.end(), [c](const RoundItem& i) { return i.candidate == c; });
      if (item == items.end()) item = items.insert(items.end(), RoundItem{c, {}});
      item->bands.push_back(static_cast<int>(b));
    }
  }
  return items;
}

void conclude_elimination(const Elimination& elimination, SearchState& state) {
  for (std::size_t b = 0; b < elimination.alive.size(); ++b) {
    BandResult& band = state.outcome.bands[b];
    band.leader = elimination.leader[b];
    band.ties = elimination.tied[b];
    band.settled = elimination.settled[b] && elimination.alive[b].size() == elimination.tied[b].size() + 1;
    const std::size_t open = elimination.alive[b].size() - 1 - elimination.tied[b].size();
    band.why = band.leader < 0 ? "nothing was measured"
               : band.settled ? (band.ties.empty() ? "one survivor" : "the leader and " + std::to_string(band.ties.size()) + " tied within noise")
                              : std::to_string(open) + " still in contention when the search stopped";
  }
}

bool Elimination::done() const { return std::all_of(settled.begin(), settled.end(), [](bool s) { return s; }); }

}  // namespace ncclsweep
