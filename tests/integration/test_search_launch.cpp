// A search run end to end under mpirun with the mpi engine (docs/search.md): a grid of
// 6 buffer footprints where every point but one is slowed by a known factor
// (--inject-fault slow=F@POINT), so the true winner of every band is that one. Racing and
// coordinate descent must name it in every band, confirmed by the final A/B, in at most
// a third of the full grid's measurements, and search.json must say each point's fate.
// This is the one search on real timing, through the CLI; coordinate descent, one rank and
// the exact gains are judged on the paced engine in tests/unit/test_search_in_process.cpp,
// over the footprint x cache grid of search_fixture.hpp. Here no point flushes the cache:
// the mpi engine's flush writes twice the host's last-level cache before every call (960
// MiB on a 480 MiB L3), which took 61 of this test's 68 s, and every flushed point was a
// slowed loser dropped in the first round (run records the flush: test_mpi_launch.cpp).
// The last case searches env axes over isolation groups: the testing variables' grid
// (search_fixture.hpp), measured in worker processes; 5 seeds of it and coordinate descent
// are judged on thread workers in tests/unit/test_search_workers.cpp.
#include <nlohmann/json.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "integration/launch.hpp"
#include "read_file.hpp"
#include "search_fixture.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

const std::string kWinner = "footprint=exact";
const std::string kBaseline = "footprint=largest";
// Factors of 4 and 6, as search_fixture.hpp's: one measurement on the loaded CI machine can
// be 2-3x off.
const std::string kSlowed = "slow=6@footprint=largest;4@footprint=8388608;6@footprint=16777216;"
                            "4@footprint=33554432;6@footprint=67108864";

json search_run(const std::string& method, const std::filesystem::path& dir) {
  const Launch run = mpirun_ncclsweep(
      2, {"run", "--engine", "mpi", "--collectives", "all_reduce", "--sizes", "128K,256K,512K,1M", "--buffer-footprint",
          "largest,exact,8M,16M,32M,64M", "--repeats", "8", "--iters", "20", "--warmup", "2", "--search", method,
          "--budget", "0.33", "--inject-fault", kSlowed, "-o", dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  CHECK_THAT(run.output, ContainsSubstring("search (" + method + ")"));
  return read_json_file(dir / "search.json");
}

void check_found_the_unslowed_point(const json& search, const std::filesystem::path& dir) {
  INFO(search.dump(2));
  CHECK(search.at("baseline") == kBaseline);
  CHECK(search.at("measurements").get<long>() * 3 <= search.at("grid_measurements").get<long>());
  // auto: 4 sizes in three bands. No 64 KiB: on the loaded 2-core CI machine a 64 KiB
  // measurement lasts a few scheduler ticks, and its noise outgrew a 2x slow-down.
  REQUIRE(search.at("bands").size() == 3);
  for (const json& band : search.at("bands")) {
    CHECK(band.at("winner") == kWinner);
    CHECK(band.at("ab_measured") == true);
    CHECK(band.at("ab_gain").get<double>() > 0.5);  // the baseline runs each call 6 times
  }
  // Every record is one of the search's measurements: a size of a candidate, in and out of place.
  const json doc = read_json_file(dir / "run.json");
  CHECK(doc.at("records").size() == 2 * search.at("measurements").get<std::size_t>());
}

}  // namespace

TEST_CASE("racing finds the one unslowed point in every band with a third of the grid") {
  const auto dir = scratch_dir("search-racing");
  const json search = search_run("racing", dir);
  check_found_the_unslowed_point(search, dir);
  // The baseline dropped in round 1 in every band, by the winner, by about its slow-down.
  for (const json& point : search.at("points")) {
    if (point.at("point") != kBaseline) continue;
    for (const json& band : point.at("bands")) {
      CHECK(band.at("state") == "dropped");
      CHECK(band.at("round") == 1);
      CHECK(band.at("by") == kWinner);
      CHECK(band.at("gain").get<double>() > 0.5);
    }
  }
}

TEST_CASE("racing over the testing variables' isolation groups finds each band's constructed winner in workers") {
  const auto dir = scratch_dir("search-groups");
  std::filesystem::create_directories(dir);
  const auto sweep = dir / "slowdown-grid.yaml";
  std::ofstream(sweep) << slowdown_grid_sweep("racing", 1, 10, 8, "[128K, 256K, 512K, 1M]");
  const auto out = dir / "out";
  const Launch run = mpirun_ncclsweep(2, {"run", sweep.string(), "-o", out.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  const json search = read_json_file(out / "search.json");
  INFO(search.dump(2));
  REQUIRE(search.at("bands").size() == 3);
  const std::vector<std::string> expected = slowdown_winners(search);
  CHECK(expected.front() != expected.back());  // small and large sizes have different winners
  for (std::size_t b = 0; b < expected.size(); ++b) {
    const json& band = search.at("bands")[b];
    CHECK(band.at("winner") == expected[b]);
    CHECK(band.at("ab_measured") == true);
  }
  CHECK(search.at("measurements").get<long>() * 3 <= search.at("grid_measurements").get<long>());
  CHECK(search.at("isolation_groups") == 9);
  // Each group's workers started at most once: they stay up between rounds.
  const int starts = search.at("worker_starts").get<int>();
  CHECK(starts >= 1);
  CHECK(starts <= 9);
}
