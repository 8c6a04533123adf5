#pragma once
// A search over a grid of candidates, as a pure object (docs/search.md): it says which
// candidates to measure in which bands next, reads back what they measured, and decides
// which are alive, when a band is settled, and its winner. The runtime only executes the
// rounds it hands out; a unit test drives it with a fake measurement.
//
//   Search search(space, bands, options);
//   while (auto round = search.next_round()) {
//     for (item i of round->items) measure it; search.record(i, band, algbw, time, spread);
//   }
//   SearchOutcome outcome = search.outcome();
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <string>
#include <vector>

#include "core/search_fate.hpp"
#include "search/band_scores.hpp"
#include "search/search_space.hpp"
#include "spec/search_spec.hpp"

namespace ncclsweep {

struct SearchOptions {
  SearchMethod method = SearchMethod::racing;
  SearchStatistics stats;
  // The most occasions a candidate is measured on in a band: the grid's repeats, so a
  // search never measures one point more often than the full grid would.
  int max_occasions = 5;
  int grid_repeats = 5;       // of the full grid the search is measured against
  double budget_share = 0.33;  // of the full grid's measurements, the final A/B included
  int ab_repeats = 3;         // interleaved pairs of the final A/B
  int max_cycles = 4;         // coordinate descent: full cycles over the axes at most
  std::uint64_t seed = 0;
};

enum class RoundKind { race, axis_step, interaction_probe, final_ab };
std::string_view name_of(RoundKind kind);

// One measurement: a candidate at every size of the listed bands.
struct RoundItem {
  int candidate = 0;
  std::vector<int> bands;
};

struct SearchRound {
  int number = 0;  // 1, 2, ...
  RoundKind kind = RoundKind::race;
  std::string what;  // "race round 2", "axis NCCL_PROTO (cycle 1)", "final A/B"
  std::vector<RoundItem> items;  // in the order to measure them (shuffled or interleaved)
};


struct BandFate {
  FateState state = FateState::not_measured;
  int round = 0;   // dropped: the round after which it was
  int by = -1;     // dropped: the leader that beat it
  double gain = 0;  // dropped: the leader's algbw over its own, - 1
};

struct CandidateFate {
  std::vector<int> rounds;       // rounds it was measured in, ascending (final A/B included)
  std::vector<BandFate> bands;   // one per band
};

struct BandResult {
  int leader = -1;         // the search's best candidate; -1: none measured
  std::vector<int> ties;   // candidates no further round could separate from the leader
  bool settled = false;    // one survivor, or ties only
  int winner = -1;         // the leader confirmed by the final A/B, else the baseline; -1: nothing measured
  bool ab_measured = false;
  double ab_gain = 0;      // winner / baseline algbw - 1 in the final A/B
  std::string why;         // how the band ended, in words
};

struct SearchOutcome {
  SearchMethod method = SearchMethod::racing;
  std::vector<BandResult> bands;
  std::vector<CandidateFate> fates;  // per candidate
  int rounds = 0;
  long measurements = 0;       // size measurements made (a candidate at one size, once)
  long grid_measurements = 0;  // the full grid's: candidates x sizes x its repeats
  std::vector<std::string> notes;  // budget spent, interactions, ...
};

class Exploration;  // racing or coordinate descent (search/race.cpp, search/coordinate.cpp)

// Shared by the search and its exploration.
struct SearchState {
  SearchSpace space;
  std::vector<SizeBand> bands;
  SearchOptions options;
  BandScores scores;     // exploration rounds
  BandScores ab_scores;  // the final A/B
  SearchOutcome outcome;
  SearchRound current;
  int next_occasion = 0;
  long exploration_budget = 0;  // size measurements
  std::vector<bool> failed;     // per candidate: left out after its point failed

  bool is_failed(int candidate) const { return failed[static_cast<std::size_t>(candidate)]; }

  long cost(const std::vector<RoundItem>& items) const;
  std::optional<BandScore> score(int candidate, int band) const { return scores.score(candidate, band); }
  // A round of `items` in a shuffled order fixed by the seed and the round's number.
  SearchRound make_round(RoundKind kind, std::string what, std::vector<RoundItem> items);
};

class Search {
 public:
  // Throws UsageError when the budget cannot pay for one measurement of every
  // candidate (racing) or of the first axis (coordinate) plus the final A/B.
  Search(SearchSpace space, std::vector<SizeBand> bands, SearchOptions options);
  ~Search();
  Search(const Search&) = delete;
  Search& operator=(const Search&) = delete;

  // The next round to measure; empty when the search is over.
  std::optional<SearchRound> next_round();
  // One band's figures of item `item` of the round next_round() handed out last.
  void record(int item, int band, double algbw_gbps, double time_us, double spread);
  // Item `item` of that round could not be measured: its point failed (a setting NCCL
  // refused, a worker that died). The candidate leaves the search in every band, and
  // what it was to measure counts as spent.
  void fail(int item, const std::string& why);
  const SearchOutcome& outcome() const { return state_.outcome; }
  const SearchState& state() const { return state_; }

 private:
  void finish_exploration();
  std::optional<SearchRound> final_ab_round();
  void judge_final_ab();

  SearchState state_;
  std::unique_ptr<Exploration> exploration_;
  std::set<std::pair<int, std::pair<int, int>>> counted_;  // (round, (item, band)) already counted
  enum class Phase { exploring, final_ab, done } phase_ = Phase::exploring;
};

}  // namespace ncclsweep
