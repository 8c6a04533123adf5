// A search over isolation groups, whole (runtime/search_rounds.cpp, processes/worker_pool.cpp),
// on two ranks that are threads with workers that are threads (thread_workers.hpp): the
// paced engine reads the testing aid's variables from its worker's environment as the mpi
// engine does (once at the worker's start, or at each init), so a 3 x 3 x 2 grid of them
// (18 points, 9 isolation groups) has a known winner in every band, different at small and
// at large sizes. Over 5 seeds (the rounds' order and each sample's noise) racing and
// coordinate descent must name the grid's winner in every band, confirmed by the final A/B,
// in at most a third of the grid's measurements and half its time, worker starts included.
// The grid itself runs once: its winners are known by construction.
// tests/integration/test_search_launch.cpp runs the same grid once under mpirun.
#include <nlohmann/json.hpp>

#include "catch_compat.hpp"
#include "in_process_launch.hpp"
#include "plan/sweep_estimate.hpp"
#include "read_file.hpp"
#include "runtime/run_plan.hpp"
#include "search_fixture.hpp"

extern char** environ;

using namespace ncclsweep;
using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

constexpr int kRanks = 2;
constexpr int kIters = 20;
constexpr int kRepeats = 8;
constexpr double kNoise = 0.05;  // each sample off by up to 5%

struct SearchRun {
  json search;
  InProcessLaunch launch;
  std::size_t records = 0;
};

SearchRun run_search(const std::string& method, std::uint64_t seed) {
  const auto dir = ncclsweep::testing::fresh_dir("search-workers-" + method + "-" + std::to_string(seed));
  RunFlags flags;
  flags.sweep_file = "slowdown-grid.yaml";
  flags.search_method = kSearchMethodNames.parse(method);  // grid too: measured in the search's rounds
  RunInputs inputs;
  inputs.sweep_text = slowdown_grid_sweep(method, seed, kIters, kRepeats, "[128K, 256K, 1M, 4M]");
  RankLayout layout;
  layout.ranks = kRanks;
  LaunchRequest request = build_run_plan(flags, inputs, layout);
  request.output_dir = dir.string();
  request.progress = ProgressSetting::off;
  request.command_line = {"ncclsweep", "run"};
  request.envp = environ;
  SearchRun run;
  run.launch = launch_in_process(request, kRanks, -1, 0, PacedTiming{kNoise, seed});
  INFO(run.launch.errors);
  REQUIRE(all_equal(run.launch.statuses, kExitOk));
  run.search = json::parse(read_file(dir / "search.json"));
  run.records = records_of(dir).size();
  return run;
}

// The time a real run would take: what the engines spent, and each worker start at the
// plan's measured cost of one (plan/sweep_estimate.hpp).
double modelled_seconds(const SearchRun& run) {
  return run.launch.paced_seconds + run.search.at("worker_starts").get<double>() * EstimateModel{}.worker_start_s;
}

}  // namespace

TEST_CASE("racing and coordinate descent find the grid's winner of every band over isolation groups, for 5 seeds") {
  // The full grid once: the winners are known by construction, so it gives the cost to beat.
  const SearchRun grid = run_search("grid", 1);
  INFO(grid.search.dump(2));
  const std::vector<std::string> expected = slowdown_winners(grid.search);
  REQUIRE(grid.search.at("bands").size() == 3);
  CHECK(expected[0] != expected[2]);  // small and large sizes have different winners
  CHECK(grid.search.at("isolation_groups") == 9);
  CHECK(grid.search.at("points").size() == 18);
  // The grid starts each group's workers once (the pool keeps them between its rounds).
  CHECK(grid.search.at("worker_starts") == 9);
  CHECK(grid.launch.worker_starts == 9 * kRanks);
  for (std::size_t b = 0; b < expected.size(); ++b) CHECK(grid.search.at("bands")[b].at("winner") == expected[b]);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    INFO("seed " << seed);
    for (const std::string method : {"racing", "coordinate"}) {
      INFO(method);
      const SearchRun search = run_search(method, seed);
      INFO(search.search.dump(2));
      for (std::size_t b = 0; b < expected.size(); ++b) {
        const json& band = search.search.at("bands")[b];
        CHECK(band.at("winner") == expected[b]);
        CHECK(band.at("ab_measured") == true);
        CHECK(band.at("ab_gain").get<double>() > 0.5);  // the baseline runs at least twice as often
      }
      CHECK(search.search.at("measurements").get<long>() * 3 <= grid.search.at("grid_measurements").get<long>());
      CHECK(modelled_seconds(search) * 2 <= modelled_seconds(grid));
      // No group started twice: its workers stay up between rounds.
      CHECK(search.search.at("worker_starts").get<int>() <= 9);
      // Every record is a search measurement: a size of a candidate, in and out of place.
      CHECK(search.records == 2 * search.search.at("measurements").get<std::size_t>());
    }
  }
}
