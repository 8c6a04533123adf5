// Each point's communicator init sees the worker's environment plus the point's own
// variables, and nothing an earlier point set (issue: NCCL_ALGO from an `include:` point
// stayed set for every later point of the worker).
#include <unistd.h>  // environ

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "catch_compat.hpp"
#include "core/environment.hpp"
#include "results/record_json.hpp"
#include "verify/unexpected_environment.hpp"
#include "worker/point_environment.hpp"

using namespace ncclsweep;

namespace {

EnvironmentMap overlay(EnvironmentMap base, const EnvironmentMap& point) {
  for (const auto& [name, value] : point) base[name] = value;
  return base;
}

// The points of a sweep whose `include:` extends one point (docs/sweep-files.md): the
// user set NCCL_PROTO=Simple and NCCL_NVLS_ENABLE=0 for the whole run.
const EnvironmentMap kBase = {{"PATH", "/usr/bin"}, {"NCCL_PROTO", "Simple"}, {"NCCL_NVLS_ENABLE", "0"}};
const std::vector<EnvironmentMap> kPoints = {
    {{"NCCL_PROTO", "LL"}, {"NCCL_ALGO", "Ring"}},  // the include-extended point
    {{"NCCL_PROTO", "LL128"}},                      // a plain point after it
    {},                                             // the run's own settings only
    {{"NCCL_PROTO", "Simple"}},                     // the base's value, named by the point
    {{"NCCL_ALGO", "Tree"}, {"NCCL_MIN_NCHANNELS", "4"}},
};

}  // namespace

TEST_CASE("a sequence of points with different variables: each init sees exactly base + point") {
  EnvironmentMap environment = kBase;
  for (std::size_t i = 0; i < kPoints.size(); ++i) {
    INFO("point " << i);
    apply_edit(edit_to_enter(kBase, kPoints[i]), environment);
    CHECK(environment == overlay(kBase, kPoints[i]));
    apply_edit(edit_to_leave(kBase, kPoints[i]), environment);
    CHECK(environment == kBase);
  }
}

TEST_CASE("the point after an include-extended one has no NCCL_ALGO and the base's own values") {
  EnvironmentMap environment = kBase;
  apply_edit(edit_to_enter(kBase, kPoints[0]), environment);
  CHECK(environment.at("NCCL_ALGO") == "Ring");
  apply_edit(edit_to_leave(kBase, kPoints[0]), environment);
  apply_edit(edit_to_enter(kBase, kPoints[1]), environment);
  CHECK(environment.count("NCCL_ALGO") == 0);
  CHECK(environment.at("NCCL_PROTO") == "LL128");
  CHECK(environment.at("NCCL_NVLS_ENABLE") == "0");
}

TEST_CASE("the edits name exactly what changes") {
  // A name the base has is given its base value back, one it lacks is removed, and a
  // value equal to the base's is no change at all.
  CHECK(edit_to_enter(kBase, kPoints[0]) ==
        EnvironmentEdit{{{"NCCL_ALGO", "Ring"}, {"NCCL_PROTO", "LL"}}, {}});
  CHECK(edit_to_leave(kBase, kPoints[0]) == EnvironmentEdit{{{"NCCL_PROTO", "Simple"}}, {"NCCL_ALGO"}});
  CHECK(edit_to_enter(kBase, kPoints[3]) == EnvironmentEdit{});
  CHECK(edit_to_leave(kBase, kPoints[3]) == EnvironmentEdit{});
}

TEST_CASE("the scoped environment sets and gives back this process's variables, also on a throw") {
  // Names of this test only, so nothing else in the test program sees them.
  setenv("NCCLSWEEP_TEST_BASE", "base", 1);
  unsetenv("NCCLSWEEP_TEST_ADDED");
  const EnvironmentMap base = environment_map(environ);
  const auto value = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "(unset)";
  };
  {
    const ScopedPointEnvironment point(base, {{"NCCLSWEEP_TEST_BASE", "point"}, {"NCCLSWEEP_TEST_ADDED", "1"}});
    CHECK(value("NCCLSWEEP_TEST_BASE") == "point");
    CHECK(value("NCCLSWEEP_TEST_ADDED") == "1");
  }
  CHECK(value("NCCLSWEEP_TEST_BASE") == "base");
  CHECK(value("NCCLSWEEP_TEST_ADDED") == "(unset)");
  try {
    const ScopedPointEnvironment point(base, {{"NCCLSWEEP_TEST_ADDED", "2"}});
    CHECK(value("NCCLSWEEP_TEST_ADDED") == "2");
    throw std::runtime_error("the point failed");
  } catch (const std::runtime_error&) {
  }
  CHECK(value("NCCLSWEEP_TEST_ADDED") == "(unset)");
  {
    const ScopedPointEnvironment point(base, {});  // a point of the run's settings only
    CHECK(environment_map(environ) == base);
  }
  unsetenv("NCCLSWEEP_TEST_BASE");
}

TEST_CASE("the recorded environment holds NCCL_ and the launcher's GPU and rank variables only, escaped") {
  std::string bad = "Ring";
  bad += static_cast<char>(0xff);
  std::vector<std::string> entries = {"NCCL_ALGO=" + bad,
                                      "NCCL_DEBUG_FILE=/tmp/x.log",
                                      "CUDA_VISIBLE_DEVICES=0,1",
                                      "OMPI_COMM_WORLD_RANK=3",
                                      "OMPI_COMM_WORLD_LOCAL_RANK=1",
                                      "OMPI_COMM_WORLD_SIZE=8",
                                      "SLURM_LOCALID=1",
                                      "AWS_SECRET_ACCESS_KEY=hunter2",
                                      "HOME=/root"};
  std::vector<char*> envp;
  for (auto& e : entries) envp.push_back(e.data());
  envp.push_back(nullptr);
  const EnvironmentMap recorded = recorded_environment(envp.data());
  CHECK(recorded == EnvironmentMap{{"CUDA_VISIBLE_DEVICES", "0,1"},
                                   {"NCCL_ALGO", "Ring\\xff"},
                                   {"NCCL_DEBUG_FILE", "/tmp/x.log"},
                                   {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                                   {"OMPI_COMM_WORLD_RANK", "3"},
                                   {"SLURM_LOCALID", "1"}});
  // It goes into run.json and over the worker channel: nlohmann would throw on the raw byte.
  PointOutcome outcome;
  outcome.environment = recorded;
  const std::string text = nlohmann::json(outcome).dump();
  CHECK(nlohmann::json::parse(text).get<PointOutcome>().environment == recorded);
}

TEST_CASE("verification flags an NCCL_ variable at init that the point does not name and the run did not have") {
  const EnvironmentMap run = {{"NCCL_NVLS_ENABLE", "0"}, {"NCCL_DEBUG", "INFO"}};
  const std::set<std::string> named = {"NCCL_PROTO"};
  NcclLogFacts no_lines;
  // A clean point: its own variable and the run's.
  CHECK(unexpected_nccl_variables({{"NCCL_PROTO", "LL128"}, {"NCCL_NVLS_ENABLE", "0"}, {"CUDA_VISIBLE_DEVICES", "0"}},
                                  no_lines, named, run)
            .empty());
  // What the old worker left behind: the previous point's NCCL_ALGO, and a run variable changed.
  CHECK(unexpected_nccl_variables({{"NCCL_PROTO", "LL128"}, {"NCCL_ALGO", "Ring"}, {"NCCL_NVLS_ENABLE", "1"}}, no_lines,
                                  named, run) == std::vector<std::string>{"NCCL_ALGO=Ring", "NCCL_NVLS_ENABLE=1"});
  // NCCL's own log: a value an environment plugin supplied, which the process environment lacks.
  NcclLogFacts logged;
  logged.set_by_environment = {{"NCCL_PROTO", "LL128"}, {"NCCL_NVLS_ENABLE", "0."}, {"NCCL_BUFFSIZE", "1048576."}};
  CHECK(unexpected_nccl_variables({{"NCCL_PROTO", "LL128"}}, logged, named, run) ==
        std::vector<std::string>{"NCCL_BUFFSIZE=1048576."});
}
