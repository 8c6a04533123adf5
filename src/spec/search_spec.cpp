#include "spec/search_spec.hpp"

#include <cstdlib>

namespace ncclsweep {

SearchBudget parse_search_budget(const std::string& text, const std::string& what) {
  const auto refuse = [&](const std::string& why) -> SearchBudget {
    throw UsageError(what + ": budget '" + text + "' " + why,
                     "write a share of the full grid's time (0.33) or a duration (90s, 20m, 2h)");
  };
  if (text.empty()) return refuse("is empty");
  char* end = nullptr;
  const double number = std::strtod(text.c_str(), &end);
  const std::string unit = end ? std::string(end) : std::string();
  if (end == text.c_str() || !(number > 0)) return refuse("is not a positive number");
  SearchBudget budget;
  if (unit.empty()) {
    if (number > 1) return refuse("is more than the whole grid (a share is at most 1)");
    budget.grid_fraction = number;
    return budget;
  }
  const double scale = unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
  if (scale == 0) return refuse("has an unknown unit '" + unit + "'");
  budget.seconds = number * scale;
  return budget;
}

}  // namespace ncclsweep
