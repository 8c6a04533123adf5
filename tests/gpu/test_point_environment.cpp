// GPU acceptance of the point environment (docs/nccl-settings.md): the point after an
// include-extended one runs without the NCCL_ALGO that point added. Works on 1 GPU (then
// NCCL reads no NCCL_ALGO at all, and the recorded environment is the proof); on 2 GPUs
// NCCL's own log shows the first point's NCCL_ALGO and not the second's.
#include <cuda_runtime.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "gpu/visible_gpus.hpp"
#include "integration/launch.hpp"
#include "read_file.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

bool names(const json& point, const std::string& variable) {
  for (const json& s : point.at("settings")) {
    if (s.at("name") == variable) return true;
  }
  return false;
}

// The worker's log cut at each "Init START": one piece per communicator init, in order.
std::vector<std::string> inits_of(const std::string& log) {
  std::vector<std::string> pieces;
  for (std::size_t at = log.find("- Init START"); at != std::string::npos;) {
    const std::size_t next = log.find("- Init START", at + 1);
    pieces.push_back(log.substr(at, next == std::string::npos ? std::string::npos : next - at));
    at = next;
  }
  return pieces;
}

}  // namespace

TEST_CASE("the point after an include-extended one has no NCCL_ALGO, in its record and in NCCL's log") {
  NCCLSWEEP_SKIP_UNLESS_GPUS(1, "the nccl engine");
  const int gpus = visible_gpus();
  const int ranks = gpus >= 2 ? 2 : 1;
  const auto dir = scratch_dir("gpu-point-environment");
  const auto sweep = dir.parent_path() / "gpu-point-environment.yaml";
  // Both points re-read their variables, so one worker runs them in turn: Simple+Ring first.
  std::ofstream(sweep) << "name: point-environment\ncollectives: all_reduce\nsizes: 1M\nwarmup: 1\niters: 5\n"
                          "env:\n  NCCL_PROTO: [Simple, LL]\n"
                          "include:\n  - {NCCL_PROTO: Simple, NCCL_ALGO: Ring}\n";
  const Launch run = mpirun_ncclsweep(ranks, {"run", sweep.string(), "-o", dir.string()});
  INFO(run.output);
  REQUIRE(run.status == 0);
  const json doc = read_json_file(dir / "run.json");
  const json& points = doc.at("points");
  REQUIRE(points.size() == 2);
  REQUIRE(points[0].at("isolation_group") == points[1].at("isolation_group"));  // one worker ran both, in this order
  const json& with_algo = points[0];
  const json& after = points[1];
  REQUIRE(names(with_algo, "NCCL_ALGO"));
  REQUIRE_FALSE(names(after, "NCCL_ALGO"));

  CHECK(with_algo.at("environment").at("NCCL_ALGO") == "Ring");
  CHECK(with_algo.at("environment").at("NCCL_PROTO") == "Simple");
  CHECK(after.at("environment").count("NCCL_ALGO") == 0);
  CHECK(after.at("environment").at("NCCL_PROTO") == "LL");
  CHECK(after.at("environment").at("NCCL_NVLS_ENABLE") == "0");  // the run's own variable stays
  CHECK(with_algo.at("unexpected_environment").empty());
  CHECK(after.at("unexpected_environment").empty());

  const std::string log = read_file(dir / "nccl-logs" / ("group" + std::to_string(after.at("isolation_group").get<int>()) +
                                                          "-rank0.log"));
  const std::vector<std::string> inits = inits_of(log);
  REQUIRE(inits.size() == 2);
  CHECK(inits[1].find("NCCL_ALGO set by environment") == std::string::npos);
  if (ranks >= 2) {
    // NCCL reads NCCL_ALGO and NCCL_PROTO only with more than one rank.
    CHECK(inits[0].find("NCCL_ALGO set by environment to Ring") != std::string::npos);
    CHECK(inits[1].find("NCCL_PROTO set by environment to LL") != std::string::npos);
    CHECK(with_algo.at("settings").dump().find("\"applied\"") != std::string::npos);
  }
}
