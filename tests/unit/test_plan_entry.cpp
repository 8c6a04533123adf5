// `ncclsweep plan` without a process: what it prints of a search's cost and a workload's
// calls, and what it refuses, from run_plan_command with the output in a string.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "catch_compat.hpp"
#include "core/errors.hpp"
#include "runtime/plan_entry.hpp"
#include "scratch.hpp"

using namespace ncclsweep;
using nlohmann::json;

namespace {

// Plans `yaml` (written to a file of its own) on the mpi engine; returns what it printed.
std::string planned(const std::string& name, const std::string& yaml, bool as_json, const std::string& groups = {}) {
  const auto path = ncclsweep::testing::scratch_root() / ("plan-entry-" + name + ".yaml");
  std::ofstream(path) << yaml;
  PlanFlags flags;
  flags.sweep_file = path.string();
  flags.json = as_json;
  flags.plan_options.engine = EngineKind::mpi;
  flags.groups = groups;
  std::ostringstream out;
  const int status = run_plan_command(flags, out);  // a refusal throws past the caller's CHECK_THROWS
  CHECK(status == kExitOk);
  return out.str();
}

const std::string kListedCalls =
    "collectives: [all_gather]\n"
    "sizes:\n"
    "  ranks: 8\n"
    "  calls:\n"
    "    - {collective: all_gather, bytes: 64M, group: dp, group_size: 4, group_stride: 2, calls: 3}\n"
    "    - {collective: reduce_scatter, bytes: 16M, dtype: float64, calls: 2}\n";

}  // namespace

TEST_CASE("plan: a search's cost is at most its budget of the grid's, with the method and bands it names") {
  const std::string yaml =
      "collectives: [all_reduce, all_gather]\nsizes: [64K, 1M, 16M, 64M]\nrepeats: 3\n"
      "search: {method: racing, budget: 0.5, confidence: 0.95, bands: [1M]}\n";
  const json j = json::parse(planned("search", yaml, true));
  const json& s = j.at("search");
  CHECK(s.at("method") == "racing");
  const long grid = s.at("grid_measurements").get<long>();
  CHECK(grid == 2 * 4 * 3);  // one candidate (no axes): collectives x sizes x repeats
  CHECK(s.at("worst_measurements").get<long>() <= grid / 2);
  CHECK(s.at("expected_measurements").get<long>() <= s.at("worst_measurements").get<long>());
  CHECK(s.at("grid_seconds").get<double>() > 0);
  CHECK(s.at("worst_seconds").get<double>() <= s.at("grid_seconds").get<double>() / 2 + 1e-9);

  const std::string text = planned("search", yaml, false);
  CHECK_THAT(text, ContainsSubstring("search: racing"));
  CHECK_THAT(text, ContainsSubstring("confidence 0.95, 4 size bands"));  // 2 collectives x 2 bands
  CHECK_THAT(planned("grid", "collectives: [all_reduce]\nsizes: [1M]\n", false), !ContainsSubstring("search:"));
}

TEST_CASE("plan: listed calls run on their group at the profile's rank count, in text and JSON") {
  const json j = json::parse(planned("calls", kListedCalls, true));
  CHECK(j.at("workload_ranks") == 8);
  const json& calls = j.at("workload_calls");
  REQUIRE(calls.size() == 2);
  CHECK(calls[0].at("collective") == "all_gather");
  CHECK(calls[0].at("bytes") == 64 << 20);
  CHECK(calls[0].at("communicator") != "world");  // its dp group fits 8 ranks
  CHECK(calls[1].at("collective") == "reduce_scatter");
  CHECK(calls[1].at("dtype") == "float64");
  CHECK(calls[1].at("communicator") == "world");  // no group given

  const std::string text = planned("calls", kListedCalls, false);
  CHECK_THAT(text, ContainsSubstring("as measured on 8 ranks:"));
  CHECK_THAT(text, ContainsSubstring("reduce_scatter 16777216 B (16 MiB) float64 on world"));
}

TEST_CASE("plan: a workload's groups without a workload, and an env axis on the mpi engine, are refused") {
  const std::string grid = "collectives: [all_reduce]\nsizes: [1M]\n";
  CHECK_THROWS_WITH(planned("dp", grid, false, "dp"), ContainsSubstring("needs a workload's layout"));
  CHECK_THROWS_AS(planned("env", grid + "env:\n  NCCL_PROTO: [LL, Simple]\n", false), UsageError);
}

TEST_CASE("plan refuses a listed call that run would refuse on the mpi engine, at its line") {
  const auto path = ncclsweep::testing::scratch_root() / "plan-entry-bf16-calls.yaml";
  std::ofstream(path) << "collectives: [all_reduce]\n"
                         "sizes:\n"
                         "  calls:\n"
                         "    - {collective: all_reduce, bytes: 4M, calls: 2}\n"
                         "    - {collective: all_reduce, bytes: 16M, dtype: bfloat16, calls: 3}\n";
  PlanFlags flags;
  flags.sweep_file = path.string();
  flags.plan_options.engine = EngineKind::mpi;
  std::ostringstream out;
  const std::string text = usage_error_text([&] { run_plan_command(flags, out); });
  CHECK_THAT(text, ContainsSubstring(path.string() + ":5:"));
  CHECK_THAT(text, ContainsSubstring("the mpi engine cannot reduce bfloat16"));
  CHECK_THAT(text, ContainsSubstring("fix: --dtype float32"));
}
