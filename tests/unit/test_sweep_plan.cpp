#include <algorithm>
#include <string>

#include "catch_compat.hpp"
#include "plan/sweep_estimate.hpp"
#include "plan/sweep_plan.hpp"
#include "report/sweep_plan_report.hpp"

using namespace ncclsweep;

namespace {

SweepPlan plan_of(const std::string& yaml, const PlanOptions& options = {}) {
  return plan_sweep(load_sweep_text(yaml, "t.yaml"), options);
}

std::vector<std::string> labels(const SweepPlan& plan) {
  std::vector<std::string> out;
  for (const auto& p : plan.points) out.push_back(p.label);
  return out;
}

}  // namespace

TEST_CASE("no env and no config: one point, 'default', in one group") {
  const auto plan = plan_of("name: x\n");
  REQUIRE(plan.points.size() == 1);
  CHECK(plan.points[0].label == "default");
  REQUIRE(plan.isolation_groups.size() == 1);
  CHECK(plan.isolation_groups[0].points == std::vector<int>{0});
  CHECK(plan.baseline == 0);
}

TEST_CASE("the grid is cartesian, the first axis varying slowest") {
  const auto plan = plan_of("env:\n  NCCL_PROTO: [LL, Simple]\n  NCCL_ALGO: [Ring, Tree, PAT]\n");
  CHECK(labels(plan) == std::vector<std::string>{
                            "NCCL_PROTO=LL NCCL_ALGO=Ring", "NCCL_PROTO=LL NCCL_ALGO=Tree", "NCCL_PROTO=LL NCCL_ALGO=PAT",
                            "NCCL_PROTO=Simple NCCL_ALGO=Ring", "NCCL_PROTO=Simple NCCL_ALGO=Tree", "NCCL_PROTO=Simple NCCL_ALGO=PAT"});
  CHECK(plan.points[4].index == 4);
}

TEST_CASE("zipped axes step together") {
  const auto plan = plan_of(
      "env:\n  NCCL_MIN_NCHANNELS: [4, 8]\n  NCCL_PROTO: [LL, Simple]\n  NCCL_MAX_NCHANNELS: [4, 8]\n"
      "zip: [[NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS]]\n");
  CHECK(labels(plan) == std::vector<std::string>{"NCCL_MIN_NCHANNELS=4 NCCL_MAX_NCHANNELS=4 NCCL_PROTO=LL",
                                                 "NCCL_MIN_NCHANNELS=4 NCCL_MAX_NCHANNELS=4 NCCL_PROTO=Simple",
                                                 "NCCL_MIN_NCHANNELS=8 NCCL_MAX_NCHANNELS=8 NCCL_PROTO=LL",
                                                 "NCCL_MIN_NCHANNELS=8 NCCL_MAX_NCHANNELS=8 NCCL_PROTO=Simple"});
}

TEST_CASE("exclude removes matching points; include extends matches or adds a new point") {
  const auto plan = plan_of(
      "env:\n  NCCL_PROTO: [LL, Simple]\n  NCCL_MAX_NCHANNELS: [4, 32]\n"
      "exclude:\n  - {NCCL_PROTO: LL, NCCL_MAX_NCHANNELS: 32}\n"
      "include:\n  - {NCCL_PROTO: Simple, NCCL_ALGO: Ring}\n  - {NCCL_PROTO: LL128, NCCL_MAX_NCHANNELS: 16}\n");
  CHECK(labels(plan) == std::vector<std::string>{"NCCL_PROTO=LL NCCL_MAX_NCHANNELS=4",
                                                 "NCCL_PROTO=Simple NCCL_MAX_NCHANNELS=4 NCCL_ALGO=Ring",
                                                 "NCCL_PROTO=Simple NCCL_MAX_NCHANNELS=32 NCCL_ALGO=Ring",
                                                 "NCCL_PROTO=LL128 NCCL_MAX_NCHANNELS=16"});
}

TEST_CASE("an exclude that removes everything, and a baseline that matches nothing, are refused") {
  CHECK_THAT(usage_error_text([] { plan_of("env:\n  NCCL_PROTO: [LL]\nexclude:\n  - {NCCL_PROTO: LL}\n"); }),
             ContainsSubstring("t.yaml:4:5: exclude removes every point"));
  CHECK_THAT(usage_error_text([] { plan_of("env:\n  NCCL_PROTO: [LL, Simple]\n  NCCL_ALGO: [Ring]\nbaseline: {NCCL_ALGO: Tree}\n"); }),
             ContainsSubstring("baseline matches no point"));
}

TEST_CASE("the baseline is the first point matching its settings") {
  const auto plan = plan_of("env:\n  NCCL_PROTO: [LL, LL128, Simple]\n  NCCL_ALGO: [Ring, Tree]\nbaseline: {NCCL_PROTO: Simple}\n");
  CHECK(plan.baseline == 4);
  CHECK(plan.points[4].label == "NCCL_PROTO=Simple NCCL_ALGO=Ring");
}

TEST_CASE("settings are classified: config field, re-read variable, process-cached variable") {
  CHECK(classify_setting("max_ctas") == SettingKind::config_field);
  CHECK(classify_setting("NCCL_PROTO") == SettingKind::env_reread);
  CHECK(classify_setting("NCCL_TOPO_FILE") == SettingKind::env_reread);
  CHECK(classify_setting("NCCL_IB_QPS_PER_CONNECTION") == SettingKind::env_process_cached);
  CHECK(classify_setting("NCCL_SOMETHING_NEW") == SettingKind::env_process_cached);
}

TEST_CASE("points sharing their process-cached settings share a group; re-init settings do not split groups") {
  const auto plan = plan_of(
      "env:\n  NCCL_PROTO: [LL, Simple]\n  NCCL_MAX_NCHANNELS: [4, 32]\nconfig:\n  max_ctas: [8, 16]\n");
  REQUIRE(plan.points.size() == 8);
  REQUIRE(plan.isolation_groups.size() == 2);
  CHECK(plan.isolation_groups[0].process_env == std::map<std::string, std::string>{{"NCCL_MAX_NCHANNELS", "4"}});
  CHECK(plan.isolation_groups[1].process_env == std::map<std::string, std::string>{{"NCCL_MAX_NCHANNELS", "32"}});
  CHECK(plan.isolation_groups[0].points == std::vector<int>{0, 1, 4, 5});
  for (const auto& p : plan.points) {
    CHECK(std::find(plan.isolation_groups[p.isolation_group].points.begin(), plan.isolation_groups[p.isolation_group].points.end(), p.index) !=
          plan.isolation_groups[p.isolation_group].points.end());
    CHECK_FALSE(p.expected_mismatch);
  }
  CHECK(plan.points[0].settings[2].kind == SettingKind::config_field);
}

TEST_CASE("--isolation reinit keeps one group and marks process-cached changes as expected mismatches") {
  PlanOptions options;
  options.isolation = "reinit";
  const auto plan = plan_of("env:\n  NCCL_MAX_NCHANNELS: [1, 32]\n  NCCL_PROTO: [LL, Simple]\n", options);
  REQUIRE(plan.isolation_groups.size() == 1);
  CHECK(plan.isolation_groups[0].points.size() == 4);
  CHECK(plan.isolation_groups[0].process_env.at("NCCL_MAX_NCHANNELS") == "1");
  CHECK_FALSE(plan.points[0].expected_mismatch);
  CHECK_FALSE(plan.points[1].expected_mismatch);  // only NCCL_PROTO changed: re-read at init
  CHECK(plan.points[2].expected_mismatch);
  CHECK(plan.points[3].expected_mismatch);
  REQUIRE_FALSE(plan.notes.empty());
  CHECK_THAT(plan.notes[0], ContainsSubstring("2 point(s) change process-cached variables"));
}

TEST_CASE("command-line axes add to and override the file's, and are checked like them") {
  PlanOptions options;
  options.env_axes = {"NCCL_PROTO=LL,Simple"};
  options.config_axes = {"max_ctas=8,32"};
  const auto plan = plan_of("env:\n  NCCL_PROTO: [LL128]\n  NCCL_MAX_NCHANNELS: [32]\n", options);
  CHECK(labels(plan).front() == "NCCL_PROTO=LL NCCL_MAX_NCHANNELS=32 max_ctas=8");
  CHECK(plan.points.size() == 4);

  PlanOptions typo;
  typo.env_axes = {"NCCL_PORTO=LL"};
  CHECK_THAT(usage_error_text([&] { plan_of("name: x\n", typo); }),
             ContainsSubstring("--env NCCL_PORTO=LL: unknown NCCL variable NCCL_PORTO (did you mean NCCL_PROTO?)"));
}

TEST_CASE("the mpi engine refuses an env grid but sweeps the measurement axes") {
  PlanOptions mpi;
  mpi.engine = "mpi";
  CHECK_THAT(usage_error_text([&] { plan_of("env:\n  NCCL_PROTO: [LL, Simple]\n", mpi); }),
             ContainsSubstring("the mpi engine cannot apply NCCL variables"));
  const auto plan = plan_of("collectives: [all_reduce, all_gather]\nops: [sum, max]\n", mpi);
  CHECK(plan.points.size() == 1);
  CHECK(plan.measurements.engine == "mpi");
  CHECK(plan.measurements.ops.size() == 2);
}

TEST_CASE("the run-time estimate follows its documented model") {
  SweepPlan plan = plan_of("collectives: [all_gather]\nsizes: [1G]\nwarmup: 4\niters: 5\nenv:\n  NCCL_MAX_NCHANNELS: [1, 32]\n");
  const EstimateModel model;
  // 2 groups x 1.5 s + 2 points x (0.05 s + 2 placements x 10 calls x (2^30 B / 100 GB/s + 20 us))
  const double call = (1024.0 * 1024 * 1024) / 100e9 + 20e-6;
  CHECK(estimate_seconds(plan, model) == Approx(2 * 1.5 + 2 * (0.05 + 2 * 10 * call)));
  plan.repeats = 3;
  CHECK(estimate_seconds(plan, model) == Approx(2 * 1.5 + 3 * 2 * (0.05 + 2 * 10 * call)));
}

TEST_CASE("plan JSON has one object per point with its settings and isolation group, plus the isolation groups") {
  const auto plan = plan_of("env:\n  NCCL_MAX_NCHANNELS: [4, 32]\n  NCCL_PROTO: [LL]\n");
  const auto j = sweep_plan_json(plan, 12.5);
  REQUIRE(j["points"].size() == 2);
  CHECK(j["points"][1]["label"] == "NCCL_MAX_NCHANNELS=32 NCCL_PROTO=LL");
  CHECK(j["points"][1]["isolation_group"] == 1);
  CHECK(j["points"][1]["settings"][0]["kind"] == "env_process_cached");
  CHECK(j["points"][1]["settings"][1]["kind"] == "env_reread");
  CHECK(j["points"][0]["baseline"] == true);
  CHECK(j["isolation_groups"][1]["process_env"]["NCCL_MAX_NCHANNELS"] == "32");
  CHECK(j["estimated_seconds"] == 12.5);
}

TEST_CASE("a grid past the point limit is refused before it is expanded") {
  std::string yaml = "env:\n";
  for (const char* name : {"NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS", "NCCL_BUFFSIZE", "NCCL_IB_QPS_PER_CONNECTION",
                           "NCCL_IB_SL", "NCCL_IB_TIMEOUT"}) {
    yaml += std::string("  ") + name + ": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n";
  }
  CHECK_THAT(usage_error_text([&] { plan_of(yaml); }),
             ContainsSubstring("t.yaml:2:3: the grid has more than 10000 points (10 x 10 x 10 x 10 x 10 x 10)"));
  // Zipping four of the axes brings it down to 1000 points.
  const auto plan = plan_of(yaml + "zip: [[NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS, NCCL_BUFFSIZE, NCCL_IB_QPS_PER_CONNECTION]]\n");
  CHECK(plan.points.size() == 1000);
}

TEST_CASE("a point splits into the variables it sets and its config fields") {
  const auto plan = plan_of("env:\n  NCCL_PROTO: [LL]\n  NCCL_MAX_NCHANNELS: [4]\nconfig:\n  max_ctas: [8]\n");
  const SweepPoint& p = plan.points.at(0);
  CHECK(env_of(p) == std::map<std::string, std::string>{{"NCCL_MAX_NCHANNELS", "4"}, {"NCCL_PROTO", "LL"}});
  CHECK(config_of(p) == std::map<std::string, std::string>{{"max_ctas", "8"}});
}
