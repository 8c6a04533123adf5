#pragma once
// The search tests' grid: footprint x cache (6 points), every point but one slowed by a
// known factor (--inject-fault slow=F@POINT), so the true winner of every band is that one.
// Judged by the in-process search (tests/unit/test_search_in_process.cpp); the mpirun one
// (tests/integration/test_search_launch.cpp) slows a grid of footprints alone the same way.
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/test_slowdown.hpp"

namespace ncclsweep::testing {

inline const std::string kSearchWinner = "footprint=exact cache=warm";
inline const std::string kSearchBaseline = "footprint=largest cache=warm";
// Factors of 4 and 6: on the loaded CI machine one measurement can be 2-3x off, and a
// 3x-slowed baseline once measured faster than the winner in the final A/B.
inline const std::string kSearchSlowed =
    "slow=6@footprint=largest cache=warm;4@footprint=largest cache=flush;6@footprint=exact cache=flush;"
    "4@footprint=8388608 cache=warm;6@footprint=8388608 cache=flush";

}  // namespace ncclsweep::testing

// The search over isolation groups (docs/search.md, "Testing aid"): a 3 x 3 x 2 grid of
// the testing variables, 18 points in 9 isolation groups (two variables read once per
// worker, one at every init), all_reduce at the sizes given in three bands, where the factors
// make a different point the winner at small and at large sizes. Shared by the unit test
// (thread ranks and workers, tests/unit/test_search_workers.cpp) and the mpirun one.
namespace ncclsweep::testing {

// `method`: racing, coordinate or grid; `iters`, `repeats`: the grid's measurement.
inline std::string slowdown_grid_sweep(const std::string& method, std::uint64_t seed, int iters, int repeats,
                                       const std::string& sizes = "[128K, 256K, 512K, 1M, 2M, 4M]") {
  std::ostringstream out;
  out << "name: slowdown-grid\nengine: mpi\ncollectives: [all_reduce]\nsizes: " << sizes
      << "\ndtypes: [float32]\nwarmup: 2\niters: " << iters << "\nrepeats: " << repeats << "\nseed: " << seed
      << "\nenv:\n"
         "  NCCLSWEEP_TEST_SLOWDOWN_A: [\"2\", \"1@-400K,3\", \"3@-400K,1\"]\n"
         "  NCCLSWEEP_TEST_SLOWDOWN_B: [\"1\", \"2\", \"3\"]\n"
         "  NCCLSWEEP_TEST_INIT_SLOWDOWN: [\"2\", \"1\"]\n"
         "search:\n  method: "
      << method << "\n  budget: 0.33\n";
  return out.str();
}

// The point of `labels` whose calls run fewest times over a band's `sizes` (the product of
// its testing variables' factors, summed in logs as the search scores), by construction.
inline std::string slowdown_winner(const std::vector<std::string>& labels, const std::vector<std::uint64_t>& sizes) {
  std::string best;
  double best_cost = 0;
  for (const std::string& label : labels) {
    std::istringstream settings(label);
    double cost = 0;
    for (std::string setting; settings >> setting;) {
      const auto eq = setting.find('=');
      const SlowdownSchedule schedule = parse_slowdown(setting.substr(0, eq), setting.substr(eq + 1));
      for (const std::uint64_t size : sizes) cost += std::log(schedule.factor_at(size));
    }
    if (best.empty() || cost < best_cost - 1e-9) best = label, best_cost = cost;
  }
  return best;
}

// Every band's constructed winner, from a search.json (its points' labels, its bands' sizes).
inline std::vector<std::string> slowdown_winners(const nlohmann::json& search) {
  std::vector<std::string> labels, winners;
  for (const auto& point : search.at("points")) labels.push_back(point.at("point").get<std::string>());
  for (const auto& band : search.at("bands")) {
    winners.push_back(slowdown_winner(labels, band.at("sizes").get<std::vector<std::uint64_t>>()));
  }
  return winners;
}

}  // namespace ncclsweep::testing
