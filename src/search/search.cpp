#include "search/search.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/repeat_order.hpp"
#include "search/exploration.hpp"

namespace ncclsweep {

std::string_view name_of(RoundKind kind) {
  switch (kind) {
    case RoundKind::race: return "race";
    case RoundKind::axis_step: return "axis-step";
    case RoundKind::interaction_probe: return "interaction-probe";
    case RoundKind::final_ab: return "final-ab";
  }
  return "race";
}

long SearchState::cost(const std::vector<RoundItem>& items) const {
  long sizes = 0;
  for (const RoundItem& item : items) {
    for (const int b : item.bands) sizes += static_cast<long>(bands[static_cast<std::size_t>(b)].sizes.size());
  }
  return sizes;
}

SearchRound SearchState::make_round(RoundKind kind, std::string what, std::vector<RoundItem> items) {
  SearchRound round;
  round.number = ++outcome.rounds;
  round.kind = kind;
  round.what = std::move(what);
  // The repeats machinery's shuffle: one repeat of each item, in an order fixed by the seed.
  for (const ScheduledRun& run : schedule_repeats(static_cast<int>(items.size()), 1, RepeatOrder::shuffled,
                                                  options.seed + static_cast<std::uint64_t>(round.number))) {
    round.items.push_back(items[static_cast<std::size_t>(run.item)]);
  }
  return round;
}

namespace {

long total_sizes(const std::vector<SizeBand>& bands) {
  long sizes = 0;
  for (const auto& band : bands) sizes += static_cast<long>(band.sizes.size());
  return sizes;
}

}  // namespace

Search::Search(SearchSpace space, std::vector<SizeBand> bands, SearchOptions options) {
  if (space.candidates.empty() || bands.empty()) throw UsageError("a search needs candidates and sizes to measure");
  state_.space = std::move(space);
  state_.bands = std::move(bands);
  state_.options = options;
  SearchOutcome& out = state_.outcome;
  out.method = options.method;
  out.bands.resize(state_.bands.size());
  out.fates.assign(state_.space.candidates.size(), CandidateFate{{}, std::vector<BandFate>(state_.bands.size())});
  state_.failed.assign(state_.space.candidates.size(), false);
  const long sizes = total_sizes(state_.bands);
  out.grid_measurements = static_cast<long>(state_.space.candidates.size()) * sizes * options.grid_repeats;
  const long budget = static_cast<long>(std::floor(options.budget_share * static_cast<double>(out.grid_measurements)));
  // The final A/B's worst case: the baseline and a different winner in every band.
  const long final_ab = 2L * options.ab_repeats * sizes;
  state_.exploration_budget = budget - final_ab;
  if (options.method == SearchMethod::grid) {
    exploration_ = make_full_grid();  // every point, every repeat: no budget, no final A/B
    return;
  }
  exploration_ = options.method == SearchMethod::coordinate ? make_coordinate_descent() : make_race();
  const long first = exploration_->first_round_cost(state_);
  if (first > state_.exploration_budget) {
    throw UsageError("a budget of " + std::to_string(budget) + " size measurements (" +
                         std::to_string(static_cast<int>(options.budget_share * 100 + 0.5)) + "% of the grid's " +
                         std::to_string(out.grid_measurements) + ") cannot pay for the search's first round (" +
                         std::to_string(first) + ") and the final A/B (" + std::to_string(final_ab) + ")",
                     "raise the budget, or the sweep's repeats (a grid with more repeats costs more, a search not), "
                     "or use method: coordinate, whose rounds are smaller");
  }
}

Search::~Search() = default;

std::optional<SearchRound> Search::next_round() {
  state_.next_occasion += static_cast<int>(state_.current.items.size());
  state_.current.items.clear();
  if (phase_ == Phase::exploring) {
    if (auto round = exploration_->next(state_)) return state_.current = std::move(*round);
    finish_exploration();
    if (state_.options.method == SearchMethod::grid) {
      phase_ = Phase::done;
      return std::nullopt;
    }
    phase_ = Phase::final_ab;
    if (auto round = final_ab_round()) return state_.current = std::move(*round);
    phase_ = Phase::done;
    return std::nullopt;
  }
  if (phase_ == Phase::final_ab) {
    judge_final_ab();
    phase_ = Phase::done;
  }
  return std::nullopt;
}

void Search::record(int item, int band, double algbw_gbps, double time_us, double spread) {
  const RoundItem& measured = state_.current.items.at(static_cast<std::size_t>(item));
  const SearchSample sample{measured.candidate, state_.next_occasion + item, band, algbw_gbps, time_us, spread};
  (state_.current.kind == RoundKind::final_ab ? state_.ab_scores : state_.scores).add(sample);
  auto& rounds = state_.outcome.fates[static_cast<std::size_t>(measured.candidate)].rounds;
  if (rounds.empty() || rounds.back() != state_.current.number) rounds.push_back(state_.current.number);
  // Counted once per item and band, the first time a size of it is recorded.
  const auto key = std::make_pair(item, band);
  if (counted_.insert({state_.current.number, key}).second) {
    state_.outcome.measurements += static_cast<long>(state_.bands[static_cast<std::size_t>(band)].sizes.size());
  }
}

void Search::fail(int item, const std::string& why) {
  const RoundItem& measured = state_.current.items.at(static_cast<std::size_t>(item));
  const auto c = static_cast<std::size_t>(measured.candidate);
  auto& rounds = state_.outcome.fates[c].rounds;
  if (rounds.empty() || rounds.back() != state_.current.number) rounds.push_back(state_.current.number);
  for (const int band : measured.bands) {
    if (counted_.insert({state_.current.number, std::make_pair(item, band)}).second) {
      state_.outcome.measurements += static_cast<long>(state_.bands[static_cast<std::size_t>(band)].sizes.size());
    }
  }
  if (state_.failed[c]) return;
  state_.failed[c] = true;
  for (BandFate& fate : state_.outcome.fates[c].bands) fate = BandFate{FateState::failed};
  state_.outcome.notes.push_back(state_.space.candidates[c].label + " failed in round " +
                                 std::to_string(state_.current.number) + " (" + why + "): left out of the search");
}

void Search::finish_exploration() {
  exploration_->conclude(state_);
}

std::optional<SearchRound> Search::final_ab_round() {
  const int baseline = state_.space.baseline;
  std::vector<int> ab_bands;
  std::vector<RoundItem> winners;  // one item per distinct winner, with its bands
  for (std::size_t b = 0; b < state_.bands.size(); ++b) {
    BandResult& band = state_.outcome.bands[b];
    if (band.leader < 0) continue;
    if (band.leader == baseline) {
      band.winner = baseline;
      band.why += "; the baseline leads: nothing to confirm";
      continue;
    }
    ab_bands.push_back(static_cast<int>(b));
    auto item = std::find_if(winners.begin(), winners.end(), [&](const RoundItem& i) { return i.candidate == band.leader; });
    if (item == winners.end()) item = winners.insert(winners.end(), RoundItem{band.leader, {}});
    item->bands.push_back(static_cast<int>(b));
  }
  if (ab_bands.empty()) return std::nullopt;
  // Interleaved: baseline, the winners, baseline, the winners, ... (the repeats machinery's order).
  std::vector<RoundItem> pair{{baseline, ab_bands}};
  pair.insert(pair.end(), winners.begin(), winners.end());
  SearchRound round;
  round.number = ++state_.outcome.rounds;
  round.kind = RoundKind::final_ab;
  round.what = "final A/B against the baseline";
  for (const ScheduledRun& run : schedule_repeats(static_cast<int>(pair.size()), state_.options.ab_repeats,
                                                  RepeatOrder::interleaved, state_.options.seed)) {
    round.items.push_back(pair[static_cast<std::size_t>(run.item)]);
  }
  return round;
}

void Search::judge_final_ab() {
  const int baseline = state_.space.baseline;
  for (std::size_t b = 0; b < state_.bands.size(); ++b) {
    BandResult& band = state_.outcome.bands[b];
    if (band.leader < 0 || band.leader == baseline) continue;
    const auto base = state_.ab_scores.score(baseline, static_cast<int>(b));
    const auto lead = state_.ab_scores.score(band.leader, static_cast<int>(b));
    if (!base || !lead) {
      band.winner = baseline;
      band.why += "; the final A/B measured nothing: the baseline stays";
      continue;
    }
    band.ab_measured = true;
    const Standing st = stand(*lead, *base, state_.options.stats);
    band.ab_gain = st.gain;
    if (st.beaten) {
      band.winner = band.leader;
    } else {
      band.winner = baseline;
      band.why += "; the final A/B did not confirm it (within noise or slower): the baseline stays";
    }
  }
}

}  // namespace ncclsweep
