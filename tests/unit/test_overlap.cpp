// Collectives under compute (docs/overlap.md): the load's text forms, the sweep key, the
// arithmetic of one window, the record's JSON and key, and the report in every format.
#include <sstream>

#include "catch_compat.hpp"
#include "engine/overlap_window.hpp"
#include "report/overlap_report.hpp"
#include "results/iteration_times.hpp"
#include "results/measurement_key.hpp"
#include "results/record_json.hpp"
#include "spec/sweep.hpp"

using namespace ncclsweep;

TEST_CASE("a GEMM load reads from gemm:MxNxK:DTYPE and writes back the same", "[overlap]") {
  const ComputeLoad load = parse_compute_load("gemm:8192x4096x1024:bf16");
  CHECK(load.m == 8192);
  CHECK(load.n == 4096);
  CHECK(load.k == 1024);
  CHECK(load.dtype->name == "bfloat16");
  CHECK(load.flops() == Approx(2.0 * 8192 * 4096 * 1024));
  CHECK(to_text(load) == "gemm:8192x4096x1024:bfloat16");
  CHECK(parse_compute_load(to_text(load)) == load);
}

TEST_CASE("a bad GEMM load is refused with the form to write", "[overlap]") {
  CHECK_THROWS_WITH(parse_compute_load("gemm:8192x8192:bf16"), ContainsSubstring("is not MxNxK"));
  CHECK_THROWS_WITH(parse_compute_load("conv:8x8x8:bf16"), ContainsSubstring("unknown compute kind"));
  CHECK_THROWS_WITH(parse_compute_load("gemm:8x0x8:bf16"), ContainsSubstring("1 .. 1048576"));
  CHECK_THROWS_WITH(parse_compute_load("gemm:8x8x8:int8"), ContainsSubstring("cannot be int8"));
  CHECK_THROWS_WITH(parse_compute_load("gemm8x8x8"), ContainsSubstring("--with-compute 'gemm8x8x8'"));
}

TEST_CASE("the sweep file's compute key gives the run its load; a bad key names its line", "[overlap]") {
  const Sweep sweep = load_sweep_text("compute:\n  kind: gemm\n  shape: [256, 128, 64]\n  dtype: float32\n", "s.yaml");
  REQUIRE(sweep.measurements.compute);
  CHECK(to_text(*sweep.measurements.compute) == "gemm:256x128x64:float32");
  CHECK_THAT(usage_error_text([] { load_sweep_text("compute:\n  kind: gemm\n  shape: [256, 128]\n  dtype: float32\n", "s.yaml"); }),
             ContainsSubstring("s.yaml:3"));
  CHECK_THROWS_WITH(load_sweep_text("compute:\n  kind: gemm\n  shape: [2, 2, 2]\n  dtyp: float32\n", "s.yaml"),
                    ContainsSubstring("unknown compute key 'dtyp'"));
}

TEST_CASE("a window counts the GEMMs wholly inside it, and the wall against the serial sum", "[overlap]") {
  OverlapRound round;
  round.compute_alone_s = 1.0;
  round.comm_alone_s = 2.0;  // 4 calls of 0.5
  round.calls = 4;
  round.window = {0.2, 4.2};  // under compute the 4 calls took 4.0
  round.gemms = {{0.0, 1.5}, {1.5, 3.0}, {3.0, 4.5}};  // 1.5 each; only the middle one wholly inside
  const OverlapTimes t = summarize_rounds({round, round});
  CHECK(t.comm_alone_s == Approx(0.5));
  CHECK(t.comm_under_s == Approx(1.0));
  CHECK(t.compute_alone_s == Approx(1.0));
  CHECK(t.compute_under_s == Approx(1.5));
  CHECK(t.compute_ops_under == 1);
  CHECK(t.overlapped_wall_s == Approx(4.5));  // first GEMM start to the last GEMM's end
  CHECK(t.serial_sum_s == Approx(2.0 + 3 * 1.0));
}

TEST_CASE("a GEMM longer than the window still gives a figure", "[overlap]") {
  OverlapRound round{1.0, 0.1, 1, {0.5, 0.6}, {{0.0, 2.0}}};
  const OverlapTimes t = summarize_rounds({round});
  CHECK(t.compute_under_s == Approx(2.0));
  CHECK(t.compute_ops_under == 1);
}

namespace {

MeasurementRecord record_under(const std::string& point, double comm_under_us, double compute_under_us) {
  MeasurementRecord r;
  r.collective = &collective("all_reduce");
  r.dtype = &data_type("float32");
  r.op = ReduceOp::sum;
  r.size_bytes = r.requested_bytes = 1 << 20;
  r.count = (1 << 20) / 4;
  r.placement = Placement::out_of_place;
  r.ranks = 2;
  r.point = point;
  r.time_us = {90, 95, 100};
  r.busbw_gbps = 10;
  UnderCompute u;
  u.load = parse_compute_load("gemm:64x64x64:float32");
  u.site = ComputeSite::cpu_analogue;
  u.rounds = 3;
  u.calls = 8;
  u.comm_alone_us = 100;
  u.comm_under_us = comm_under_us;
  u.compute_alone_us = 50;
  u.compute_under_us = compute_under_us;
  u.tflops_alone = 0.01;
  u.tflops_under = 0.005;
  u.overlapped_wall_us = 900;
  u.serial_sum_us = 1200;
  r.under_compute = u;
  return r;
}

}  // namespace

TEST_CASE("a record under compute keeps its figures through JSON and is its own measurement", "[overlap]") {
  const MeasurementRecord r = record_under("default", 150, 75);
  const nlohmann::json j = r;
  CHECK(j.at("under_compute").at("comm_slowdown").get<double>() == Approx(1.5));
  CHECK(j.at("under_compute").at("compute_slowdown").get<double>() == Approx(1.5));
  CHECK(j.at("under_compute").at("site") == "cpu-analogue");
  const MeasurementRecord back = j.get<MeasurementRecord>();
  REQUIRE(back.under_compute);
  CHECK(back.under_compute->load == r.under_compute->load);
  CHECK(back.under_compute->exposed_us() == Approx(50));
  MeasurementRecord idle = r;
  idle.under_compute.reset();
  CHECK(key_of(idle) != key_of(r));
  CHECK(conditions_text(key_of(r)).empty());  // recommend still reads it as the default way
}

TEST_CASE("the iteration time gains its overlapped form", "[overlap]") {
  RunDocument run;
  run.workload = WorkloadWeights{"w.yaml", "per iteration", {{&collective("all_reduce"), 1 << 20, &data_type("float32"), CommunicatorKind::world, 2, 10, "test"}}};
  run.records = {record_under("default", 150, 75)};
  const std::vector<PointIterationTime> times = weigh_points(run);
  REQUIRE(times.size() == 1);
  CHECK(times[0].ms == Approx(10 * 100e-3));  // idle: 10 calls x 100 us
  REQUIRE(times[0].under_compute_ms);
  CHECK(*times[0].under_compute_ms == Approx(10 * 50e-3));  // 10 calls x 50 us exposed
}

TEST_CASE("the under-compute report shows both slowdowns in every format", "[overlap]") {
  RunDocument run;
  run.name = "cpu";
  run.records = {record_under("default", 150, 75)};
  const OverlapReport report = build_overlap_report(run);
  REQUIRE(report.rows.size() == 1);
  REQUIRE(report.settings.size() == 1);
  CHECK(report.settings[0].comm_slowdown == Approx(1.5));
  CHECK_THAT(report.notes.at(0), ContainsSubstring("CPU analogue"));
  const auto printed = [&](const char* format) {
    std::ostringstream out;
    print_overlap_report(report, kReportFormatNames.parse(format), out);
    return out.str();
  };
  CHECK_THAT(printed("table"), ContainsSubstring("x1.50"));
  CHECK_THAT(printed("table"), ContainsSubstring("CPU analogue"));
  CHECK_THAT(printed("md"), ContainsSubstring("| compute slowdown |"));
  CHECK_THAT(printed("csv"), ContainsSubstring(",comm_slowdown,"));
  CHECK_THAT(printed("csv"), ContainsSubstring(",1.5,"));
  const nlohmann::json j = nlohmann::json::parse(printed("json"));
  CHECK(j.at("settings").at(0).at("compute_slowdown").get<double>() == Approx(1.5));
  CHECK_THAT(printed("svg"), ContainsSubstring("default: comm x1.50, compute x1.50"));
  CHECK_THROWS_WITH(printed("prom"), ContainsSubstring("the under-compute view has no --format prom"));
}

TEST_CASE("one rank under compute says it is not a real collective", "[overlap]") {
  const auto notes = under_compute_notes(ComputeSite::gpu, 1);
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], ContainsSubstring("one rank is not a real collective"));
  CHECK(under_compute_notes(ComputeSite::gpu, 8).empty());
}
