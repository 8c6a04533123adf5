#include "search/search_request.hpp"

#include <algorithm>

#include "core/errors.hpp"
#include "plan/sweep_estimate.hpp"

namespace ncclsweep {

SearchRequest plan_search_request(const SearchSpec& search, const std::vector<SweepPoint>& points, int baseline,
                                  const RunSpec& spec, const MeasurementPlan& plan) {
  SearchRequest out;
  out.grid = make_search_grid(points, baseline, spec);
  out.bands = search_bands(plan, search.band_edges);
  SearchOptions& o = out.options;
  o.method = search.method;
  o.stats.confidence = search.confidence;
  o.grid_repeats = o.max_occasions = std::max(spec.repeats, 1);
  o.seed = spec.seed;
  o.budget_share = search.budget.grid_fraction;
  if (search.budget.seconds > 0) {
    double grid_s = 0;
    for (const PlannedCall& call : plan.calls) grid_s += estimate_measurement_seconds(call.total_bytes, spec);
    grid_s *= o.grid_repeats * static_cast<double>(points.size());
    o.budget_share = std::min(1.0, search.budget.seconds / std::max(grid_s, 1e-9));
  }
  Search check(out.grid.space, out.bands, o);  // throws when the budget cannot pay for a first round
  return out;
}

}  // namespace ncclsweep
