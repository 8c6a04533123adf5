// Per-iteration statistics, the noise-based stopping rule, the order of repeats, and
// the measurement loop driven by a scripted engine on one rank.
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

#include "catch_compat.hpp"
#include "compare/side_readers.hpp"
#include "report/sweep_summary.hpp"
#include "core/iteration_stats.hpp"
#include "core/repeat_order.hpp"
#include "core/stopping_rule.hpp"
#include "plan/measurement_plan.hpp"
#include "results/record_json.hpp"
#include "results/stragglers.hpp"
#include "measure/measurement_loop.hpp"
#include "thread_ranks.hpp"
#include "worker/worker_loop.hpp"

using namespace ncclsweep;

TEST_CASE("quantiles interpolate between the closest ranks") {
  const std::vector<double> four{1, 2, 3, 4};
  CHECK(quantile_of_sorted(four, 0.5) == Approx(2.5));
  CHECK(quantile_of_sorted(four, 0.0) == Approx(1.0));
  CHECK(quantile_of_sorted(four, 1.0) == Approx(4.0));
  std::vector<double> ten;
  for (int i = 1; i <= 10; ++i) ten.push_back(i);
  CHECK(quantile_of_sorted(ten, 0.9) == Approx(9.1));
  CHECK(quantile_of_sorted(std::vector<double>{7}, 0.99) == Approx(7.0));
}

TEST_CASE("a summary sorts its input and keeps the extremes and the mean") {
  const std::vector<double> times{5, 1, 4, 2, 3};
  const IterationSummary s = summarize_iterations(times);
  CHECK(s.min == 1);
  CHECK(s.max == 5);
  CHECK(s.p50 == Approx(3));
  CHECK(s.p90 == Approx(4.6));
  CHECK(s.mean == Approx(3));
  CHECK(summarize_iterations(std::vector<double>{}).max == 0);
}

TEST_CASE("the relative standard error is the sample deviation over sqrt(n), over the mean") {
  CHECK(relative_standard_error(std::vector<double>{1, 3}) == Approx(0.5));  // sd sqrt(2), se 1, mean 2
  CHECK(relative_standard_error(std::vector<double>{2, 2, 2, 2}) == 0);
  CHECK(std::isinf(relative_standard_error(std::vector<double>{1})));
}

namespace {
std::vector<double> alternating(int n, double a, double b) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(i % 2 ? b : a);
  return v;
}
}  // namespace

TEST_CASE("a fixed count stops exactly there") {
  StoppingRule rule;
  rule.fixed_iters = 7;
  CHECK(next_batch(rule, {}) == 7);
  CHECK(stop_reason(rule, alternating(6, 1, 2)) == StopReason::not_yet);
  CHECK(stop_reason(rule, alternating(7, 1, 2)) == StopReason::fixed);
}

TEST_CASE("the noise-based stop waits for min_iters and min time, then for the target spread") {
  StoppingRule rule;
  rule.min_iters = 4;
  rule.max_iters = 1000;
  rule.min_seconds = 0;
  rule.max_seconds = 100;
  rule.target_spread = 0.01;
  CHECK(next_batch(rule, {}) == 4);
  const std::vector<double> steady(4, 1e-3);
  CHECK(stop_reason(rule, std::vector<double>(3, 1e-3)) == StopReason::not_yet);
  CHECK(stop_reason(rule, steady) == StopReason::spread);
  rule.min_seconds = 0.01;  // 4 ms timed so far
  CHECK(stop_reason(rule, steady) == StopReason::not_yet);
  CHECK(next_batch(rule, steady) == 6);  // what the remaining 6 ms need at 1 ms each
  // 10% alternation: se/mean = 0.05/sqrt(n)/1.05 roughly; 1% needs about 23 iterations.
  rule.min_seconds = 0;
  const auto noisy = alternating(8, 1.0e-3, 1.1e-3);
  CHECK(stop_reason(rule, noisy) == StopReason::not_yet);
  CHECK(next_batch(rule, noisy) == 8);  // wants more than double: capped at doubling
  CHECK(stop_reason(rule, alternating(40, 1.0e-3, 1.1e-3)) == StopReason::spread);
}

TEST_CASE("the noise-based stop ends at max_iters or max time whatever the spread") {
  StoppingRule rule;
  rule.min_iters = 2;
  rule.max_iters = 10;
  rule.min_seconds = 0;
  rule.max_seconds = 100;
  rule.target_spread = 1e-9;
  const auto noisy = alternating(10, 1, 2);
  CHECK(stop_reason(rule, noisy) == StopReason::max_iters);
  CHECK(next_batch(rule, alternating(8, 1, 2)) == 2);  // never past max_iters
  rule.max_seconds = 5;
  CHECK(stop_reason(rule, alternating(4, 1, 2)) == StopReason::max_time);  // 6 s timed
  CHECK(next_batch(rule, alternating(2, 1, 2)) == 2);  // 3 s left at 1.5 s each
}

TEST_CASE("repeats run sequentially, interleaved, or shuffled by a seed") {
  using R = ScheduledRun;
  CHECK(schedule_repeats(2, 2, RepeatOrder::sequential, 0) == std::vector<R>{{0, 0}, {0, 1}, {1, 0}, {1, 1}});
  CHECK(schedule_repeats(2, 3, RepeatOrder::interleaved, 0) == std::vector<R>{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2}});
  const auto a = schedule_repeats(4, 3, RepeatOrder::shuffled, 42);
  CHECK(a == schedule_repeats(4, 3, RepeatOrder::shuffled, 42));  // the seed fixes the order
  CHECK(a != schedule_repeats(4, 3, RepeatOrder::shuffled, 43));
  CHECK(a != schedule_repeats(4, 3, RepeatOrder::interleaved, 0));
  std::set<std::pair<int, int>> seen;
  std::vector<int> next(4, 0);
  for (const R& run : a) {
    seen.insert({run.item, run.repeat});
    CHECK(run.repeat == next[static_cast<std::size_t>(run.item)]++);  // each item's repeats in order
  }
  CHECK(seen.size() == 12);
  CHECK_THAT(usage_error_text([] { parse_repeat_order("random"); }), ContainsSubstring("unknown order 'random'"));
  CHECK_THAT(usage_error_text([] { parse_repeat_order("random"); }), ContainsSubstring("sequential, interleaved, shuffled"));
  CHECK(parse_repeat_order(name_of(RepeatOrder::shuffled)) == RepeatOrder::shuffled);
}

TEST_CASE("workers visit several points once per repeat when interleaved") {
  LoopOptions options;
  options.repeats = 2;
  options.order = RepeatOrder::interleaved;
  const auto visits = point_visits(2, options);
  REQUIRE(visits.size() == 4);
  CHECK(visits[0].point == 0);
  CHECK(visits[1].point == 1);
  CHECK(visits[2].point == 0);
  CHECK(visits[2].first_repeat == 1);
  CHECK(visits[3].repeats == 1);
  options.order = RepeatOrder::sequential;
  const auto once = point_visits(2, options);
  REQUIRE(once.size() == 2);
  CHECK(once[1].repeats == 2);
}

namespace {

// One rank; iteration i of the whole run takes times[i % times.size()] seconds.
class ScriptedEngine final : public Engine {
 public:
  explicit ScriptedEngine(std::vector<double> times) : times_(std::move(times)) {}
  std::string_view name() const override { return "scripted"; }
  DeviceDescription device() const override { return {}; }
  void connect(const std::vector<ConfigSetting>&) override {}
  void disconnect() override {}
  std::string unsupported_reason(const CollectiveCall&) const override { return {}; }
  void split(const std::vector<int>&) override {}
  std::uint64_t run_checked(const CollectiveCall&, bool) override { return 0; }
  TimedIterations run_timed(const CollectiveCall&, int iters, int calls_per_sample) override {
    TimedIterations t;
    for (int i = 0; i < iters; ++i) {
      double s = 0;
      for (int c = 0; c < calls_per_sample; ++c) s += times_[next_++ % times_.size()];
      t.iteration_seconds.push_back(s);
      t.device_seconds += s;
    }
    samples_of.push_back(calls_per_sample);
    t.host_seconds = t.device_seconds;
    batches.push_back(iters);
    return t;
  }
  std::vector<int> batches;
  std::vector<int> samples_of;  // calls per sample of each batch

 private:
  std::vector<double> times_;
  std::size_t next_ = 0;
};

class OneRank final : public Coordinator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  int local_rank() const override { return 0; }
  void broadcast(std::span<std::byte>, int) override {}
  bool all_ranks_agree(bool ok) override { return ok; }
  std::vector<RankTimes> reduce_times_each(const std::vector<double>& v) override {
    std::vector<RankTimes> out;
    for (const double s : v) out.push_back({s, s, s});
    return out;
  }
  std::vector<double> gather_on_first(double v) override { return {v}; }
  std::uint64_t sum(std::uint64_t v) override { return v; }
  std::vector<std::uint8_t> max_codes(std::vector<std::uint8_t> c) override { return c; }
  std::vector<double> max_each(std::vector<double> v) override { return v; }
};

class Collect final : public ResultSink {
 public:
  void row(std::span<const MeasurementRecord> r) override { records.insert(records.end(), r.begin(), r.end()); }
  std::vector<MeasurementRecord> records;
};

MeasurementPlan one_size_plan() {
  RunSpec spec;
  spec.collectives = {&collective("all_gather")};
  spec.sizes = {1 << 20};
  spec.dtypes = {&data_type("float32")};
  spec.ops = {ReduceOp::sum};
  return plan_measurements(spec, 1);
}

}  // namespace

TEST_CASE("the loop stops noisy iterations between min and max and records their percentiles") {
  ScriptedEngine engine(alternating(2, 1.0e-3, 1.2e-3));
  OneRank rank;
  Collect sink;
  LoopOptions options;
  options.warmup = 0;
  options.check = false;
  options.stopping = {0, 0.02, 6, 500, 0, 100};
  measure_plan(one_size_plan(), options, engine, rank, &sink);
  REQUIRE(sink.records.size() == 2);  // out of place, in place
  const MeasurementRecord& r = sink.records.front();
  CHECK(r.stopped_by == StopReason::spread);
  CHECK(r.iters >= 6);
  CHECK(r.iters < 500);
  CHECK(r.spread <= 0.02);
  REQUIRE(r.iteration_us);
  CHECK(r.iteration_us->min == Approx(1000));
  CHECK(r.iteration_us->max == Approx(1200));
  CHECK(r.time_us.avg == Approx(1100).epsilon(0.02));
  CHECK(r.slowest_rank == 0);
  CHECK(r.slowest_rank_iterations == r.iters);
  CHECK(engine.batches.front() == 6);
}

TEST_CASE("the loop warms up briefly for slow calls and records each repeat in order") {
  ScriptedEngine engine({0.04});
  OneRank rank;
  Collect sink;
  LoopOptions options;
  options.warmup = 5;
  options.check = false;
  options.stopping = {3, 0.01, 2, 10, 0, 100};  // fixed count of 3
  options.repeats = 2;
  measure_plan(one_size_plan(), options, engine, rank, &sink);
  REQUIRE(sink.records.size() == 4);
  CHECK(sink.records[0].repeat == 0);
  CHECK(sink.records[2].repeat == 1);
  CHECK(sink.records[0].iters == 3);
  CHECK(sink.records[0].warmup == 5);  // a fixed count keeps the full warm-up
  options.stopping.fixed_iters = 0;
  options.repeats = 1;
  sink.records.clear();
  measure_plan(one_size_plan(), options, engine, rank, &sink);
  CHECK(sink.records[0].warmup == 1);  // 40 ms per call: past the 50 ms budget after one
  CHECK(sink.records[0].stopped_by == StopReason::spread);
}

TEST_CASE("short calls are timed in samples of several calls; a fixed count stays exact") {
  ScriptedEngine engine({10e-6});  // 10 us per call: a timing mark per call would slow it
  OneRank rank;
  Collect sink;
  LoopOptions options;
  options.warmup = 5;
  options.check = false;
  options.stopping = {20, 0.01, 2, 10, 0, 100};  // --iters 20
  measure_plan(one_size_plan(), options, engine, rank, &sink);
  REQUIRE(sink.records.size() == 2);
  CHECK(sink.records[0].iters == 20);              // exactly the calls asked for
  CHECK(sink.records[0].calls_per_sample == 20);   // the largest divisor of 20 up to 1 ms of calls
  CHECK(engine.samples_of.back() == 20);
  CHECK(sink.records[0].iteration_us->p50 == Approx(10));  // per call, not per sample
  CHECK(sink.records[0].time_us.avg == Approx(10));

  options.stopping = {0, 0.01, 5, 1000, 0, 100};  // noise-based stop
  sink.records.clear();
  measure_plan(one_size_plan(), options, engine, rank, &sink);
  CHECK(sink.records[0].calls_per_sample == 100);  // 1 ms / 10 us
  CHECK(sink.records[0].iters % 100 == 0);
  CHECK(sink.records[0].time_us.avg == Approx(10));

  ScriptedEngine slow({2e-3});  // longer than a sample: one call per sample
  sink.records.clear();
  measure_plan(one_size_plan(), options, slow, rank, &sink);
  CHECK(sink.records[0].calls_per_sample == 1);
}

TEST_CASE("on several ranks the statistics are reduced and every rank's time is gathered on rank 0 alone") {
  // Rank r takes (r + 1) ms per call: 4 ranks, a world call and one on stride-2 groups.
  RunSpec spec;
  spec.calls = {SizedCall{&collective("all_reduce"), &data_type("float32"), ReduceOp::sum, 4096, CommSplit{}},
                SizedCall{&collective("all_reduce"), &data_type("float32"), ReduceOp::sum, 4096,
                          CommSplit{CommunicatorKind::stride, 2, 2}}};
  const MeasurementPlan plan = plan_measurements(spec, 4);
  std::vector<std::vector<MeasurementRecord>> seen(4);
  ncclsweep::testing::run_ranks(4, [&](ncclsweep::testing::ThreadRank& rank) {
    ScriptedEngine engine({(rank.rank() + 1) * 1e-3});
    LoopOptions options;
    options.warmup = 0;
    options.check = false;
    options.stopping.fixed_iters = 4;
    Collect sink;
    measure_plan(plan, options, engine, rank, &sink);
    seen[static_cast<std::size_t>(rank.rank())] = sink.records;
    return 0;
  });
  const auto on = [](const std::vector<MeasurementRecord>& records, CommunicatorKind kind) {
    const auto it = std::find_if(records.begin(), records.end(), [&](const MeasurementRecord& r) { return r.communicator == kind; });
    REQUIRE(it != records.end());
    return *it;
  };
  const MeasurementRecord world = on(seen[0], CommunicatorKind::world);
  CHECK(world.rank_time_us == std::vector<double>{1000, 2000, 3000, 4000});
  CHECK(world.time_us.min == Approx(1000));
  CHECK(world.time_us.avg == Approx(2500));
  CHECK(world.time_us.max == Approx(4000));
  CHECK(world.host_time_us.max == Approx(4000));
  CHECK(world.slowest_rank == 3);
  CHECK(world.slowest_rank_iterations == 4);
  const MeasurementRecord grouped = on(seen[0], CommunicatorKind::stride);
  REQUIRE(grouped.per_communicator.size() == 2);
  CHECK(grouped.per_communicator[0].time_us.max == Approx(3000));  // ranks 0 and 2
  CHECK(grouped.per_communicator[1].time_us.min == Approx(2000));   // ranks 1 and 3
  for (std::size_t r = 1; r < seen.size(); ++r) {
    REQUIRE(seen[r].size() == seen[0].size());
    CHECK(on(seen[r], CommunicatorKind::world).rank_time_us.empty());  // only rank 0 receives every rank's time
    CHECK(on(seen[r], CommunicatorKind::world).time_us.max == Approx(4000));  // the reduced figures reach every rank
    CHECK(on(seen[r], CommunicatorKind::stride).communicators == 2);
    CHECK(on(seen[r], CommunicatorKind::stride).per_communicator.empty());
  }
}

TEST_CASE("records keep the per-iteration fields through JSON, and older files still load") {
  MeasurementRecord r;
  r.collective = &collective("all_reduce");
  r.dtype = &data_type("float32");
  r.op = ReduceOp::sum;
  r.repeat = 2;
  r.iteration_us = IterationPercentilesUs{10, 11, 12, 9, 13};
  r.slowest_rank = 3;
  r.slowest_rank_iterations = 17;
  r.spread = 0.004;
  r.stopped_by = StopReason::spread;
  nlohmann::json j = r;
  const auto back = j.get<MeasurementRecord>();
  CHECK(back.repeat == 2);
  REQUIRE(back.iteration_us);
  CHECK(back.iteration_us->p99 == 12);
  CHECK(back.slowest_rank == 3);
  CHECK(back.stopped_by == StopReason::spread);
  for (const char* key : {"repeat", "iteration_us", "slowest_rank", "slowest_rank_iterations", "spread", "stopped_by"})
    j.erase(key);
  const auto old = j.get<MeasurementRecord>();
  CHECK(old.repeat == 0);
  CHECK_FALSE(old.iteration_us);
}

TEST_CASE("a rank slower than the median in most measurements is a straggler") {
  RunDocument run;
  run.ranks = {RankEntry{0, "a", 0, 0, "", "", {}}, RankEntry{1, "a", 1, 1, "", "", {}},
               RankEntry{2, "b", 0, 3, "", "", {}}, RankEntry{3, "b", 1, 2, "", "", {}}};
  auto add = [&](std::vector<double> times) {
    MeasurementRecord r;
    r.rank_time_us = std::move(times);
    run.records.push_back(r);
  };
  add({100, 101, 110, 100});  // rank 2: +9.5% over the median 100.5
  add({100, 100, 112, 100});
  add({100, 106, 112, 100});  // rank 1 above the others, but within 5% of the median 103
  add({100, 100, 100, 100});  // rank 2 fine once
  add({100, 100, 120, 101});
  const auto found = find_stragglers(run);
  REQUIRE(found.size() == 1);
  CHECK(found[0].rank == 2);
  CHECK(found[0].host == "b");
  CHECK(found[0].gpu_index == 3);
  CHECK(found[0].slower_in == 4);
  CHECK(found[0].measurements == 5);
  CHECK(found[0].median_excess == Approx(0.1).epsilon(0.1));
  StragglerRule strict;
  strict.min_share = 1.0;  // slow in every measurement: rank 2 was not
  CHECK(find_stragglers(run, strict).empty());
  RunDocument two;
  MeasurementRecord r;
  r.rank_time_us = {100, 200};
  for (int i = 0; i < 5; ++i) two.records.push_back(r);
  CHECK(find_stragglers(two).empty());  // two ranks: no median to stand out from
}

namespace {
MeasurementRecord busbw_record(const std::string& point, int repeat, double busbw) {
  MeasurementRecord r;
  r.collective = &collective("all_gather");
  r.dtype = &data_type("float32");
  r.op = std::nullopt;
  r.size_bytes = 1 << 30;
  r.placement = Placement::out_of_place;
  r.point = point;
  r.repeat = repeat;
  r.busbw_gbps = busbw;
  r.algbw_gbps = busbw;
  r.time_us.max = 1e6 / busbw;
  return r;
}
}  // namespace

TEST_CASE("compare merges a run's repeats into the median with their range as the spread") {
  RunDocument run;
  run.status = RunStatus::complete;
  for (const double busbw : {102.0, 98.0, 100.0}) {
    run.records.push_back(busbw_record("default", static_cast<int>(run.records.size()), busbw));
  }
  const Side side = side_from_run(run, "run.json");
  REQUIRE(side.rows.size() == 1);
  CHECK(side.rows[0].busbw_gbps == Approx(100));
  REQUIRE(side.rows[0].measured_spread);
  CHECK(*side.rows[0].measured_spread == Approx(0.02));  // (102 - 98) / 2 / 100
  CHECK(side.notes.empty());                             // repeats are no duplicates
}

TEST_CASE("compare keeps other buffer and launch modes and compute loads as rows of their own") {
  RunDocument run;
  run.status = RunStatus::complete;
  run.records.push_back(busbw_record("default", 0, 100));
  run.records.push_back(busbw_record("default", 0, 120));
  run.records.back().buffers = BufferMode::nccl_register;
  // The same call beside a compute load is a row of its own too, not a duplicate dropped.
  run.records.push_back(busbw_record("default", 0, 80));
  run.records.back().under_compute = UnderCompute{.load = parse_compute_load("gemm:256x128x64:float32")};
  const Side side = side_from_run(run, "run.json");
  REQUIRE(side.rows.size() == 3);
  CHECK(side.notes.empty());
  CHECK(side.rows[0].key.variant == RowVariant{});  // the default mode still matches nccl-tests rows
  CHECK(side.rows[0].busbw_gbps == Approx(100));
  CHECK(side.rows[1].key.variant.compute == parse_compute_load("gemm:256x128x64:float32"));
  CHECK(variant_text(side.rows[1].key.variant) == "under " + label_of(*side.rows[1].key.variant.compute));
  CHECK(side.rows[1].busbw_gbps == Approx(80));
  CHECK(side.rows[2].key.variant.buffers == BufferMode::nccl_register);
  CHECK(variant_text(side.rows[2].key.variant) == "buffers nccl-register");  // as the series title spells it
  CHECK(side.rows[2].busbw_gbps == Approx(120));
}

TEST_CASE("the sweep summary shows the repeats' median and marks changes within their range") {
  RunDocument run;
  run.points = {PointOutcome{}, PointOutcome{}, PointOutcome{}};
  run.points[0].label = "A";
  run.points[1].label = "B";
  run.points[2].label = "C";
  for (int repeat = 0; repeat < 3; ++repeat) {
    run.records.push_back(busbw_record("A", repeat, 100 + repeat * 4));  // 100 104 108: median 104, range 8%
    run.records.push_back(busbw_record("B", repeat, 107));               // +2.9%: within A's range
    run.records.push_back(busbw_record("C", repeat, 130));               // +25%: beyond it
  }
  const std::string text = sweep_summary_text(run, "A");
  INFO(text);
  CHECK_THAT(text, ContainsSubstring("104.0"));
  CHECK_THAT(text, ContainsSubstring("(  +3%~)"));
  CHECK_THAT(text, ContainsSubstring("(  +25%)"));
}
