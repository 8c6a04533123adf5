// ncclsweep locate on GPUs (scripts/gpu-check): the refusal on one GPU, and the pairs
// phase over NVLink against `ncclsweep run` when two GPUs each get their own host name.
#include <cuda_runtime.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "catch_compat.hpp"
#include "gpu/visible_gpus.hpp"
#include "integration/launch.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

TEST_CASE("locate with one GPU explains that it needs two and exits 2") {
  const Launch alone = run_ncclsweep({"locate", "-o", scratch_dir("gpu-locate-alone").string()});
  INFO(alone.output);
  CHECK(alone.status == 2);
  CHECK_THAT(alone.output, ContainsSubstring("needs at least two"));
  if (visible_gpus() != 1) return;
  // Two ranks on the one GPU: still one GPU.
  const Launch shared = mpirun_ncclsweep(2, {"locate", "-o", scratch_dir("gpu-locate-shared").string()});
  INFO(shared.output);
  CHECK(shared.status == 2);
  CHECK_THAT(shared.output, ContainsSubstring("locate needs at least two GPUs"));
}

TEST_CASE("locate's pairs phase on two GPUs as two hosts agrees with run within 2%") {
  NCCLSWEEP_SKIP_UNLESS_GPUS(2, "one GPU per host name");
  // The run first: it is also the --reference of the locate (all_gather and sendrecv at
  // 256M on 2 ranks, what the pairs phase measures on one GPU per host).
  const auto run_dir = scratch_dir("gpu-locate-run");
  const Launch run = mpirun_ncclsweep(2, {"run", "--collectives", "all_gather,sendrecv", "--sizes", "256M", "--iters",
                                          "20", "--repeats", "5", "-o", run_dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  std::ifstream in(run_dir / "run.json");
  const json doc = json::parse(in);
  std::vector<double> run_busbw;
  for (const json& r : doc.at("records")) {
    if (r.at("placement") == "out_of_place" && r.at("collective") == "all_gather") {
      run_busbw.push_back(r.at("busbw_gbps").get<double>());
    }
  }
  REQUIRE(!run_busbw.empty());

  const auto dir = scratch_dir("gpu-locate-pairs");
  const std::vector<std::string> args{"locate", "--phases", "pairs", "--sizes", "256M", "--iters", "20",
                                      "--repeats", "5", "--reference", run_dir.string(), "-o", dir.string()};
  const Launch located = mpirun_mpmd({{1, {"NCCLSWEEP_FAKE_HOSTNAME=gpu0"}, args}, {1, {"NCCLSWEEP_FAKE_HOSTNAME=gpu1"}, args}});
  INFO(located.output);
  // Judged against the run it agrees with: nothing slow (within the 0.9 threshold).
  CHECK(located.status == 0);
  const json located_doc = read_json_file(dir / "run.json");
  CHECK(located_doc.at("verdicts").at("judged_against") == run_dir.string());
  // NCCL 2.18 and later: the splits share the world communicator's resources.
  CHECK_THAT(located_doc.at("split").get<std::string>(), ContainsSubstring("ncclCommSplit, shared resources"));
  CHECK_THAT(located.output, ContainsSubstring("# splits: ncclCommSplit, shared resources"));
  CHECK_THAT(located.output, ContainsSubstring("# step 1/1: pairs round 1 took"));
  std::vector<double> pair_busbw;
  std::ifstream records(dir / "records.jsonl");
  for (std::string line; std::getline(records, line);) {
    const json r = json::parse(line);
    if (r.at("locate").at("phase") == "pairs" && r.at("collective") == "all_gather") {
      pair_busbw.push_back(r.at("busbw_gbps").get<double>());
    }
  }
  REQUIRE(pair_busbw.size() == 5);
  const double located_gbps = median(pair_busbw), run_gbps = median(run_busbw);
  INFO("locate " << located_gbps << " GB/s, run " << run_gbps << " GB/s");
  CHECK(located_gbps == Approx(run_gbps).epsilon(0.02));
}
