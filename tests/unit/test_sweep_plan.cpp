#include <algorithm>
#include <cmath>
#include <string>

#include "catch_compat.hpp"
#include "plan/engine_support.hpp"
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
  options.isolation = Isolation::reinit;
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
  mpi.engine = EngineKind::mpi;
  CHECK_THAT(usage_error_text([&] { plan_of("env:\n  NCCL_PROTO: [LL, Simple]\n", mpi); }),
             ContainsSubstring("the mpi engine cannot apply NCCL variables"));
  const auto plan = plan_of("collectives: [all_reduce, all_gather]\nops: [sum, max]\n", mpi);
  CHECK(plan.points.size() == 1);
  CHECK(plan.measurements.engine == EngineKind::mpi);
  CHECK(plan.measurements.ops.size() == 2);
}

TEST_CASE("the run-time estimate follows its documented model") {
  SweepPlan plan = plan_of("collectives: [all_gather]\nsizes: [1G]\nwarmup: 4\niters: 5\nenv:\n  NCCL_MAX_NCHANNELS: [1, 32]\n");
  const EstimateModel model;
  // 2 groups x 1.5 s + 2 points x (0.05 s + 2 placements x (9 calls + the checked call
  // with its pattern fill and verify + the per-measurement cost)).
  const double call = (1024.0 * 1024 * 1024) / 100e9 + 20e-6;
  const double one = 9 * call + call + 2.0 * (1 << 30) / model.check_bytes_per_s + model.per_measurement_s;
  CHECK(estimate_seconds(plan, model) == Approx(2 * 1.5 + 2 * (0.05 + 2 * one)));
  plan.repeats = 3;
  CHECK(estimate_seconds(plan, model) == Approx(2 * 1.5 + 3 * 2 * (0.05 + 2 * one)));
  CHECK(estimate_sweep(plan, 2).measurements == 3 * 2 * 2);
}

TEST_CASE("the estimate counts every axis the run measures") {
  // 2 dtypes x 2 footprints x 3 sizes, all_reduce with 2 ops, all_gather without: each in
  // and out of place; 2 repeats.
  const SweepPlan plan = plan_of(
      "engine: mpi\ncollectives: [all_reduce, all_gather]\nsizes: [1K, 4K, 16K]\ndtypes: [float32, float64]\n"
      "ops: [sum, max]\nbuffer_footprint: [largest, exact]\nrepeats: 2\niters: 3\n");
  const SweepEstimate e = estimate_sweep(plan, 2);
  CHECK(e.measurements == 2u * (2 * 2 * 3 * 2 * 2 + 1 * 2 * 3 * 2 * 2));
  CHECK_THAT(e.count_text, ContainsSubstring("2 repeat(s)"));
  // The mpi engine starts no workers and initialises no NCCL: its one start only.
  CHECK_THAT(e.basis, ContainsSubstring("mpi engine"));
  CHECK(e.low_s == Approx(e.high_s));  // a fixed count has no bounds to spread over
}

TEST_CASE("the mpi engine's ranks beyond one a core take turns in the estimate") {
  const SweepPlan plan = plan_of("engine: mpi\ncollectives: [all_reduce]\nsizes: [1M]\nwarmup: 2\niters: 10\n");
  EstimateModel model;
  model.mpi_host_cores = 2;
  // Each placement's 12 calls and its checked call run 4x longer on 8 ranks than on 2;
  // the start, the check's fill and verify and the per-measurement cost do not change.
  const double call = (1 << 20) / model.mpi_bytes_per_s + model.mpi_call_overhead_s;
  const double two = estimate_sweep(plan, 2, {}, model).typical_s;
  const double eight = estimate_sweep(plan, 8, {}, model).typical_s;
  CHECK(eight - two == Approx(2 * 13 * call * 3));
  CHECK(estimate_sweep(plan, 1, {}, model).typical_s == Approx(two));  // fewer ranks than cores: no turns
  CHECK_THAT(estimate_sweep(plan, 8, {}, model).basis, ContainsSubstring("8 ranks on this host's 2 cores"));
}

TEST_CASE("the noise-based stop's bounds bound the estimate, and a reference run replaces the model") {
  const SweepPlan plan = plan_of("engine: mpi\ncollectives: [all_reduce]\nsizes: [1M]\n");
  const RunSpec& spec = plan.measurements;
  REQUIRE(spec.iters == 0);
  // 1 ms a call: min_seconds 2 ms gives the min_iters floor, max_seconds 0.5 s gives 500.
  const IterationBounds n = iteration_bounds(1e-3, spec);
  CHECK(n.low == spec.stopping.min_iters);
  CHECK(n.high == 500);
  CHECK(n.typical == (n.low + n.high + 1) / 2);  // the mpi engine: halfway
  // A call longer than max_seconds is timed once.
  CHECK(iteration_bounds(2.0, spec).high == 1);
  // A call of 2^-17 s (7.6 us) is timed in samples of 132 calls (1 ms): min_iters and
  // max_iters count samples, so at least 5 x 132 calls and at most max_seconds' 65536; a
  // flushed cache times one call per sample, so there max_iters' 1000 calls bound it.
  const double short_call = std::ldexp(1.0, -17);
  const IterationBounds short_calls = iteration_bounds(short_call, spec);
  CHECK(short_calls.low == 5 * 132);
  CHECK(short_calls.high == 65536);
  CHECK(iteration_bounds(short_call, spec, CacheState::flush).high == 1000);
  const SweepEstimate modelled = estimate_sweep(plan, 2);
  CHECK(modelled.low_s < modelled.typical_s);
  CHECK(modelled.typical_s <= modelled.high_s);
  // A reference that measured 1 MiB at 100 us a call over 40 iterations.
  std::vector<MeasurementRecord> reference(2);
  for (MeasurementRecord& r : reference) {
    r.collective = &collective("all_reduce");
    r.dtype = &data_type("float32");
    r.size_bytes = 1 << 20;
    r.time_us.avg = 100;
    r.iters = 40;
  }
  reference[0].placement = Placement::out_of_place;
  reference[1].placement = Placement::in_place;
  const SweepEstimate referenced = estimate_sweep(plan, 2, reference);
  CHECK(referenced.from_reference == 2);
  const EstimateModel model;
  const double one = (5 + 40 + 1) * 100e-6 + 2.0 * (1 << 20) / model.mpi_check_bytes_per_s + model.per_measurement_s;
  CHECK(referenced.typical_s == Approx(model.mpi_start_s + 2 * one));
  CHECK(referenced.low_s == Approx(referenced.high_s));
}

TEST_CASE("plan JSON has one object per point with its settings and isolation group, plus the isolation groups") {
  const auto plan = plan_of("env:\n  NCCL_MAX_NCHANNELS: [4, 32]\n  NCCL_PROTO: [LL]\n");
  const auto j = sweep_plan_json(plan, estimate_sweep(plan, 2));
  REQUIRE(j["points"].size() == 2);
  CHECK(j["points"][1]["label"] == "NCCL_MAX_NCHANNELS=32 NCCL_PROTO=LL");
  CHECK(j["points"][1]["isolation_group"] == 1);
  CHECK(j["points"][1]["settings"][0]["kind"] == "env_process_cached");
  CHECK(j["points"][1]["settings"][1]["kind"] == "env_reread");
  CHECK(j["points"][0]["baseline"] == true);
  CHECK(j["isolation_groups"][1]["process_env"]["NCCL_MAX_NCHANNELS"] == "32");
  CHECK(j["estimated_seconds"].get<double>() == Approx(j["estimate"]["typical_seconds"].get<double>()));
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

TEST_CASE("plan refuses what the mpi engine cannot reduce, at the sweep file's line") {
  const std::string bf16 = "name: x\nengine: mpi\ncollectives: [all_reduce, all_gather]\ndtypes: [float32, bfloat16]\n";
  const Sweep sweep = load_sweep_text(bf16, "bf16.yaml");
  const SweepPlan plan = plan_sweep(sweep, {});
  const std::string text = usage_error_text(
      [&] { check_engine_support(plan.measurements, EngineKind::mpi, places_of(sweep, false, false, false)); });
  CHECK_THAT(text, ContainsSubstring("bf16.yaml:4:"));
  CHECK_THAT(text, ContainsSubstring("the mpi engine cannot reduce bfloat16"));
  CHECK_THAT(text, ContainsSubstring("all_reduce bfloat16"));
  // The nccl engine reduces it; all_gather alone reduces nothing, so bfloat16 is fine there.
  CHECK_NOTHROW(check_engine_support(plan.measurements, EngineKind::nccl, {}));
  const Sweep gather = load_sweep_text("name: x\nengine: mpi\ncollectives: [all_gather]\ndtypes: [bfloat16]\n", "g.yaml");
  CHECK_NOTHROW(check_engine_support(plan_sweep(gather, {}).measurements, EngineKind::mpi, places_of(gather, false, false, false)));

  // avg: the ops: line, and the op override as the fix; a flag given names the flag.
  const Sweep avg = load_sweep_text("name: x\nengine: mpi\ncollectives: [reduce_scatter]\nops: [avg]\n", "avg.yaml");
  const RunSpec avg_spec = plan_sweep(avg, {}).measurements;
  const std::string avg_text =
      usage_error_text([&] { check_engine_support(avg_spec, EngineKind::mpi, places_of(avg, false, false, false)); });
  CHECK_THAT(avg_text, ContainsSubstring("avg.yaml:4:"));
  CHECK_THAT(avg_text, ContainsSubstring("--op sum"));
  CHECK_THAT(usage_error_text([&] { check_engine_support(avg_spec, EngineKind::mpi, places_of(avg, false, true, false)); }),
             ContainsSubstring("--op"));
}

TEST_CASE("buffers no rank can hold are refused at the sizes: line, with the footprint counted") {
  const Sweep sweep = load_sweep_text("name: x\nengine: mpi\ncollectives: [all_gather]\nsizes: [1M, 64G]\n", "big.yaml");
  const SweepPlan plan = plan_sweep(sweep, {});
  const MeasurementPlan calls = plan_measurements(plan.measurements, 4);
  // The default footprint (largest) gives the 1 MiB call both buffers at 64 GiB, rotated
  // through, as nccl-tests allocates at -e: 128 GiB.
  CHECK(largest_rank_buffers(calls, 4) == 2 * (64ull << 30));
  const std::string text = usage_error_text(
      [&] { check_rank_memory(calls, 4, 32ull << 30, "this host's 32 GiB", places_of(sweep, false, false, false)); });
  CHECK_THAT(text, ContainsSubstring("big.yaml:4:"));
  CHECK_THAT(text, ContainsSubstring("128 GiB"));
  CHECK_THAT(text, ContainsSubstring("more than this host's 32 GiB"));
  CHECK_NOTHROW(check_rank_memory(calls, 4, 128ull << 30, "enough", {}));
  // Exact buffers: all_gather of 64 GiB on 4 ranks is a 16 GiB send block and the 64 GiB result.
  const Sweep exact = load_sweep_text("name: x\nengine: mpi\ncollectives: [all_gather]\nsizes: [1M, 64G]\nbuffer_footprint: [exact]\n", "e.yaml");
  CHECK(largest_rank_buffers(plan_measurements(plan_sweep(exact, {}).measurements, 4), 4) == (16ull << 30) + (64ull << 30));
  // A fixed footprint is what each buffer spans, whatever the size: 1 MiB calls in 64 GiB.
  const Sweep wide = load_sweep_text("name: x\nengine: mpi\ncollectives: [all_gather]\nsizes: [1M]\nbuffer_footprint: [64G]\n", "w.yaml");
  const MeasurementPlan wide_calls = plan_measurements(plan_sweep(wide, {}).measurements, 4);
  CHECK(largest_rank_buffers(wide_calls, 4) == 2 * (64ull << 30));
  // ... and the footprint, not the 1 MiB size, is what the refusal names: its line, or its flag.
  const std::string wide_text = usage_error_text(
      [&] { check_rank_memory(wide_calls, 4, 32ull << 30, "this host's 32 GiB", places_of(wide, false, false, false)); });
  CHECK_THAT(wide_text, ContainsSubstring("w.yaml:5:"));
  CHECK_THAT(wide_text, ContainsSubstring("each the buffer footprint 64 GiB"));
  CHECK_THAT(wide_text, ContainsSubstring("give a smaller buffer footprint"));
  CHECK_THAT(usage_error_text([&] {
               check_rank_memory(wide_calls, 4, 32ull << 30, "this host's 32 GiB", places_of(wide, false, false, false, false, true));
             }),
             ContainsSubstring("--buffer-footprint"));
}
