// Reliability on the GPU (scripts/gpu-check runs it): a worker killed mid-sweep fails
// only its point; a hung rank times out within its deadline plus 5 s and the next point
// runs. Fault injection (docs/reliability.md) makes the last rank misbehave at point
// max_ctas=16: rank 1 of 2 on a machine with 2 or more GPUs, the only rank on one GPU.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "catch_compat.hpp"
#include "gpu/visible_gpus.hpp"
#include "integration/launch.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

std::filesystem::path three_point_sweep(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  const auto path = dir / "sweep.yaml";
  std::ofstream(path) << "name: reliability\ncollectives: all_reduce\nsizes: 1M,16M\nwarmup: 1\niters: 5\n"
                         "config:\n  max_ctas: [8, 16, 32]\n";
  return path;
}

json point(const json& doc, const std::string& label) {
  for (const json& p : doc.at("points")) {
    if (p.at("label") == label) return p;
  }
  FAIL("no point " << label);
  return {};
}

// One rank per GPU, at most 2; skipped (by the caller) without a GPU.
struct FaultyLaunch {
  int ranks = 0;
  std::string faulty_rank;  // the last rank, the one the fault is injected into
};

FaultyLaunch fault_launch() {
  const int ranks = std::min(visible_gpus(), 2);
  return {ranks, std::to_string(ranks - 1)};
}

std::size_t records_of(const json& doc, const std::string& label) {
  std::size_t n = 0;
  for (const json& r : doc.at("records")) n += r.at("point") == label;
  return n;
}

}  // namespace

TEST_CASE("a worker killed mid-sweep fails only its point; the sweep finishes") {
  NCCLSWEEP_SKIP_UNLESS_GPUS(1, "a worker to kill");
  const auto dir = scratch_dir("gpu-kill");
  const auto sweep = three_point_sweep(dir.parent_path() / "gpu-kill-sweep");
  const FaultyLaunch launch = fault_launch();
  const Launch run = mpirun_ncclsweep(launch.ranks, {"run", sweep.string(), "--inject-fault",
                                                     launch.faulty_rank + ":kill@max_ctas=16", "-o", dir.string()});
  INFO(run.output);
  CHECK(run.status == 3);
  std::ifstream in(dir / "run.json");
  const json doc = json::parse(in);
  CHECK(doc.at("status") == "complete");
  CHECK(point(doc, "max_ctas=8").at("status") == "ok");
  const json killed = point(doc, "max_ctas=16");
  CHECK(killed.at("status") == "failed");
  CHECK_THAT(killed.at("error").get<std::string>(), ContainsSubstring("rank " + launch.faulty_rank));
  CHECK(point(doc, "max_ctas=32").at("status") == "ok");
  CHECK(records_of(doc, "max_ctas=8") == 4);
  CHECK(records_of(doc, "max_ctas=16") == 0);
  CHECK(records_of(doc, "max_ctas=32") == 4);
}

TEST_CASE("a hung rank times out within its deadline plus 5 s and the next point runs") {
  NCCLSWEEP_SKIP_UNLESS_GPUS(1, "a worker to hang");
  const auto dir = scratch_dir("gpu-timeout");
  const auto sweep = three_point_sweep(dir.parent_path() / "gpu-timeout-sweep");
  const FaultyLaunch launch = fault_launch();
  const auto start = std::chrono::steady_clock::now();
  const Launch run = mpirun_ncclsweep(launch.ranks, {"run", sweep.string(), "--timeout", "20", "--inject-fault",
                                                     launch.faulty_rank + ":sleep=600@max_ctas=16", "-o", dir.string()});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(run.output);
  CHECK(run.status == 3);
  std::ifstream in(dir / "run.json");
  const json doc = json::parse(in);
  const json hung = point(doc, "max_ctas=16");
  CHECK(hung.at("status") == "timeout");
  CHECK_THAT(hung.at("error").get<std::string>(), ContainsSubstring("rank " + launch.faulty_rank));
  CHECK(point(doc, "max_ctas=32").at("status") == "ok");
  CHECK(records_of(doc, "max_ctas=32") == 4);
  // The other points take seconds; the sleep would take 600.
  CHECK(seconds < 20 + 5 + 60);
}
