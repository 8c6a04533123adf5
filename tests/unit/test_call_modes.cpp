// Buffer and launch modes, GPU clock readings and the
// per-size best mode: everything about them that needs no GPU.
#include <nlohmann/json.hpp>

#include "catch_compat.hpp"
#include "core/call_modes.hpp"
#include "core/errors.hpp"
#include "core/gpu_clocks.hpp"
#include "plan/measurement_plan.hpp"
#include "results/best_mode.hpp"
#include "results/measurement_key.hpp"
#include "results/record_json.hpp"
#include "results/resume.hpp"
#include "processes/worker_protocol.hpp"

using namespace ncclsweep;

TEST_CASE("mode lists parse, drop duplicates and name the valid modes on a typo") {
  CHECK(parse_buffer_mode_list("nccl-window, cuda-malloc,nccl-window") ==
        std::vector<BufferMode>{BufferMode::nccl_window, BufferMode::cuda_malloc});
  CHECK(parse_launch_mode_list("graph,blocking") == std::vector<LaunchMode>{LaunchMode::graph, LaunchMode::blocking});
  CHECK(name_of(BufferMode::nccl_register) == "nccl-register");
  CHECK(name_of(LaunchMode::blocking) == "blocking");
  const std::string text = usage_error_text([] { parse_buffer_mode_list("cuda-malloc,registered"); });
  CHECK_THAT(text, ContainsSubstring("unknown buffer mode 'registered'"));
  CHECK_THAT(text, ContainsSubstring("cuda-malloc, nccl-register, nccl-window"));
  CHECK_THROWS_AS(parse_launch_mode_list(""), UsageError);
}

namespace {
RunSpec float_all_gather(const std::string& sizes) {
  RunSpec spec;
  spec.collectives = parse_collective_list("all_gather");
  spec.sizes = parse_size_list(sizes);
  spec.dtypes = parse_dtype_list("float32");
  spec.ops = parse_op_list("sum");
  return spec;
}
}  // namespace

TEST_CASE("the plan measures every call once per buffer and launch mode, modes outermost") {
  RunSpec spec = float_all_gather("1M,4M");
  spec.buffer_modes = {BufferMode::cuda_malloc, BufferMode::nccl_register};
  spec.launch_modes = {LaunchMode::stream, LaunchMode::graph};
  const MeasurementPlan plan = plan_measurements(spec, 2);
  REQUIRE(plan.calls.size() == 2 * 2 * 2);
  CHECK(plan.calls[0].call.buffers == BufferMode::cuda_malloc);
  CHECK(plan.calls[0].call.launch == LaunchMode::stream);
  CHECK(plan.calls[1].total_bytes == 4u << 20);  // sizes inside one mode
  CHECK(plan.calls[1].call.launch == LaunchMode::stream);
  CHECK(plan.calls[2].call.launch == LaunchMode::graph);
  CHECK(plan.calls[2].call.buffers == BufferMode::cuda_malloc);
  CHECK(plan.calls[4].call.buffers == BufferMode::nccl_register);
  CHECK(plan.calls[7].call.launch == LaunchMode::graph);
  CHECK(plan.calls[7].total_bytes == 4u << 20);
}

TEST_CASE("workers receive the modes; plain runs' messages carry none") {
  RunSpec spec = float_all_gather("1M");
  CHECK_FALSE(nlohmann::json(spec).contains("buffers"));
  spec.buffer_modes = {BufferMode::nccl_window};
  spec.launch_modes = {LaunchMode::stream, LaunchMode::blocking};
  const RunSpec back = nlohmann::json(spec).get<RunSpec>();
  CHECK(back.buffer_modes == spec.buffer_modes);
  CHECK(back.launch_modes == spec.launch_modes);
}

TEST_CASE("records keep modes and clocks through JSON, and old records read as the defaults") {
  MeasurementRecord r;
  r.collective = &collective("all_gather");
  r.dtype = &data_type("float32");
  r.op = std::nullopt;
  r.placement = Placement::out_of_place;
  const nlohmann::json plain = r;
  CHECK_FALSE(plain.contains("buffers"));
  CHECK_FALSE(plain.contains("clocks"));
  const MeasurementRecord plain_back = plain.get<MeasurementRecord>();
  CHECK(plain_back.buffers == BufferMode::cuda_malloc);
  CHECK(plain_back.launch == LaunchMode::stream);
  CHECK_FALSE(plain_back.clocks);

  r.buffers = BufferMode::nccl_register;
  r.launch = LaunchMode::graph;
  r.clocks = MeasurementClocks{1980, 1755, 3201, 3201, {ThrottleReason::sw_power_cap}};
  const MeasurementRecord back = nlohmann::json(r).get<MeasurementRecord>();
  CHECK(back.buffers == BufferMode::nccl_register);
  CHECK(back.launch == LaunchMode::graph);
  REQUIRE(back.clocks);
  CHECK(back.clocks->sm_mhz_before == 1980);
  CHECK(back.clocks->sm_mhz_after == 1755);
  CHECK(back.clocks->throttle == std::vector<ThrottleReason>{ThrottleReason::sw_power_cap});
  // --resume tells modes apart; a record from before modes existed reads as the defaults.
  CHECK(key_of(back) != key_of(plain_back));
  CHECK(key_of(back) != key_of(plain_back));
  CHECK(key_of(plain_back).buffers == BufferMode::cuda_malloc);
  CHECK(key_of(plain_back).launch == LaunchMode::stream);
}

TEST_CASE("nvidia-smi clock lines parse; other shapes are refused") {
  const auto clocks = parse_clock_query("1980, 3201, Not Active, Active, Not Active, Not Active, Active\n");
  REQUIRE(clocks);
  CHECK(clocks->sm_mhz == 1980);
  CHECK(clocks->mem_mhz == 3201);
  CHECK(throttle_reasons(clocks->throttled) ==
        std::vector<ThrottleReason>{ThrottleReason::hw_slowdown, ThrottleReason::hw_power_brake});
  CHECK_FALSE(parse_clock_query("[N/A], 3201, Not Active, Not Active, Not Active, Not Active, Not Active"));
  CHECK_FALSE(parse_clock_query("1980, 3201"));
  CHECK_FALSE(parse_clock_query("1980, 3201, Not Active, Maybe, Not Active, Not Active, Not Active"));
  CHECK_THAT(clock_query_fields(), ContainsSubstring("clocks.sm,clocks.mem,"));
}

namespace {
MeasurementRecord at(Bytes size, BufferMode buffers, LaunchMode launch, double busbw, int repeat = 0) {
  MeasurementRecord r;
  r.collective = &collective("all_gather");
  r.dtype = &data_type("float32");
  r.op = std::nullopt;
  r.repeat = repeat;
  r.placement = Placement::out_of_place;
  r.size_bytes = size;
  r.buffers = buffers;
  r.launch = launch;
  r.busbw_gbps = busbw;
  return r;
}
}  // namespace

TEST_CASE("best mode per size: the highest median busbw, against the default mode") {
  const std::vector<MeasurementRecord> records = {
      at(1 << 20, BufferMode::cuda_malloc, LaunchMode::stream, 40), at(1 << 20, BufferMode::cuda_malloc, LaunchMode::graph, 55),
      at(1 << 20, BufferMode::nccl_register, LaunchMode::stream, 50),
      // repeats: nccl-register's median (300) beats the default's (290) despite its one low repeat
      at(64 << 20, BufferMode::cuda_malloc, LaunchMode::stream, 290, 0), at(64 << 20, BufferMode::cuda_malloc, LaunchMode::stream, 291, 1),
      at(64 << 20, BufferMode::cuda_malloc, LaunchMode::stream, 289, 2), at(64 << 20, BufferMode::nccl_register, LaunchMode::stream, 301, 0),
      at(64 << 20, BufferMode::nccl_register, LaunchMode::stream, 100, 1), at(64 << 20, BufferMode::nccl_register, LaunchMode::stream, 300, 2),
      at(256 << 20, BufferMode::cuda_malloc, LaunchMode::stream, 300),  // one mode only: not listed
  };
  const std::vector<BestMode> best = best_modes(aggregate_repeats(records));
  REQUIRE(best.size() == 2);
  CHECK(best[0].key.size_bytes == 1u << 20);
  CHECK(best[0].key.launch == LaunchMode::graph);
  CHECK(best[0].key.buffers == BufferMode::cuda_malloc);
  CHECK(best[0].busbw_gbps == Approx(55));
  CHECK(best[0].default_busbw_gbps == Approx(40));
  CHECK(best[0].modes == 3);
  CHECK(best[1].key.buffers == BufferMode::nccl_register);
  CHECK(best[1].busbw_gbps == Approx(300));
  CHECK(best[1].default_busbw_gbps == Approx(290));
}

TEST_CASE("points keep their phase times; run.json points from before them still read") {
  PointOutcome point;
  point.label = "NCCL_PROTO=LL";
  point.status = PointStatus::ok;
  point.phase_s.worker_start = 1.5;
  point.phase_s.measure = 2.25;
  nlohmann::json j = point;
  CHECK(j.at("phase_s").at("measure").get<double>() == Approx(2.25));
  CHECK(j.get<PointOutcome>().phase_s.worker_start == Approx(1.5));
  j.erase("phase_s");
  const PointOutcome old = j.get<PointOutcome>();
  CHECK(old.label == "NCCL_PROTO=LL");
  CHECK(old.phase_s.measure == 0);
}
