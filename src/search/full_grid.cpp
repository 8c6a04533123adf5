// The full grid in rounds (--search grid): every candidate at every size in every round,
// for the grid's repeats, in a shuffled order; each band's leader and the candidates tied
// with it by the same statistics. No final A/B: the grid's own repeats are its evidence.
// It is what the search is set beside (bench/search-vs-grid).
#include "search/exploration.hpp"

namespace ncclsweep {
namespace {

class FullGrid final : public Exploration {
 public:
  std::optional<SearchRound> next(SearchState& state) override {
    if (rounds_ >= state.options.max_occasions) return std::nullopt;
    ++rounds_;
    return state.make_round(RoundKind::race, "grid round " + std::to_string(rounds_), all(state));
  }

  long first_round_cost(const SearchState&) const override { return 0; }

  void conclude(SearchState& state) const override {
    for (std::size_t b = 0; b < state.bands.size(); ++b) {
      const int band = static_cast<int>(b);
      BandResult& result = state.outcome.bands[b];
      std::optional<BandScore> best;
      for (std::size_t c = 0; c < state.space.candidates.size(); ++c) {
        const auto s = state.is_failed(static_cast<int>(c)) ? std::nullopt : state.score(static_cast<int>(c), band);
        if (s && (!best || s->mean_log > best->mean_log)) best = s, result.leader = static_cast<int>(c);
      }
      if (!best) continue;
      for (std::size_t c = 0; c < state.space.candidates.size(); ++c) {
        const auto s = state.is_failed(static_cast<int>(c)) ? std::nullopt : state.score(static_cast<int>(c), band);
        if (!s || static_cast<int>(c) == result.leader) continue;
        const Standing st = stand(*best, *s, state.options.stats);
        BandFate& fate = state.outcome.fates[c].bands[b];
        fate = st.beaten ? BandFate{FateState::dropped, rounds_, result.leader, st.gain} : BandFate{st.tied ? FateState::tied : FateState::alive};
        if (st.tied) result.ties.push_back(static_cast<int>(c));
      }
      state.outcome.fates[static_cast<std::size_t>(result.leader)].bands[b].state = FateState::leader;
      result.settled = true;
      result.why = "every point measured in every round";
      // The grid's winner: the leader when it beats the baseline beyond noise in the grid's own figures.
      const auto base = state.score(state.space.baseline, band);
      if (result.leader == state.space.baseline || (base && stand(*best, *base, state.options.stats).beaten)) {
        result.winner = result.leader;
      } else {
        result.winner = state.space.baseline;
        result.why += "; the leader is within noise of the baseline: the baseline stays";
      }
    }
  }

 private:
  static std::vector<RoundItem> all(const SearchState& state) {
    std::vector<RoundItem> items;
    for (std::size_t c = 0; c < state.space.candidates.size(); ++c) {
      if (state.is_failed(static_cast<int>(c))) continue;
      RoundItem item{static_cast<int>(c), {}};
      for (std::size_t b = 0; b < state.bands.size(); ++b) item.bands.push_back(static_cast<int>(b));
      items.push_back(item);
    }
    return items;
  }

  int rounds_ = 0;
};

}  // namespace

std::unique_ptr<Exploration> make_full_grid() { return std::make_unique<FullGrid>(); }

}  // namespace ncclsweep
