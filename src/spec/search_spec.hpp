#pragma once
// The sweep file's `search:` key and run's --search / --budget: measure a search over
// the grid instead of every point (docs/search.md). Validated here; the search itself
// lives in src/search/.
#include <optional>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/name_table.hpp"
#include "core/units.hpp"

namespace ncclsweep {

// grid: every point, every repeat (no search); racing: successive elimination per size
// band; coordinate: one axis at a time from the baseline.
enum class SearchMethod { grid, racing, coordinate };
inline constexpr NameTable<SearchMethod, 3> kSearchMethodNames{
    "search method",
    {{{SearchMethod::grid, "grid"}, {SearchMethod::racing, "racing"}, {SearchMethod::coordinate, "coordinate"}}}};
constexpr std::string_view name_of(SearchMethod method) { return kSearchMethodNames.name(method); }

// How much the search may measure: a share of the full grid's estimated time, or seconds.
struct SearchBudget {
  double grid_fraction = 0.33;  // used when seconds == 0
  double seconds = 0;
};

struct SearchSpec {
  SearchMethod method = SearchMethod::grid;
  SearchBudget budget;
  double confidence = 0.95;
  // Band edges: a band holds the sizes from one edge (inclusive) to the next; empty: auto.
  std::vector<Bytes> band_edges;
  SourcePosition where;
};

// "0.33" (a share of the grid, 0 < x <= 1) or a duration "20m", "90s", "1h"; UsageError
// naming `what` (the flag or file:line) and the accepted forms.
SearchBudget parse_search_budget(const std::string& text, const std::string& what);

}  // namespace ncclsweep
