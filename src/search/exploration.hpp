#pragma once
// Inside a search (search/search.hpp): the two ways of exploring the grid, and the
// elimination they share. Not for callers outside src/search/.
#include <memory>
#include <optional>
#include <vector>

#include "search/search.hpp"

namespace ncclsweep {

// Successive elimination over some candidates per band: after each round the band's
// leader drops those it beats beyond noise; the band is settled when the rest are tied
// with it (or gone), or every one left has been measured max_occasions times.
struct Elimination {
  std::vector<std::vector<int>> alive;  // per band; empty for a band not raced here
  std::vector<bool> settled;
  std::vector<int> leader;
  std::vector<std::vector<int>> tied;
  int rounds = 0;  // rounds measured in this elimination

  Elimination(std::size_t bands) : alive(bands), settled(bands, true), leader(bands, -1), tied(bands) {}
  void enter(int band, std::vector<int> candidates);  // races `candidates` in `band`
  // Drops and settles from the scores so far; fates of the dropped are written.
  void evaluate(SearchState& state);
  // What to measure next: every alive candidate of an unsettled band, with fewer than
  // `rounds + 1` (and max_occasions) occasions there, so earlier data is reused.
  std::vector<RoundItem> next_items(const SearchState& state) const;
  bool done() const;
};

class Exploration {
 public:
  virtual ~Exploration() = default;
  // The next round, or empty when the exploration is over (bands' leaders then stand
  // in the outcome).
  virtual std::optional<SearchRound> next(SearchState& state) = 0;
  // Size measurements its first round needs at least (for the budget check).
  virtual long first_round_cost(const SearchState& state) const = 0;
  // Writes each band's leader, ties, settled and why into state.outcome.bands.
  virtual void conclude(SearchState& state) const = 0;
};

// The bands' leaders, ties and settledness of an elimination, into the outcome.
void conclude_elimination(const Elimination& elimination, SearchState& state);

std::unique_ptr<Exploration> make_race();
std::unique_ptr<Exploration> make_coordinate_descent();
std::unique_ptr<Exploration> make_full_grid();

}  // namespace ncclsweep
