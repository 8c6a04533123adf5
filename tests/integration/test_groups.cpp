// Sub-communicator groups end to end: real mpirun -np 4 with the mpi engine, groups of
// 2 (strided and adjacent), records per group, busbw on the group's rank count, the
// check pattern exact inside each group, and sizes from a workload on their own groups.
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "catch_compat.hpp"
#include "test_data.hpp"
#include "integration/launch.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

namespace {


// all_gather busbw = algbw x (n-1)/n; all_reduce x 2(n-1)/n: with n = 2, 1/2 and 1.
void check_groups_of_two(const json& doc, const std::string& kind) {
  REQUIRE(doc.at("records").size() == 4);  // 2 collectives x out-of-place and in-place
  for (const json& r : doc.at("records")) {
    INFO(r.dump());
    CHECK(r.at("communicator") == kind);
    CHECK(r.at("ranks") == 2);
    CHECK(r.at("communicators") == 2);
    CHECK(r.at("wrong") == 0);  // every element of every group's output as the pattern says
    const double factor = r.at("collective") == "all_gather" ? 0.5 : 1.0;
    CHECK(r.at("busbw_gbps").get<double>() == Approx(r.at("algbw_gbps").get<double>() * factor));
    // The size is the group's: 64 KiB over 2 ranks of float32 is 8192 elements each.
    CHECK(r.at("count") == (r.at("collective") == "all_gather" ? 8192 : 16384));
    const json& groups = r.at("per_communicator");
    REQUIRE(groups.size() == 2);
    std::set<int> colours;
    double slowest = 0;
    for (const json& g : groups) {
      colours.insert(g.at("colour").get<int>());
      CHECK(g.at("busbw_gbps").get<double>() > 0);
      slowest = std::max(slowest, g.at("time_us").at("max").get<double>());
    }
    CHECK(colours == std::set<int>{0, 1});
    // The aggregate is the slowest group.
    CHECK(r.at("time_us").at("max").get<double>() == Approx(slowest));
  }
}

}  // namespace

TEST_CASE("groups stride:2 on 4 ranks run two strided groups of 2, checked and per group") {
  const auto dir = scratch_dir("groups-stride");
  const Launch run = mpirun_ncclsweep(4, {"run", "--engine", "mpi", "--collectives", "all_gather,all_reduce", "--sizes",
                                          "64K", "--groups", "stride:2", "--warmup", "1", "--iters", "3", "-o",
                                          dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  check_groups_of_two(read_json_file(dir / "run.json"), "stride");
}

TEST_CASE("groups size:2 on 4 ranks run adjacent blocks of 2") {
  const auto dir = scratch_dir("groups-size");
  const Launch run = mpirun_ncclsweep(4, {"run", "--engine", "mpi", "--collectives", "all_gather,all_reduce", "--sizes",
                                          "64K", "--groups", "size:2", "--warmup", "1", "--iters", "3", "-o",
                                          dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  check_groups_of_two(read_json_file(dir / "run.json"), "size");
}

TEST_CASE("a corrupted element inside a group is still caught") {
  const auto dir = scratch_dir("groups-corrupt");
  const Launch run = mpirun_ncclsweep(4, {"run", "--engine", "mpi", "--collectives", "all_reduce", "--sizes", "4K",
                                          "--groups", "size:2", "--iters", "1", "--warmup", "0",
                                          "--inject-corrupt-rank", "3", "-o", dir.string()});
  INFO(run.output);
  CHECK(run.status == 3);
  for (const json& r : read_json_file(dir / "run.json").at("records")) CHECK(r.at("wrong").get<int>() > 0);
}

TEST_CASE("groups that do not divide the ranks are refused with exit 2") {
  const Launch run = mpirun_ncclsweep(4, {"run", "--engine", "mpi", "--sizes", "4K", "--groups", "size:3"});
  INFO(run.output);
  CHECK(run.status == 2);
  CHECK_THAT(run.output, ContainsSubstring("do not split into blocks of 3"));
}

TEST_CASE("sizes from a workload run on their own groups and are weighted per iteration", "[leaks]") {
  const auto dir = scratch_dir("groups-workload");
  std::filesystem::create_directories(dir);  // scratch_dir leaves it to ncclsweep -o
  const auto sweep = dir / "tiny.yaml";
  std::ofstream(sweep) << "name: tiny\nengine: mpi\nsizes: {workload: " << (kTestData / "workloads/tiny-tp2-dp2.yaml").string()
                       << "}\nwarmup: 0\niters: 2\n";
  const auto out = dir / "results";
  const Launch run = mpirun_ncclsweep(4, {"run", sweep.string(), "--models-dir", (kTestData / "models").string(), "-o",
                                          out.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  CHECK_THAT(run.output, ContainsSubstring("collective time per training iteration"));
  const json doc = read_json_file(out / "run.json");
  std::set<std::string> kinds;
  for (const json& r : doc.at("records")) {
    kinds.insert(r.at("communicator").get<std::string>());
    CHECK(r.at("wrong") == 0);
    if (r.at("communicator") == "dp-cp" || r.at("communicator") == "tp") CHECK(r.at("ranks") == 2);
  }
  CHECK(kinds.count("dp-cp") == 1);  // Megatron's gradient reduce-scatter and parameter all-gather
  CHECK(kinds.count("tp") == 1);  // sequence-parallel all-gather / reduce-scatter
  REQUIRE(doc.contains("workload"));
  REQUIRE(doc.at("iteration_times").size() == 1);
  const json& t = doc.at("iteration_times")[0];
  CHECK(t.at("ms").get<double>() > 0);
  CHECK(t.at("missing") == 0);  // every call measured at its own size
  CHECK(t.at("measured").get<int>() == static_cast<int>(doc.at("workload").at("calls").size()));

  const Launch report = run_ncclsweep({"report", out.string(), "--format", "md"});
  INFO(report.output);
  CHECK(report.status == 0);
  CHECK_THAT(report.output, ContainsSubstring("collective time per training iteration"));
  CHECK_THAT(report.output, ContainsSubstring("on dp-cp groups of 2"));
}

TEST_CASE("a workload that does not fit the ranks runs on the world communicator, saying so") {
  const auto dir = scratch_dir("groups-workload-2");
  std::filesystem::create_directories(dir);  // scratch_dir leaves it to ncclsweep -o
  const auto sweep = dir / "tiny.yaml";
  std::ofstream(sweep) << "engine: mpi\nsizes: {workload: " << (kTestData / "workloads/tiny-tp2-dp2.yaml").string()
                       << "}\nwarmup: 0\niters: 1\ncheck: false\n";
  // The layout is for 4 ranks; on 3 its groups of 2 cannot be made.
  const Launch run = mpirun_ncclsweep(3, {"run", sweep.string(), "--models-dir", (kTestData / "models").string(), "-o",
                                          (dir / "results").string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  CHECK_THAT(run.output, ContainsSubstring("layout has 4 ranks, this run 3"));
  CHECK_THAT(run.output, ContainsSubstring("run on the world communicator"));
  for (const json& r : read_json_file(dir / "results/run.json").at("records")) {
    CHECK(r.at("ranks") == 3);
    CHECK_FALSE(r.contains("communicator"));
  }
}

TEST_CASE("a sweep file naming a missing workload fails with exit 2 at its line") {
  const auto dir = scratch_dir("groups-missing");
  std::filesystem::create_directories(dir);  // scratch_dir leaves it to ncclsweep -o
  const auto sweep = dir / "bad.yaml";
  std::ofstream(sweep) << "engine: mpi\n\nsizes: {workload: no/such/workload.yaml}\n";
  const Launch run = mpirun_ncclsweep(2, {"run", sweep.string(), "-o", (dir / "r").string()});
  INFO(run.output);
  CHECK(run.status == 2);
  CHECK_THAT(run.output, ContainsSubstring(sweep.string() + ":3"));
  CHECK_THAT(run.output, ContainsSubstring("no/such/workload.yaml"));
  const Launch plan = run_ncclsweep({"plan", sweep.string()});
  CHECK(plan.status == 2);
  CHECK_THAT(plan.output, ContainsSubstring(sweep.string() + ":3"));
}
