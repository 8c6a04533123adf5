#include "search/search_plan_cost.hpp"

#include <algorithm>
#include <cstdio>

#include "plan/measurement_plan.hpp"

namespace ncclsweep {

std::optional<SearchPlanCost> search_plan_cost(const Sweep& sweep, const SweepPlan& plan, double grid_seconds) {
  if (sweep.search.method == SearchMethod::grid) return std::nullopt;
  const MeasurementPlan measured = plan_measurements(plan.measurements, 2);
  const SearchGrid grid = make_search_grid(plan.points, plan.baseline, plan.measurements);
  const std::vector<SizeBand> bands = search_bands(measured, sweep.search.band_edges);
  SearchOptions o;
  o.method = sweep.search.method;
  o.grid_repeats = o.max_occasions = std::max(plan.repeats, 1);
  o.budget_share = sweep.search.budget.seconds > 0 ? std::min(1.0, sweep.search.budget.seconds / grid_seconds)
                                                   : sweep.search.budget.grid_fraction;
  SearchPlanCost cost;
  cost.method = sweep.search.method;
  cost.confidence = sweep.search.confidence;
  cost.measurements = estimate_search_cost(grid.space, bands, o);
  cost.bands = bands.size();
  const double per_measurement = grid_seconds / static_cast<double>(std::max(cost.measurements.grid, 1L));
  cost.grid_s = grid_seconds;
  cost.worst_s = static_cast<double>(cost.measurements.worst) * per_measurement;
  cost.expected_s = static_cast<double>(cost.measurements.expected) * per_measurement;
  return cost;
}

std::string search_plan_cost_text(const SearchPlanCost& c) {
  const double budget_percent = c.measurements.grid > 0 ? 100.0 * static_cast<double>(c.measurements.worst) /
                                                              static_cast<double>(c.measurements.grid)
                                                        : 0;
  char text[640];
  std::snprintf(text, sizeof text,
                "\nsearch: %s, budget %.0f%% of the grid, confidence %.2f, %zu size bands (docs/search.md)\n"
                "  full grid: %ld size measurements, about %.0f s\n"
                "  search:    at most %ld (the budget), about %.0f s; expected %ld, about %.0f s\n",
                std::string(name_of(c.method)).c_str(), budget_percent, c.confidence, c.bands, c.measurements.grid,
                c.grid_s, c.measurements.worst, c.worst_s, c.measurements.expected, c.expected_s);
  return text;
}

nlohmann::json search_plan_cost_json(const SearchPlanCost& c) {
  return {{"method", std::string(name_of(c.method))},
          {"grid_measurements", c.measurements.grid},
          {"worst_measurements", c.measurements.worst},
          {"expected_measurements", c.measurements.expected},
          {"grid_seconds", c.grid_s},
          {"worst_seconds", c.worst_s},
          {"expected_seconds", c.expected_s}};
}

}  // namespace ncclsweep
