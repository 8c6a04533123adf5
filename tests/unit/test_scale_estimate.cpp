// `plan --ranks N`: the at-scale estimate's terms, and busbw taken from a reference run.
#include <cmath>
#include <string>

#include "catch_compat.hpp"
#include "plan/scale_estimate.hpp"
#include "plan/sweep_plan.hpp"
#include "report/scale_estimate_report.hpp"

using namespace ncclsweep;

namespace {

SweepPlan planned(const std::string& yaml) { return plan_sweep(load_sweep_text(yaml, "t.yaml"), PlanOptions{}); }

MeasurementRecord record(const std::string& collective, Bytes size, double busbw_gbps) {
  MeasurementRecord r;
  r.collective = &ncclsweep::collective(collective);
  r.size_bytes = size;
  r.busbw_gbps = busbw_gbps;
  return r;
}

// A model whose every term is easy to redo by hand.
ScaleModel round_model(int ranks) {
  ScaleModel m;
  m.ranks = ranks;
  m.launch_base_s = 1;
  m.launch_per_rank_s = 0.01;
  m.init_base_s = 0.5;
  m.init_per_rank_s = 0.001;
  m.busbw_bytes_per_s = 1e9;
  m.call_latency_s = 0;
  m.latency_per_log2_rank_s = 0;
  m.coordination_base_s = 0.001;
  m.coordination_per_log2_rank_s = 0.002;
  return m;
}

}  // namespace

TEST_CASE("the at-scale estimate adds starts and inits that grow with ranks to the calls and coordination") {
  // 2 groups (NCCL_MAX_NCHANNELS is process-cached), 2 points; all_reduce of 1 GB, 1 dtype, 1 op, 2 placements.
  const SweepPlan plan = planned(
      "collectives: [all_reduce]\nsizes: [1GB]\nwarmup: 1\niters: 2\nenv:\n  NCCL_MAX_NCHANNELS: [1, 32]\n");
  REQUIRE(plan.isolation_groups.size() == 2);
  const ScaleEstimate e = estimate_at_scale(plan, round_model(512));
  CHECK(e.launch_s == Approx(2 * (1 + 0.01 * 512)));
  CHECK(e.init_s == Approx(2 * (0.5 + 0.001 * 512)));
  // all_reduce moves 2(n-1)/n x size at busbw; (1 warmup + 2 iters + 1 checked) calls x 2 placements x 2 points.
  const double call_s = 1e9 * 2.0 * 511 / 512 / 1e9;
  CHECK(e.collectives_s == Approx(2 * 2 * 4 * call_s));
  CHECK(e.measurements == 4);
  CHECK(e.coordination_s == Approx(4 * (0.001 + 0.002 * 9)));
  CHECK(e.total_s() == Approx(e.launch_s + e.init_s + e.collectives_s + e.coordination_s));
  // More ranks cost more start, init and coordination time.
  const ScaleEstimate bigger = estimate_at_scale(plan, round_model(4096));
  CHECK(bigger.launch_s > e.launch_s);
  CHECK(bigger.init_s > e.init_s);
  CHECK(bigger.coordination_s > e.coordination_s);
}

TEST_CASE("a reference run's busbw replaces the assumed one for the collectives it measured") {
  const SweepPlan plan = planned("collectives: [all_gather, broadcast]\nsizes: [1GB]\nwarmup: 0\niters: 1\ncheck: false\n");
  ScaleModel model = round_model(8);
  const double assumed = estimate_at_scale(plan, model).collectives_s;
  model.reference = {record("all_gather", 1000000000, 4.0), record("all_gather", 1000, 0.5)};
  const ScaleEstimate e = estimate_at_scale(plan, model);
  CHECK(e.planned_calls == 2);
  CHECK(e.sizes_from_reference == 1);  // broadcast is not in the reference
  // all_gather: 2 placements x 1 call x (7/8 x 1 GB at 4 GB/s instead of 1 GB/s)
  const double gather_assumed = 2 * 7.0 / 8, gather_reference = 2 * 7.0 / 8 / 4;
  CHECK(e.collectives_s == Approx(assumed - gather_assumed + gather_reference));
}

TEST_CASE("the reference busbw is the nearest measured size's, on a log scale") {
  const std::vector<MeasurementRecord> reference = {record("all_reduce", 1 << 10, 1.0), record("all_reduce", 1 << 20, 10.0),
                                                    record("all_reduce", 1 << 20, 12.0), record("all_gather", 1 << 20, 99.0)};
  CHECK(reference_busbw(reference, "all_reduce", 1 << 11) == Approx(1e9));
  CHECK(reference_busbw(reference, "all_reduce", 1 << 18) == Approx(12e9));  // nearer 1M; the faster placement
  CHECK(reference_busbw(reference, "reduce", 1 << 20) == 0);
}

TEST_CASE("the at-scale text names the rank count and each term; the JSON carries the same numbers") {
  const SweepPlan plan = planned("collectives: [all_reduce]\nsizes: [1M]\n");
  const ScaleModel model = round_model(512);
  const ScaleEstimate e = estimate_at_scale(plan, model);
  const std::string text = scale_estimate_text(e, model);
  CHECK_THAT(text, ContainsSubstring("estimated wall time at 512 ranks"));
  CHECK_THAT(text, ContainsSubstring("worker starts"));
  CHECK_THAT(text, ContainsSubstring("communicator inits"));
  CHECK_THAT(text, ContainsSubstring("busbw 1 GB/s assumed"));
  const auto j = scale_estimate_json(e, model);
  CHECK(j["ranks"] == 512);
  CHECK(j["total_seconds"].get<double>() == Approx(e.total_s()));
}

TEST_CASE("the at-scale estimate counts a listed calls block's calls on their groups, not the sweep's grid") {
  SweepPlan plan = planned("collectives: [all_reduce]\nsizes: [1K, 1M, 1G]\nwarmup: 0\niters: 1\ncheck: false\n");
  SizedCall call;
  call.kind = &ncclsweep::collective("all_gather");
  call.dtype = plan.measurements.dtypes.front();
  call.bytes = 1 << 20;
  call.split = CommSplit{CommunicatorKind::tp, 2, 1};
  plan.measurements.calls = {call};
  const ScaleEstimate e = estimate_at_scale(plan, round_model(8));
  CHECK(e.planned_calls == 1);
  CHECK(e.measurements == 2);  // out of place and in place
  // all_gather on its group of 2 moves 1/2 x 1 MiB at 1 GB/s, once per placement.
  CHECK(e.collectives_s == Approx(2 * 0.5 * (1 << 20) / 1e9));
}
