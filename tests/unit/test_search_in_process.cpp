// A whole search run (runtime/search_rounds.cpp) on 2 in-process ranks with the paced
// engine (in_process_launch.hpp): a grid of footprint x cache (6 points) where every point
// but one is slowed by a known factor (--inject-fault slow=F@POINT), so the true winner of
// every band is that one, on exact figures. Racing and coordinate descent must name it in
// every band, confirmed by the final A/B, in at most a third of the grid's measurements.
// tests/integration/test_search_launch.cpp runs one search under mpirun on real timing.
#include <nlohmann/json.hpp>

#include "catch_compat.hpp"
#include "core/buffer_footprint.hpp"
#include "core/errors.hpp"
#include "in_process_launch.hpp"
#include "read_file.hpp"
#include "measure/fault_injection.hpp"
#include "search/search_request.hpp"
#include "search_fixture.hpp"

using namespace ncclsweep;
using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

json paced_search(SearchMethod method, int ranks, const std::filesystem::path& dir) {
  RunSpec spec = paced_spec({256 * kKiB, 512 * kKiB, kMiB, 4 * kMiB});
  spec.footprints = parse_footprint_list("largest,exact,8M");
  spec.cache_states = parse_cache_state_list("warm,flush");
  spec.repeats = 8;
  LaunchRequest request = paced_request(spec, ranks, dir);
  SearchSpec search;
  search.method = method;
  search.budget.grid_fraction = 0.33;
  request.search = plan_search_request(search, {SweepPoint{0, "default", {}, 0, false}}, 0, request.spec, request.plan);
  request.fault = parse_fault_injection(kSearchSlowed);
  const InProcessLaunch run = launch_in_process(request, ranks);
  INFO(run.errors);
  REQUIRE(all_equal(run.statuses, kExitOk));
  return json::parse(read_file(dir / "search.json"));
}

void check_found_the_unslowed_point(const json& search, const std::filesystem::path& dir) {
  INFO(search.dump(2));
  CHECK(search.at("baseline") == kSearchBaseline);
  CHECK(search.at("measurements").get<long>() * 3 <= search.at("grid_measurements").get<long>());
  REQUIRE(search.at("bands").size() == 3);  // auto: 4 sizes in three bands
  for (const json& band : search.at("bands")) {
    CHECK(band.at("winner") == kSearchWinner);
    CHECK(band.at("ab_measured") == true);
    CHECK(band.at("ab_gain").get<double>() == Approx(5));  // the baseline runs each call 6 times
  }
  // Every record is one of the search's measurements: a size of a candidate, in and out of place.
  CHECK(records_of(dir).size() == 2 * search.at("measurements").get<std::size_t>());
}

}  // namespace

TEST_CASE("an in-process racing search finds the one unslowed point in every band with a third of the grid") {
  const auto dir = fresh_dir("search-racing");
  const json search = paced_search(SearchMethod::racing, 2, dir);
  check_found_the_unslowed_point(search, dir);
  // The baseline dropped in round 1 in every band, by the winner, by its slow-down.
  for (const json& point : search.at("points")) {
    if (point.at("point") != kSearchBaseline) continue;
    for (const json& band : point.at("bands")) {
      CHECK(band.at("state") == "dropped");
      CHECK(band.at("round") == 1);
      CHECK(band.at("by") == kSearchWinner);
      CHECK(band.at("gain").get<double>() == Approx(5));
    }
  }
}

TEST_CASE("an in-process coordinate-descent search finds the one unslowed point in every band") {
  const auto dir = fresh_dir("search-coordinate");
  check_found_the_unslowed_point(paced_search(SearchMethod::coordinate, 2, dir), dir);
}

// One rank: every collective's busbw is 0 there (the factor 2(n-1)/n and its kin), so a
// search scored by busbw saw no candidate faster than any other. It scores algbw.
TEST_CASE("an in-process search on one rank, where busbw is 0, still finds the unslowed point") {
  const auto dir = fresh_dir("search-one-rank");
  check_found_the_unslowed_point(paced_search(SearchMethod::racing, 1, dir), dir);
}
