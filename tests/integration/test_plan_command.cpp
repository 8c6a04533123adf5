// `ncclsweep plan` as a user runs it: exit statuses, JSON on stdout, its count against run's.
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "catch_compat.hpp"
#include "integration/launch.hpp"

using namespace ncclsweep::testing;

namespace {
const std::string kSweeps = std::string(NCCLSWEEP_SOURCE_DIR) + "/sweeps/";
const std::string kBad = std::string(NCCLSWEEP_SOURCE_DIR) + "/tests/data/bad-sweeps/";
}  // namespace

TEST_CASE("plan prints JSON with one object per point and its group, command-line axes included", "[leaks]") {
  const Launch plan = run_ncclsweep({"plan", kSweeps + "nvlink-channels.yaml", "--format", "json", "--env",
                                     "NCCL_PROTO=LL,Simple", "--config", "max_ctas=8,32"});
  INFO(plan.output);
  REQUIRE(plan.status == 0);
  const auto doc = nlohmann::json::parse(plan.output);
  CHECK(doc.at("points").size() == 8);
  CHECK(doc.at("isolation_groups").size() == 2);
  CHECK(doc.at("points")[7].at("label") == "NCCL_MAX_NCHANNELS=32 NCCL_PROTO=Simple max_ctas=32");
  CHECK(doc.at("points")[7].at("isolation_group") == 1);
}

TEST_CASE("plan refuses a bad sweep file with its place and exit status 2") {
  const Launch plan = run_ncclsweep({"plan", kBad + "unknown-nccl-variable.yaml"});
  CHECK(plan.status == 2);
  CHECK_THAT(plan.output, ContainsSubstring("unknown-nccl-variable.yaml:3:3: unknown NCCL variable"));
  CHECK_THAT(plan.output, ContainsSubstring("did you mean NCCL_IB_QPS_PER_CONNECTION?"));
}

TEST_CASE("plan --engine mpi refuses an env grid with exit status 2 and plans the mpi smoke sweep") {
  CHECK(run_ncclsweep({"plan", kSweeps + "smoke.yaml", "--engine", "mpi"}).status == 2);
  const Launch ok = run_ncclsweep({"plan", kSweeps + "smoke-mpi.yaml"});
  INFO(ok.output);
  CHECK(ok.status == 0);
  CHECK_THAT(ok.output, ContainsSubstring("estimated run time"));
}

// What plan counts is what run measures: each sweep run on the mpi engine, its records
// counted (one per measurement, out of place and in place).
TEST_CASE("plan counts exactly the measurements run makes: the mpi sweeps, a workload's calls, a calls block") {
  const std::string data = std::string(NCCLSWEEP_SOURCE_DIR) + "/tests/data/";
  const std::vector<std::pair<std::string, int>> sweeps{
      {kSweeps + "smoke-mpi.yaml", 2}, {kSweeps + "workload-2gpu-mpi.yaml", 2}, {data + "calls-block-mpi.yaml", 4}};
  for (const auto& [file, ranks] : sweeps) {
    const Launch plan = run_ncclsweep({"plan", file, "--format", "json", "--ranks", std::to_string(ranks)});
    INFO(file << "\n" << plan.output);
    REQUIRE(plan.status == 0);
    const auto planned = nlohmann::json::parse(plan.output).at("estimate").at("measurements").get<std::size_t>();
    const auto dir = scratch_dir("plan-counts-" + std::filesystem::path(file).stem().string());
    // --check 0: what is counted here is the records; filling and checking the workload's
    // 131 MB buffers was 10 of the case's 13 s on the sanitized build.
    const Launch run =
        mpirun_ncclsweep(ranks, {"run", file, "--iters", "1", "--warmup", "0", "--check", "0", "-o", dir.string()});
    INFO(run.output);
    REQUIRE(run.status == 0);
    std::ifstream records(dir / "records.jsonl");
    std::size_t measured = 0;
    for (std::string line; std::getline(records, line);) measured += line.empty() ? 0 : 1;
    CHECK(measured == planned);
  }
}
