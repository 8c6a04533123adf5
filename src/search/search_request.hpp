#pragma once
// A run's search as the runtime executes it (docs/search.md): the candidates, their size
// bands and how to decide, planned from the sweep's search: key and the measurement plan.
#include <vector>

#include "plan/measurement_plan.hpp"
#include "plan/sweep_plan.hpp"
#include "search/search.hpp"
#include "search/search_grid.hpp"
#include "spec/search_spec.hpp"

namespace ncclsweep {

struct SearchRequest {
  SearchGrid grid;
  std::vector<SizeBand> bands;
  SearchOptions options;
};

// The search of `points` (each in every call mode `spec` varies) over `plan`'s sizes.
// A budget in seconds becomes a share of the grid's estimated time. Throws UsageError for
// a budget that cannot pay for a first round.
SearchRequest plan_search_request(const SearchSpec& search, const std::vector<SweepPoint>& points, int baseline,
                                  const RunSpec& spec, const MeasurementPlan& plan);

}  // namespace ncclsweep
