// Racing (successive elimination, as irace and F-race do): every candidate starts alive
// in every band; each round measures every candidate still in contention in some band,
// at that band's sizes; after it, each band's leader drops those it beats beyond noise.
#include "search/exploration.hpp"

namespace ncclsweep {
namespace {

class Race final : public Exploration {
 public:
  std::optional<SearchRound> next(SearchState& state) override {
    if (!race_) {
      race_.emplace(state.bands.size());
      std::vector<int> all(state.space.candidates.size());
      for (std::size_t c = 0; c < all.size(); ++c) all[c] = static_cast<int>(c);
      for (std::size_t b = 0; b < state.bands.size(); ++b) race_->enter(static_cast<int>(b), all);
    } else {
      race_->evaluate(state);
      ++race_->rounds;
    }
    if (race_->done()) return std::nullopt;
    std::vector<RoundItem> items = race_->next_items(state);
    if (items.empty()) return std::nullopt;  // every one left measured max_occasions times
    if (state.outcome.measurements + state.cost(items) > state.exploration_budget) {
      state.outcome.notes.push_back("the budget was spent after round " + std::to_string(race_->rounds) +
                                    ": bands still open keep their leader, for the final A/B to judge");
      return std::nullopt;
    }
    return state.make_round(RoundKind::race, "race round " + std::to_string(race_->rounds + 1), std::move(items));
  }

  long first_round_cost(const SearchState& state) const override {
    std::vector<RoundItem> items;
    for (std::size_t c = 0; c < state.space.candidates.size(); ++c) {
      RoundItem item{static_cast<int>(c), {}};
      for (std::size_t b = 0; b < state.bands.size(); ++b) item.bands.push_back(static_cast<int>(b));
      items.push_back(item);
    }
    return state.cost(items);
  }

  void conclude(SearchState& state) const override {
    if (race_) conclude_elimination(*race_, state);
  }

 private:
  std::optional<Elimination> race_;
};

}  // namespace

std::unique_ptr<Exploration> make_race() { return std::make_unique<Race>(); }

}  // namespace ncclsweep
