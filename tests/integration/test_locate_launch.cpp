// ncclsweep locate end to end on the mpi engine: 4 fake hosts x 2 ranks under one MPMD
// mpirun, with the slow-down testing aid on a rank, and judged against a reference. Which
// host, link or GPU pair a slow-down marks, and that a healthy launch names nothing, is
// judged on exact figures in tests/unit/test_locate_in_process.cpp; here real CPU timing
// must still find the slowed host.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "catch_compat.hpp"
#include "integration/launch.hpp"
#include "read_file.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

// 8 ranks share the test machine's (two) cores, so CPU timing is noisy: a rank waits
// for a core for milliseconds, and the load of other work comes in spells. Each run of
// the schedule is split anew 5 times (--passes 5), so every pair's repeats are spread
// over the launch, 20 calls a repeat. The slowed host does not read 1/FACTOR: while the
// other hosts wait for it, its two ranks have the cores nearly to themselves, where the
// healthy figures were taken four ranks a core. A 10-fold slow-down read 0.3x in its
// own numbers and 0.18-0.29x with its partners, right at a 0.25 threshold, and CI then
// named nothing once. 40-fold reads about 0.05x and leaves room on both sides (healthy
// figures rarely read below 0.5x, and then with a wide band or in one test only).
// The defaults (0.9, 3 repeats, one pass) are for GPUs, whose timing is steady.
Launch locate_on_four_hosts(const std::filesystem::path& dir, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{"locate",   "--engine",  "mpi", "--sizes",  "256K", "--warmup",    "5",
                                "--iters",  "20",        "--repeats", "1", "--passes", "5", "--threshold", "0.25",
                                "-o",       dir.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<AppContext> apps;
  for (int h = 0; h < 4; ++h) apps.push_back({2, {"NCCLSWEEP_FAKE_HOSTNAME=h" + std::to_string(h)}, args});
  return mpirun_mpmd(apps);
}

}  // namespace

TEST_CASE("locate names exactly the host of a slowed rank", "[locate]") {
  const auto dir = scratch_dir("locate-slow-rank");
  const Launch run = locate_on_four_hosts(dir, {"--inject-fault", "5:slow=40"});
  INFO(run.output);
  CHECK(run.status == 1);
  const json findings = findings_of(dir);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].at("kind") == "host");
  CHECK(findings[0].at("hosts") == json{"h2"});
  CHECK(findings[0].at("ranks") == json{4, 5});
  CHECK_THAT(run.output, ContainsSubstring("host  4-5"));

  // The records are run's records, each with its place: phase, round, pass and pair; 3
  // pair rounds of 2 pairs for 4 hosts.
  std::ifstream records(dir / "records.jsonl");
  std::set<int> rounds;
  int host_rows = 0;
  for (std::string line; std::getline(records, line);) {
    const json r = json::parse(line);
    CHECK(r.at("dtype") == "float32");
    CHECK(r.at("busbw_gbps").get<double>() > 0);
    const json& place = r.at("locate");
    if (place.at("phase") == "pairs") rounds.insert(place.at("round").get<int>());
    if (place.at("phase") == "host") ++host_rows;
  }
  CHECK(rounds == std::set<int>{1, 2, 3});
  CHECK(host_rows == 4 * 3 * 5);  // hosts x tests x (1 repeat x 5 passes)

  // report re-judges the records: the same host, and the heat map of 4 x 4 cells.
  const Launch report = run_ncclsweep({"report", dir.string(), "--format", "json"});
  INFO(report.output);
  REQUIRE(report.status == 0);
  CHECK(json::parse(report.output).at("findings").size() == 1);
  const Launch svg = run_ncclsweep({"report", dir.string(), "--format", "svg"});
  REQUIRE(svg.status == 0);
  CHECK_THAT(svg.output, ContainsSubstring("<svg"));
  std::size_t cells = 0;
  for (std::size_t at = svg.output.find("<rect"); at != std::string::npos; at = svg.output.find("<rect", at + 1)) ++cells;
  CHECK(cells == 16);
  CHECK_THAT(svg.output, ContainsSubstring("h2 x h0"));
}

TEST_CASE("locate names a slowed link as that link, and no host", "[locate]") {
  const auto dir = scratch_dir("locate-slow-link");
  const Launch run = locate_on_four_hosts(dir, {"--inject-fault", "link=h1,h2:slow=40"});
  INFO(run.output);
  CHECK(run.status == 1);
  const json findings = findings_of(dir);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].at("kind") == "link");
  CHECK(findings[0].at("hosts") == json{"h1", "h2"});
  for (const json& f : read_json_file(dir / "run.json").at("verdicts").at("unresolved")) CHECK(f.at("kind") != "host");
}

TEST_CASE("locate names nothing on a launch without a fault", "[locate]") {
  const auto dir = scratch_dir("locate-clean");
  const std::filesystem::path map = dir.string() + "-hosts.svg";
  std::filesystem::remove(map);
  const Launch run = locate_on_four_hosts(dir, {"--svg", map.string()});
  INFO(run.output);
  CHECK(run.status == 0);
  CHECK(findings_of(dir).empty());
  CHECK_THAT(run.output, ContainsSubstring("# locate: nothing slow on 4 host(s), 8 rank(s)"));
  // --svg: the heat map, a cell for each of the 4 x 4 host pairs.
  const std::string svg = read_file(map);
  CHECK_THAT(svg, ContainsSubstring("<svg"));
  CHECK(occurrences(svg, "<rect") == 16);
  CHECK_THAT(svg, ContainsSubstring("h2 x h0"));
}

TEST_CASE("locate refuses an --svg path it could not write before it measures anything", "[locate][untimed]") {
  const auto dir = scratch_dir("locate-bad-svg");
  const Launch run = locate_on_four_hosts(dir, {"--svg", (dir / "no-such-dir" / "hosts.svg").string()});
  INFO(run.output);
  CHECK(run.status == 2);
  CHECK_THAT(run.output, ContainsSubstring("--svg " + (dir / "no-such-dir" / "hosts.svg").string()));
  CHECK_FALSE(std::filesystem::exists(dir / "records.jsonl"));
}

TEST_CASE("a locate too short to tell its threshold from noise says so and how long would do", "[locate]") {
  // One call of 4 KiB a repeat on 8 ranks sharing 2 cores: far too short to tell 0.9.
  const auto dir = scratch_dir("locate-too-short");
  std::vector<AppContext> apps;
  for (int h = 0; h < 4; ++h) {
    apps.push_back({2, {"NCCLSWEEP_FAKE_HOSTNAME=h" + std::to_string(h)},
                    {"locate", "--engine", "mpi", "--sizes", "4K", "--warmup", "0", "--iters", "1", "--repeats", "3",
                     "-o", dir.string()}});
  }
  const Launch run = mpirun_mpmd(apps);
  INFO(run.output);
  CHECK((run.status == 0 || run.status == 1));
  CHECK_THAT(run.output, ContainsSubstring("# resolution: "));
  CHECK_THAT(run.output, ContainsSubstring("--threshold 0.90 needs about"));
  const json verdicts = read_json_file(dir / "run.json").at("verdicts");
  bool short_somewhere = false;
  for (const json& r : verdicts.at("resolution")) short_somewhere = short_somewhere || !r.at("resolves_threshold").get<bool>();
  CHECK(short_somewhere);
  // Whatever it names slow it names beyond the noise it reports, never within it.
  for (const json& f : verdicts.at("findings")) CHECK_THAT(f.at("evidence").back().get<std::string>(), ContainsSubstring("beyond noise"));
}

TEST_CASE("locate --reference judges against an earlier locate instead of this launch's median", "[locate][leaks]") {
  // The fixture's figures (1000 GB/s) are far above anything the mpi engine reaches on
  // a CPU: judged against them every host is slow, where the launch alone names nothing.
  const std::string fast = std::string(NCCLSWEEP_TEST_DATA) + "/locate/reference-fast";
  const auto dir = scratch_dir("locate-reference");
  const Launch run = locate_on_four_hosts(dir, {"--reference", fast});
  INFO(run.output);
  CHECK(run.status == 1);
  const json verdicts = read_json_file(dir / "run.json").at("verdicts");
  CHECK(verdicts.at("judged_against") == fast);
  std::set<std::string> hosts;
  for (const json& f : verdicts.at("findings")) {
    CHECK(f.at("kind") == "host");
    hosts.insert(f.at("hosts")[0].get<std::string>());
    CHECK_THAT(f.at("evidence")[0].get<std::string>(), ContainsSubstring("the reference (" + fast + ")"));
  }
  CHECK(hosts == std::set<std::string>{"h0", "h1", "h2", "h3"});
  // report judges the records against the same figures, kept in run.json.
  const Launch report = run_ncclsweep({"report", dir.string(), "--format", "json"});
  REQUIRE(report.status == 0);
  CHECK(json::parse(report.output).at("findings").size() == 4);
}

TEST_CASE("locate --reference refuses a missing or incompatible directory with exit 2", "[locate][untimed]") {
  const std::string three = std::string(NCCLSWEEP_TEST_DATA) + "/locate/reference-3-per-host";
  const Launch mismatch = mpirun_ncclsweep(
      2, {"locate", "--engine", "mpi", "--reference", three, "-o", scratch_dir("locate-bad-reference").string()});
  INFO(mismatch.output);
  CHECK(mismatch.status == 2);
  CHECK_THAT(mismatch.output, ContainsSubstring("--reference " + three + ": it has 3 rank(s) per host, this launch 2"));
  const Launch missing = mpirun_ncclsweep(
      2, {"locate", "--engine", "mpi", "--reference", "/nonexistent/locate", "-o", scratch_dir("locate-no-reference").string()});
  INFO(missing.output);
  CHECK(missing.status == 2);
  CHECK_THAT(missing.output, ContainsSubstring("--reference /nonexistent/locate: no such directory"));
}

TEST_CASE("locate on one rank says it needs two and exits 2", "[locate][untimed]") {
  const Launch run = run_ncclsweep({"locate", "--engine", "mpi", "-o", scratch_dir("locate-one").string()});
  INFO(run.output);
  CHECK(run.status == 2);
  CHECK_THAT(run.output, ContainsSubstring("locate needs at least two ranks"));
}

TEST_CASE("locate --dry-run estimates the rounds without launching", "[locate][untimed]") {
  const Launch run = run_ncclsweep({"locate", "--dry-run", "--hosts", "64", "--ranks-per-host", "8"});
  INFO(run.output);
  CHECK(run.status == 0);
  CHECK_THAT(run.output, ContainsSubstring("64 host(s) x 8 rank(s): 66 split(s), 63 pairs round(s)"));
  const Launch missing = run_ncclsweep({"locate", "--dry-run"});
  CHECK(missing.status == 2);
  CHECK_THAT(missing.output, ContainsSubstring("--hosts N"));
}
