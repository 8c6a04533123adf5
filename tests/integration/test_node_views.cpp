// Multi-node views end to end: a real mpirun -np 4 with the mpi engine, the ranks told
// to report fake host names (NCCLSWEEP_FAKE_HOSTNAME, one per MPMD app context), then
// `ncclsweep report` on the results: the per-node section and the slow group's hosts.
#include <nlohmann/json.hpp>

#include "catch_compat.hpp"
#include "integration/launch.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

// Rank 0 on nodeA, ranks 1-3 on nodeB: stride:2 groups are {0,2} (both hosts) and
// {1,3} (nodeB only), so a wrong rank list or host map shows.
Launch grouped_run_on_two_fake_hosts(const std::filesystem::path& dir) {
  const std::vector<std::string> args{"run",      "--engine", "mpi", "--collectives", "all_gather", "--sizes", "64K,256K",
                                      "--groups", "stride:2", "--warmup", "1", "--iters", "5", "-o", dir.string()};
  return mpirun_mpmd({{1, {"NCCLSWEEP_FAKE_HOSTNAME=nodeA"}, args}, {3, {"NCCLSWEEP_FAKE_HOSTNAME=nodeB"}, args}});
}

}  // namespace

TEST_CASE("report shows the per-node view and the slow group's hosts for a grouped run on two fake hosts") {
  const auto dir = scratch_dir("node-views");
  const Launch run = grouped_run_on_two_fake_hosts(dir);
  INFO(run.output);
  REQUIRE(run.status == 0);
  const json doc = read_json_file(dir / "run.json");
  REQUIRE(doc.at("ranks").size() == 4);
  CHECK(doc.at("ranks")[0].at("host") == "nodeA");
  CHECK(doc.at("ranks")[3].at("host") == "nodeB");

  // Two hosts: the table report carries the per-node section without being asked.
  const Launch table = run_ncclsweep({"report", dir.string()});
  INFO(table.output);
  REQUIRE(table.status == 0);
  CHECK_THAT(table.output, ContainsSubstring("per node: time per call against the median rank (median of 4 measurements)"));
  CHECK_THAT(table.output, ContainsSubstring("slowest host: node"));
  CHECK_THAT(table.output, ContainsSubstring("slow groups:"));

  // Threshold 0: of two groups at least one is slower than the other in the median.
  const Launch view = run_ncclsweep({"report", dir.string(), "--nodes", "only", "--format", "json", "--slow-threshold", "0"});
  INFO(view.output);
  REQUIRE(view.status == 0);
  const json nodes = json::parse(view.output);
  REQUIRE(nodes.at("nodes").size() == 2);
  CHECK(nodes.at("nodes")[0].at("host") == "nodeA");
  CHECK(nodes.at("nodes")[0].at("ranks") == json({0}));
  CHECK(nodes.at("nodes")[1].at("host") == "nodeB");
  CHECK(nodes.at("nodes")[1].at("ranks") == json({1, 2, 3}));
  CHECK(nodes.at("measurements") == 4);  // 2 sizes x out-of-place and in-place
  CHECK(nodes.at("grouped_measurements") == 4);
  const json& slow = nodes.at("slow_groups");
  REQUIRE(slow.size() >= 1);
  for (const json& g : slow) {
    INFO(g.dump());
    CHECK(g.at("kind") == "stride");
    if (g.at("colour") == 0) {
      CHECK(g.at("ranks") == json({0, 2}));
      CHECK(g.at("hosts") == json({"nodeA", "nodeB"}));
    } else {
      CHECK(g.at("colour") == 1);
      CHECK(g.at("ranks") == json({1, 3}));
      CHECK(g.at("hosts") == json({"nodeB"}));
    }
  }
  // The same group in words.
  const Launch words = run_ncclsweep({"report", dir.string(), "--nodes", "only", "--slow-threshold", "0"});
  const int first = slow[0].at("colour").get<int>();
  CHECK_THAT(words.output, ContainsSubstring(first == 0 ? "stride group 0 (ranks 0,2) spans hosts nodeA,nodeB"
                                                        : "stride group 1 (ranks 1,3) spans host nodeB"));
}

TEST_CASE("report --nodes only refuses nccl-tests output, and one host needs no per-node section") {
  const Launch refused = run_ncclsweep({"report", std::string(NCCLSWEEP_TEST_DATA) + "/nccl-tests/nccl-tests-all_gather-np2.txt",
                                        "--nodes", "only"});
  INFO(refused.output);
  CHECK(refused.status == 2);
  CHECK_THAT(refused.output, ContainsSubstring("--nodes only needs an ncclsweep results directory"));

  const auto dir = scratch_dir("node-views-one-host");
  const Launch run = mpirun_ncclsweep(2, {"run", "--engine", "mpi", "--collectives", "all_reduce", "--sizes", "4K",
                                          "--warmup", "1", "--iters", "3", "-o", dir.string()});
  REQUIRE(run.status == 0);
  const Launch table = run_ncclsweep({"report", dir.string()});
  CHECK(table.status == 0);
  CHECK(table.output.find("per node:") == std::string::npos);
}
