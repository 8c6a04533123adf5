#pragma once
// What `ncclsweep plan` says a sweep's search costs beside its full grid (docs/search.md,
// "The cost model"): size measurements, and seconds at the grid's mean estimated time
// per measurement (a search starts no workers, so the per-point start-up is left out).
#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>

#include "plan/sweep_plan.hpp"
#include "search/search_grid.hpp"
#include "spec/sweep.hpp"

namespace ncclsweep {

struct SearchPlanCost {
  SearchMethod method = SearchMethod::grid;
  double confidence = 0;
  SearchCost measurements;
  double grid_s = 0, worst_s = 0, expected_s = 0;
  std::size_t bands = 0;
};

// nullopt for a sweep without a search (method grid). `grid_seconds`: the plan's typical
// estimate of the whole grid.
std::optional<SearchPlanCost> search_plan_cost(const Sweep& sweep, const SweepPlan& plan, double grid_seconds);

// "search: racing, budget 30% of the grid, ..." and three lines; starts with a blank line.
std::string search_plan_cost_text(const SearchPlanCost& cost);

// {"method", "grid_measurements", "worst_measurements", "expected_measurements",
//  "grid_seconds", "worst_seconds", "expected_seconds"}
nlohmann::json search_plan_cost_json(const SearchPlanCost& cost);

}  // namespace ncclsweep
