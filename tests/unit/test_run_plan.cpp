// run's planning without MPI: which of the flags and the sweep file's keys decide each
// part of the launch, and the refusals every rank makes alike before measuring.
#include <algorithm>
#include <string>

#include "catch_compat.hpp"
#include "runtime/deadline.hpp"
#include "runtime/engine_registry.hpp"
#include "runtime/run_plan.hpp"

using namespace ncclsweep;

namespace {

RankLayout four_ranks_on_one_host() {
  RankLayout layout;
  layout.ranks = 4;
  layout.per_node = 4;
  layout.most_on_a_host = 4;
  layout.host_memory = Bytes{64} << 30;
  return layout;
}

// A run of `sweep_yaml` (none when empty) on the mpi engine, with `flags` over it.
LaunchRequest plan_run(RunFlags flags, const std::string& sweep_yaml = {}) {
  RunInputs inputs;
  if (!sweep_yaml.empty()) {
    flags.sweep_file = "sweep.yaml";
    inputs.sweep_text = sweep_yaml;
  }
  return build_run_plan(flags, inputs, four_ranks_on_one_host());
}

RunFlags on_mpi() {
  RunFlags flags;
  flags.measurements.engine = EngineKind::mpi;
  return flags;
}

}  // namespace

TEST_CASE("run plan: no sweep file measures the defaults, and each flag given replaces one") {
  const LaunchRequest plain = plan_run(on_mpi());
  CHECK(plain.spec.name == "run");
  CHECK(plain.spec.collectives.size() == 3);
  CHECK(plain.spec.sizes.front() == Bytes{1} << 20);
  CHECK(plain.spec.dtypes == std::vector<const DataType*>{&data_type("float32")});
  REQUIRE(plain.groups.size() == 1);
  CHECK(plain.groups.front().points.front().label == "default");

  RunFlags flags = on_mpi();
  flags.measurements.collectives = "broadcast";
  flags.measurements.sizes = "4M";
  flags.measurements.warmup = 9;
  flags.measurements.check = false;
  const LaunchRequest given = plan_run(flags);
  CHECK(given.spec.collectives == std::vector<const CollectiveKind*>{&collective("broadcast")});
  CHECK(given.spec.sizes == std::vector<Bytes>{Bytes{4} << 20});
  CHECK(given.spec.warmup == 9);
  CHECK_FALSE(given.spec.check);
  CHECK(given.spec.dtypes == plain.spec.dtypes);  // not given: the default stays
}

TEST_CASE("run plan: the sweep file's keys stand unless a flag is given") {
  const std::string sweep =
      "name: mine\ncollectives: [all_reduce]\nsizes: [2M, 8M]\nwarmup: 3\nrepeats: 2\norder: interleaved\nseed: 7\n";
  const LaunchRequest kept = plan_run(on_mpi(), sweep);
  CHECK(kept.spec.name == "mine");
  CHECK(kept.spec.collectives == std::vector<const CollectiveKind*>{&collective("all_reduce")});
  CHECK(kept.spec.sizes == std::vector<Bytes>{Bytes{2} << 20, Bytes{8} << 20});
  CHECK(kept.spec.warmup == 3);
  CHECK(kept.spec.repeats == 2);
  CHECK(kept.spec.order == RepeatOrder::interleaved);
  CHECK(kept.spec.seed == 7);

  RunFlags flags = on_mpi();
  flags.measurements.warmup = 11;
  flags.measurements.repeats = 4;
  flags.measurements.order = RepeatOrder::sequential;
  flags.measurements.name = "theirs";
  const LaunchRequest overridden = plan_run(flags, sweep);
  CHECK(overridden.spec.warmup == 11);
  CHECK(overridden.spec.repeats == 4);
  CHECK(overridden.spec.order == RepeatOrder::sequential);
  CHECK(overridden.spec.name == "theirs");
  CHECK(overridden.spec.seed == 7);  // not given
  CHECK(overridden.spec.sizes == kept.spec.sizes);
}

TEST_CASE("run plan: the launch fields of the flags reach the request as given") {
  RunFlags flags = on_mpi();
  flags.output = "out/here";
  flags.results_root = "elsewhere";
  flags.force = true;
  flags.corrupt_rank = 2;
  flags.progress = ProgressSetting::off;
  const LaunchRequest request = plan_run(flags);
  CHECK(request.output_dir == "out/here");
  CHECK(request.results_root == "elsewhere");
  CHECK(request.force);
  CHECK(request.corrupt_rank == 2);
  CHECK(request.progress == ProgressSetting::off);
}

TEST_CASE("run plan: a sweep's env axes under --engine mpi are refused by the sweep's checks") {
  CHECK_THROWS_WITH(plan_run(on_mpi(), "env:\n  NCCL_PROTO: [LL, Simple]\n"),
                    ContainsSubstring("the mpi engine cannot apply NCCL variables"));
}

TEST_CASE("run plan: a fault aimed at a rank or point the run does not have is refused") {
  RunFlags flags = on_mpi();
  flags.fault = "4:exit";
  CHECK_THROWS_WITH(plan_run(flags), ContainsSubstring("ranks 0..3"));
  flags.fault = "1:sleep=1@defualt";
  CHECK_THROWS_WITH(plan_run(flags), ContainsSubstring("did you mean"));
  flags.fault = "1:sleep=1@default";
  CHECK(plan_run(flags).fault.rank == 1);
  flags.fault = "1:skip";
  CHECK_THROWS_WITH(plan_run(flags), ContainsSubstring("needs the nccl engine"));
  flags.fault = "1:cpu-hog";
  CHECK_THROWS_WITH(plan_run(flags), ContainsSubstring("disturbs the probes"));
  flags.probe = true;
  CHECK(plan_run(flags).fault.action == FaultAction::cpu_hog);
}

TEST_CASE("run plan: --timeout bounds how long one MPI call may wait: the deadline in-process, twice it and a minute with workers") {
  RunFlags flags = on_mpi();
  flags.measurements.timeout_s = 45;
  const LaunchRequest request = plan_run(flags);
  CHECK(request.plan.notes.empty());
  CHECK(stall_limit_s(request.spec, request.plan, true) == 45);
  CHECK(stall_limit_s(request.spec, request.plan, false) == 2 * 45 + 60);
  // Never under 10 s: a rank finishing its reports keeps the others waiting a while.
  flags.measurements.timeout_s = 5;
  CHECK(stall_limit_s(plan_run(flags).spec, plan_run(flags).plan, true) == 10);
  // Without --timeout: the size's deadline, at least the init's 300 s.
  flags.measurements.timeout_s.reset();
  const LaunchRequest plain = plan_run(flags);
  CHECK(stall_limit_s(plain.spec, plain.plan, true) == progress_deadline_s(plain.spec, plain.plan));
  CHECK(progress_deadline_s(plain.spec, plain.plan) >= kDefaultInitDeadlineS);
}

TEST_CASE("run plan: --min-iters above --max-iters is refused with both numbers") {
  RunFlags flags = on_mpi();
  flags.measurements.stopping.min_iters = 50;
  flags.measurements.stopping.max_iters = 10;
  CHECK_THROWS_WITH(plan_run(flags), ContainsSubstring("--min-iters 50 is above --max-iters 10"));
}

TEST_CASE("run plan: --min-time above --max-time is refused with both numbers") {
  RunFlags flags = on_mpi();
  flags.measurements.stopping.min_seconds = 2;
  flags.measurements.stopping.max_seconds = 0.1;
  CHECK_THROWS_WITH(plan_run(flags), ContainsSubstring("--min-time 2 is above --max-time 0.1"));
  flags.measurements.stopping.max_seconds = 2;
  CHECK_NOTHROW(plan_run(flags));
}

TEST_CASE("run plan: a search cannot be resumed") {
  RunFlags flags = on_mpi();
  flags.search_method = SearchMethod::racing;
  flags.resume_dir = "results/earlier";
  CHECK_THROWS_WITH(plan_run(flags, "collectives: [all_reduce]\nsizes: [1M]\n"), ContainsSubstring("--resume cannot go on with a search"));
}

TEST_CASE("run plan: --env without a sweep file on the mpi engine is refused at the flag") {
  RunFlags flags = on_mpi();
  flags.plan_options.env_axes = {"NCCL_PROTO=LL,Simple"};
  CHECK_THROWS_WITH(plan_run(flags), ContainsSubstring("the mpi engine cannot apply NCCL variables"));
}

TEST_CASE("run plan: a fault at a rank the run lacks is refused for that, before what the fault needs") {
  const auto engines = available_engines();
  if (std::find(engines.begin(), engines.end(), "nccl") == engines.end()) {
    NCCLSWEEP_SKIP("built without NCCL: slow= is refused on the nccl engine only");
    return;
  }
  RunFlags flags;
  flags.measurements.engine = EngineKind::nccl;
  flags.fault = "7:slow=2";  // slow= needs the mpi engine too, but the rank is the first mistake
  CHECK_THROWS_WITH(plan_run(flags), ContainsSubstring("ranks 0..3"));
  flags.fault = "1:slow=2";
  CHECK_THROWS_WITH(plan_run(flags), ContainsSubstring("needs the mpi engine"));
}

TEST_CASE("run plan: the sweep file's engine, timeout and check stand unless a flag is given") {
  const std::string sweep = "engine: mpi\ntimeout: 40\ncheck: false\nsizes: [1M]\n";
  const LaunchRequest kept = plan_run(RunFlags{}, sweep);
  CHECK(kept.spec.engine == EngineKind::mpi);
  CHECK(kept.spec.timeout_s == 40);
  CHECK_FALSE(kept.spec.check);
  RunFlags flags;
  flags.measurements.timeout_s = 90;
  flags.measurements.check = true;
  const LaunchRequest given = plan_run(flags, sweep);
  CHECK(given.spec.timeout_s == 90);
  CHECK(given.spec.check);
}

TEST_CASE("run plan: a listed call the mpi engine cannot reduce is refused at its line, and --dtype replaces the calls' dtype") {
  const std::string sweep =
      "collectives: [all_reduce]\n"
      "sizes:\n"
      "  calls:\n"
      "    - {collective: all_reduce, bytes: 4M, calls: 2}\n"
      "    - {collective: all_reduce, bytes: 16M, dtype: bfloat16, calls: 3}\n";
  const std::string refusal = usage_error_text([&] { plan_run(on_mpi(), sweep); });
  CHECK_THAT(refusal, ContainsSubstring("sweep.yaml:5:"));
  CHECK_THAT(refusal, ContainsSubstring("bfloat16"));
  CHECK_THAT(refusal, ContainsSubstring("fix: --dtype float32"));

  RunFlags flags = on_mpi();
  flags.measurements.dtypes = "float32";
  const LaunchRequest given = plan_run(flags, sweep);
  REQUIRE(given.spec.calls.size() == 2);
  for (const SizedCall& call : given.spec.calls) CHECK(call.dtype == &data_type("float32"));
  CHECK(given.spec.calls[1].bytes == Bytes{16} << 20);  // the bytes stay; the elements follow
  const auto& notes = given.plan.notes;
  CHECK(std::any_of(notes.begin(), notes.end(), [](const std::string& note) {
    return note.find("--dtype float32 replaces the calls' own dtype (bfloat16)") != std::string::npos;
  }));

  flags.measurements.dtypes = "float32,float64";
  CHECK_THAT(usage_error_text([&] { plan_run(flags, sweep); }), ContainsSubstring("takes one dtype"));
}

TEST_CASE("run plan: a listed call averaging on the mpi engine is refused at its line, and --op sum replaces its op") {
  const std::string sweep =
      "collectives: [reduce_scatter]\n"
      "sizes:\n"
      "  calls:\n"
      "    - {collective: reduce_scatter, bytes: 16M, dtype: float32, op: avg, calls: 3}\n";
  const std::string refusal = usage_error_text([&] { plan_run(on_mpi(), sweep); });
  CHECK_THAT(refusal, ContainsSubstring("sweep.yaml:4:"));
  CHECK_THAT(refusal, ContainsSubstring("no avg op"));
  CHECK_THAT(refusal, ContainsSubstring("fix: --op sum replaces the reducing calls' own op"));

  RunFlags flags = on_mpi();
  flags.measurements.ops = "sum";
  const LaunchRequest given = plan_run(flags, sweep);
  REQUIRE(given.spec.calls.size() == 1);
  CHECK(given.spec.calls[0].op == ReduceOp::sum);
  const auto& notes = given.plan.notes;
  CHECK(std::any_of(notes.begin(), notes.end(), [](const std::string& note) {
    return note.find("--op sum replaces the reducing calls' own op (avg)") != std::string::npos;
  }));
  flags.measurements.ops = "sum,max";
  CHECK_THAT(usage_error_text([&] { plan_run(flags, sweep); }), ContainsSubstring("takes one op"));
}

TEST_CASE("run plan: sizes given as a typed source plan the calls a sizes block naming the same workload plans") {
  const std::string workload = NCCLSWEEP_SOURCE_DIR "/configs/workloads/llama3-8b-2gpu.yaml";
  RunFlags flags = on_mpi();
  flags.models_dir = NCCLSWEEP_SOURCE_DIR "/configs/models";
  // The mpi engine reduces neither the workload's bfloat16 nor an average: both replaced.
  flags.measurements.dtypes = "float32";
  flags.measurements.ops = "sum";
  const LaunchRequest from_block = plan_run(flags, "sizes: {workload: \"" + workload + "\"}\n");

  flags.sweep_file = "(diagnose --workload llama3-8b-2gpu.yaml)";
  RunInputs inputs;
  SizesSource& sizes = inputs.sizes.emplace();
  sizes.kind = SizesSourceKind::workload;
  sizes.path = workload;
  sizes.where = SourcePosition{flags.sweep_file};
  const LaunchRequest typed = build_run_plan(flags, inputs, four_ranks_on_one_host());

  REQUIRE_FALSE(typed.spec.calls.empty());
  CHECK(typed.spec.calls.size() == from_block.spec.calls.size());
  for (std::size_t i = 0; i < typed.spec.calls.size() && i < from_block.spec.calls.size(); ++i) {
    CHECK(typed.spec.calls[i].bytes == from_block.spec.calls[i].bytes);
    CHECK(typed.spec.calls[i].kind == from_block.spec.calls[i].kind);
  }
  REQUIRE(typed.workload.has_value());
  REQUIRE(from_block.workload.has_value());
  CHECK(typed.workload->calls.size() == from_block.workload->calls.size());
}
