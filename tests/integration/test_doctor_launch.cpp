// `ncclsweep doctor` under a real mpirun: an MPMD launch gives the two ranks different
// environments, and the doctor must name both problems with the ranks affected.
#include <nlohmann/json.hpp>

#include "catch_compat.hpp"
#include "integration/launch.hpp"

using namespace ncclsweep::testing;
using nlohmann::json;

namespace {

std::vector<AppContext> two_ranks_disagreeing(const std::vector<std::string>& args) {
  return {{1, {"NCCL_ALGO=Ring", "NCCL_TOPO_FILE=/nonexistent"}, args},
          {1, {"NCCL_ALGO=Tree", "NCCL_TOPO_FILE=/nonexistent"}, args}};
}

}  // namespace

TEST_CASE("doctor flags NCCL_ALGO differing on rank 1 and an unreadable NCCL_TOPO_FILE, exit 1") {
  const Launch run = mpirun_mpmd(two_ranks_disagreeing({"doctor", "--no-gpu-tools"}));
  INFO(run.output);
  CHECK(run.status == 1);
  CHECK_THAT(run.output, ContainsSubstring("# ncclsweep doctor: 2 rank(s)"));
  CHECK_THAT(run.output, ContainsSubstring("NCCL_ALGO differs across ranks: 'Ring' on ranks 0; 'Tree' on ranks 1"));
  CHECK_THAT(run.output, ContainsSubstring("NCCL_TOPO_FILE=/nonexistent: No such file or directory"));
}

TEST_CASE("doctor --format json names the findings, their ranks, and every rank's facts") {
  const Launch run = mpirun_mpmd(two_ranks_disagreeing({"doctor", "--format", "json", "--no-gpu-tools"}), Capture::stdout_apart);
  INFO(run.output);
  CHECK(run.status == 1);
  // stdout is the document alone (mpirun's own words go to stderr).
  REQUIRE(json::accept(run.out));
  const json doc = json::parse(run.out);
  CHECK(doc.at("ranks").size() == 2);
  CHECK(doc.at("ranks").at(1).at("environment").at("NCCL_ALGO") == "Tree");
  bool uniform = false, file = false;
  for (const json& f : doc.at("findings")) {
    if (f.at("check") == "env.uniform") {
      uniform = true;
      CHECK(f.at("severity") == "error");
      CHECK(f.at("ranks") == json::array({1}));
    }
    if (f.at("check") == "env.file") {
      file = true;
      CHECK(f.at("severity") == "error");
      CHECK(f.at("ranks") == json::array({0, 1}));
    }
  }
  CHECK(uniform);
  CHECK(file);
  CHECK(doc.at("errors").get<int>() >= 2);
}

TEST_CASE("doctor exits 0 when every rank agrees and nothing is an error", "[leaks]") {
  // Two ranks on one GPU are an error (gpu.shared): a 1-GPU machine runs one rank.
  const int ranks = visible_gpu_count() == 1 ? 1 : 2;
  const Launch run = mpirun_ncclsweep(ranks, {"doctor", "--no-gpu-tools"});
  INFO(run.output);
  CHECK(run.status == 0);
  CHECK_THAT(run.output, ContainsSubstring("placement.affinity"));
  // Without a GPU (CI) doctor says so; with one (the GPU machine) it names it.
  const bool gpu_named = run.output.find("gpu.visible") != std::string::npos ||
                         run.output.find("gpu.identity") != std::string::npos;
  CHECK(gpu_named);
}

TEST_CASE("run records the cheap checks in run.json and prints errors as # preflight lines") {
  const auto dir = scratch_dir("preflight");
  const std::vector<std::string> args{"run", "--engine", "mpi", "--collectives", "all_reduce", "--sizes", "1K",
                                      "--warmup", "0", "--iters", "1", "-o", dir.string()};
  const Launch run = mpirun_mpmd({{1, {"NCCL_ALGO=Ring"}, args}, {1, {"NCCL_ALGO=Tree"}, args}});
  INFO(run.output);
  REQUIRE(run.status == 0);  // findings are recorded, never fatal in run
  CHECK_THAT(run.output, ContainsSubstring("# preflight: error env.uniform ranks 1: NCCL_ALGO differs"));
  const json doc = read_json_file(dir / "run.json");
  bool uniform = false;
  for (const json& f : doc.at("preflight")) {
    if (f.at("check") == "env.uniform") uniform = f.at("ranks") == json::array({1});
  }
  CHECK(uniform);
}
