// ncclsweep locate end to end on the mpi engine: 4 fake hosts x 2 ranks under one MPMD
// mpirun, with the slow-down testing aid on a rank or on a link, and without it.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "catch_compat.hpp"
#include "integration/launch.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

// 8 ranks share the test machine's cores, so CPU timing is noisy (pairs of one round
// compete for the cores): enough warm-up and repeats, and a 5-fold slow-down against a
// 0.5 threshold, leave room on both sides.
Launch locate_on_four_hosts(const std::filesystem::path& dir, const std::string& fault = "") {
  std::vector<std::string> args{"locate", "--engine",    "mpi", "--sizes",     "256K", "--warmup", "5",
                                "--iters", "10",         "--repeats", "5", "--threshold", "0.5", "-o", dir.string()};
  if (!fault.empty()) {
    args.push_back("--inject-fault");
    args.push_back(fault);
  }
  std::vector<AppContext> apps;
  for (int h = 0; h < 4; ++h) apps.push_back({2, {"NCCLSWEEP_FAKE_HOSTNAME=h" + std::to_string(h)}, args});
  return mpirun_mpmd(apps);
}

json findings_of(const std::filesystem::path& dir) { return read_json_file(dir / "run.json").at("verdicts").at("findings"); }

}  // namespace

TEST_CASE("locate names exactly the host of a slowed rank", "[locate]") {
  const auto dir = scratch_dir("locate-slow-rank");
  const Launch run = locate_on_four_hosts(dir, "5:slow=5");
  INFO(run.output);
  CHECK(run.status == 1);
  const json findings = findings_of(dir);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].at("kind") == "host");
  CHECK(findings[0].at("hosts") == json{"h2"});
  CHECK(findings[0].at("ranks") == json{4, 5});
  CHECK_THAT(run.output, ContainsSubstring("host  4-5"));

  // The records carry phase, round and pair; 3 pair rounds of 2 pairs for 4 hosts.
  std::ifstream records(dir / "records.jsonl");
  std::set<int> rounds;
  int host_rows = 0;
  for (std::string line; std::getline(records, line);) {
    const json r = json::parse(line);
    if (r.at("phase") == "pairs") rounds.insert(r.at("round").get<int>());
    if (r.at("phase") == "host") ++host_rows;
  }
  CHECK(rounds == std::set<int>{1, 2, 3});
  CHECK(host_rows == 4 * 3 * 5);  // hosts x tests x repeats

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

// Hidden from the default run (tag [.locate-timing]; run them with
// `integration_tests "[locate-timing]"`): CPU-timed sendrecv between oversubscribed ranks
// flagged a healthy host at 0.41x on a loaded 2-core machine, and on a 16-core machine a
// second partner of the slowed link's host read 0.19x. Until the verdicts get repeats
// (issue 19), these two would make CI fail by chance.
TEST_CASE("locate names exactly a slowed link as a link", "[.locate-timing]") {
  const auto dir = scratch_dir("locate-slow-link");
  const Launch run = locate_on_four_hosts(dir, "link=h0,h3:slow=5");
  INFO(run.output);
  CHECK(run.status == 1);
  // The slowed pair is named as a link and no host is named. On this oversubscribed CPU
  // the other pair of the same round can be named too: the slowed pair's waiting ranks
  // spin on the cores it needs (docs/locate.md); on GPUs pairs of a round share nothing.
  bool named = false;
  for (const json& f : findings_of(dir)) {
    CHECK(f.at("kind") == "link");
    named = named || f.at("hosts") == json{"h0", "h3"};
  }
  CHECK(named);
}

TEST_CASE("locate names nothing without a fault, over 5 runs", "[.locate-timing]") {
  for (int run_number = 0; run_number < 5; ++run_number) {
    const auto dir = scratch_dir("locate-healthy-" + std::to_string(run_number));
    const Launch run = locate_on_four_hosts(dir);
    INFO("run " << run_number << "\n" << run.output);
    CHECK(run.status == 0);
    CHECK(findings_of(dir).empty());
    CHECK_THAT(run.output, ContainsSubstring("nothing slow on 4 host(s), 8 rank(s)"));
  }
}

TEST_CASE("locate on one rank says it needs two and exits 2", "[locate]") {
  const Launch run = run_ncclsweep({"locate", "--engine", "mpi", "-o", scratch_dir("locate-one").string()});
  INFO(run.output);
  CHECK(run.status == 2);
  CHECK_THAT(run.output, ContainsSubstring("locate needs at least two ranks"));
}

TEST_CASE("locate --dry-run estimates the rounds without launching", "[locate]") {
  const Launch run = run_ncclsweep({"locate", "--dry-run", "--hosts", "64", "--ranks-per-host", "8"});
  INFO(run.output);
  CHECK(run.status == 0);
  CHECK_THAT(run.output, ContainsSubstring("64 host(s) x 8 rank(s): 64 split(s), 63 pairs round(s)"));
  const Launch missing = run_ncclsweep({"locate", "--dry-run"});
  CHECK(missing.status == 2);
  CHECK_THAT(missing.output, ContainsSubstring("--hosts N"));
}
