#include "measure/measurement_loop.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <optional>

#include "core/iteration_stats.hpp"
#include "core/repeat_order.hpp"
#include "results/measurement_key.hpp"
#include "measure/group_times.hpp"

namespace ncclsweep {
namespace {

// One max over ranks finds the rank slowest most often: the count in the high part,
// the inverted rank in the low part (so ties go to the lowest rank); exact in a double.
constexpr double kRankSlots = 1 << 20;

// Wall time between laps, for NCCLSWEEP_TRACE_TIMING.
class PhaseClock {
 public:
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return seconds;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

struct WarmUp {
  int calls = 0;
  double call_seconds = 0;  // the slowest rank's time per call; 0 when not warmed up
};

WarmUp warm_up(const CollectiveCall& call, const LoopOptions& options, Engine& engine, Coordinator& ranks) {
  if (options.warmup <= 0) return {};
  if (options.stopping.fixed_iters > 0) {
    const double seconds = engine.run_timed(call, options.warmup).device_seconds / options.warmup;
    return {options.warmup, ranks.reduce_times(seconds).max};
  }
  // Decided from the slowest rank's time, so every rank runs the same count.
  const double first = ranks.reduce_times(engine.run_timed(call, 1).device_seconds).max;
  int more = options.warmup - 1;
  if (first > 0) {
    more = static_cast<int>(std::min<double>(more, std::floor(options.warmup_budget_seconds / first) - 1));
  }
  if (more > 0) engine.run_timed(call, more);
  return {1 + std::max(more, 0), first};
}

// Calls per timed sample: about options.sample_seconds of calls, so timing marks do not
// slow short calls down (1 MiB takes ~10 us on NVLink). A fixed --iters count stays
// exact: the largest divisor of it not above that.
int calls_per_sample(double call_seconds, const LoopOptions& options) {
  if (call_seconds <= 0 || call_seconds >= options.sample_seconds) return 1;
  int k = static_cast<int>(std::ceil(options.sample_seconds / call_seconds));
  if (const int fixed = options.stopping.fixed_iters; fixed > 0) {
    k = std::min(k, fixed);
    while (fixed % k != 0) --k;
  }
  return std::max(k, 1);
}

// The clocks around a measurement over every rank, once all of them have both readings
// (collective: every rank calls it once, with the same `every_rank_read`).
std::optional<MeasurementClocks> reduce_clocks(const std::optional<GpuClocks>& before, const std::optional<GpuClocks>& after,
                                               bool every_rank_read, Coordinator& ranks) {
  if (!every_rank_read) return std::nullopt;
  // The lowest clock over ranks is the largest negated one.
  const std::vector<double> lowest =
      ranks.max_each({-double(before->sm_mhz), -double(after->sm_mhz), -double(before->mem_mhz), -double(after->mem_mhz)});
  std::vector<std::uint8_t> flags(kThrottleReasons);
  for (std::size_t i = 0; i < kThrottleReasons; ++i) flags[i] = before->throttled[i] || after->throttled[i];
  flags = ranks.max_codes(flags);
  ThrottleFlags any{};
  for (std::size_t i = 0; i < kThrottleReasons; ++i) any[i] = flags[i] != 0;
  return MeasurementClocks{int(-lowest[0]), int(-lowest[1]), int(-lowest[2]), int(-lowest[3]), throttle_reasons(any)};
}

// The collective's window under compute spans at least this many GEMMs alone, so the
// GEMMs wholly inside it are more than an edge effect; and at most this many calls.
constexpr double kGemmsPerWindow = 4;
constexpr int kMaxCallsPerWindow = 100000;
// Rounds of (GEMMs alone, calls alone, both together), interleaved.
constexpr int kOverlapRounds = 3;

// The collective under compute and the compute under it, beside their alone figures
// (docs/overlap.md); every rank calls it once per placement. Times are the slowest
// rank's; counts the rank with fewest.
UnderCompute measure_under_compute(const CollectiveCall& call, const PlannedCall& planned, int ranks_in_comm,
                                   const ComputeLoad& load, double comm_call_s, Engine& engine, Coordinator& ranks) {
  const std::optional<GpuClocks> before = engine.read_clocks();
  const double gemm_s = ranks.reduce_times(engine.time_compute(load, 2)).max;  // warms the load too
  const double window_calls = comm_call_s > 0 ? std::ceil(kGemmsPerWindow * gemm_s / comm_call_s) : 1;
  const int calls = static_cast<int>(std::clamp(window_calls, 1.0, double(kMaxCallsPerWindow)));
  const OverlapTimes here = engine.run_under_compute(call, load, calls, kOverlapRounds);
  const std::vector<double> slowest = ranks.max_each({here.comm_alone_s, here.comm_under_s, here.compute_alone_s,
                                                      here.compute_under_s, here.overlapped_wall_s, here.serial_sum_s,
                                                      -double(here.compute_ops_under), here.plain_loop_s});
  UnderCompute u;
  u.load = load;
  u.site = engine.compute_site();
  u.rounds = kOverlapRounds;
  u.calls = calls;
  u.comm_alone_us = slowest[0] * 1e6;
  u.comm_under_us = slowest[1] * 1e6;
  u.busbw_alone_gbps = busbw_of(*call.kind, planned.total_bytes, slowest[0], ranks_in_comm);
  u.busbw_under_gbps = busbw_of(*call.kind, planned.total_bytes, slowest[1], ranks_in_comm);
  u.compute_alone_us = slowest[2] * 1e6;
  u.compute_under_us = slowest[3] * 1e6;
  u.tflops_alone = slowest[2] > 0 ? load.flops() / slowest[2] / 1e12 : 0;
  u.tflops_under = slowest[3] > 0 ? load.flops() / slowest[3] / 1e12 : 0;
  u.overlapped_wall_us = slowest[4] * 1e6;
  u.serial_sum_us = slowest[5] * 1e6;
  u.compute_ops_under = static_cast<int>(-slowest[6]);
  u.plain_loop_tflops = slowest[7] > 0 ? load.flops() / slowest[7] / 1e12 : 0;
  const std::optional<GpuClocks> after = engine.read_clocks();
  u.clocks = reduce_clocks(before, after, ranks.all_ranks_agree(before && after), ranks);
  return u;
}

MeasurementRecord measure_placement(const PlannedCall& planned, Placement placement, int repeat,
                                    const LoopOptions& options, Engine& engine, Coordinator& ranks) {
  CollectiveCall call = planned.call;
  call.placement = placement;
  PhaseClock clock;
  const std::optional<GpuClocks> clocks_before = engine.read_clocks();
  const double t_clocks = clock.lap();
  std::optional<std::uint64_t> wrong;
  if (options.check) wrong = ranks.sum(engine.run_checked(call, options.corrupt_rank == ranks.rank()));
  const double t_check = clock.lap();
  const WarmUp warmed = warm_up(call, options, engine, ranks);
  const double t_warmup = clock.lap();
  // Same on every rank (from the reduced warm-up time), so every rank sends as many samples.
  // A flushed cache is the state of every timed call only when each sample is one call.
  const int per_sample = call.cache == CacheState::flush ? 1 : calls_per_sample(warmed.call_seconds, options);
  StoppingRule rule = options.stopping;  // counts samples
  if (rule.fixed_iters > 0) rule.fixed_iters /= per_sample;

  IterationTimes times;
  double device_s = 0, host_s = 0;
  int slowest_here = 0;
  int batches = 0;
  while ((times.stopped_by = stop_reason(rule, times.slowest_seconds)) == StopReason::not_yet) {
    ++batches;
    const TimedIterations timed = engine.run_timed(call, next_batch(rule, times.slowest_seconds), per_sample);
    device_s += timed.device_seconds;
    host_s += timed.host_seconds;
    const std::vector<double> slowest = ranks.max_each(timed.iteration_seconds);
    for (std::size_t i = 0; i < slowest.size(); ++i) slowest_here += timed.iteration_seconds[i] >= slowest[i];
    times.slowest_seconds.insert(times.slowest_seconds.end(), slowest.begin(), slowest.end());
  }
  times.calls_per_sample = per_sample;
  const double t_timed = clock.lap();
  const std::optional<GpuClocks> clocks_after = engine.read_clocks();
  const double iters = static_cast<double>(times.slowest_seconds.size()) * per_sample;
  // The measurement's statistics in one fixed-size reduction, whatever the rank count:
  // device and host time per call, the slowest-rank code, and whether a rank lacks clocks.
  const double code = slowest_here * kRankSlots + (kRankSlots - 1 - ranks.rank());
  const std::vector<RankTimes> reduced =
      ranks.reduce_times_each({device_s / iters, host_s / iters, code, clocks_before && clocks_after ? 0.0 : 1.0});
  const RankTimes& t = reduced[0];
  const RankTimes& host = reduced[1];
  const double top = reduced[2].max;
  times.slowest_rank_iterations = static_cast<int>(std::floor(top / kRankSlots));
  times.slowest_rank = static_cast<int>(kRankSlots - 1 - (top - times.slowest_rank_iterations * kRankSlots));
  const std::optional<MeasurementClocks> clocks = reduce_clocks(clocks_before, clocks_after, reduced[3].max == 0, ranks);
  // Every rank's average, for the per-node view, the stragglers and the groups: gathered
  // on rank 0, which writes the record (one value sent per rank; the other ranks' records
  // go without them).
  std::vector<double> rank_times = ranks.gather_on_first(device_s / iters * 1e6);
  const double t_reduced = clock.lap();
  // On sub-communicators busbw counts one group's ranks; every group ran at once.
  MeasurementRecord record =
      make_record(planned, placement, planned.split.ranks_in(ranks.size()), options, t.min, t.avg, t.max);
  if (call.comm != 0) {
    std::vector<double> seconds_by_rank(rank_times);
    for (double& s : seconds_by_rank) s *= 1e-6;
    add_sub_communicator_times(record, planned, ranks.size(), seconds_by_rank);
  }
  record.warmup = warmed.calls;
  record.iters = static_cast<int>(iters);
  record.repeat = repeat;
  record.host_time_us = {host.min * 1e6, host.avg * 1e6, host.max * 1e6};
  record.wrong = wrong;
  record.rank_time_us = std::move(rank_times);
  record.clocks = clocks;
  if (options.trace_timing && ranks.rank() == 0) {
    std::fprintf(stderr,
                 "ncclsweep timing: %s %llu B %s: clocks before %.2f ms, check %.2f ms, warm-up %.2f ms, timed %.2f ms "
                 "(device %.2f ms, %d batches), clocks after and reductions %.2f ms\n",
                 collective_name(record).data(), static_cast<unsigned long long>(record.size_bytes), name_of(record.placement).data(),
                 t_clocks * 1e3, t_check * 1e3, t_warmup * 1e3, t_timed * 1e3, device_s * 1e3, batches, t_reduced * 1e3);
  }
  add_iteration_stats(times, record);
  if (options.compute) {
    record.under_compute = measure_under_compute(call, planned, planned.split.ranks_in(ranks.size()), *options.compute,
                                                 t.max, engine, ranks);
  }
  return record;
}

}  // namespace

LoopOptions loop_options(const RunSpec& spec, int corrupt_rank, std::string point) {
  LoopOptions options;
  options.warmup = spec.warmup;
  options.stopping = spec.stopping;
  options.stopping.fixed_iters = spec.iters;
  options.check = spec.check;
  options.corrupt_rank = corrupt_rank;
  options.point = std::move(point);
  options.repeats = spec.repeats;
  options.order = spec.order;
  options.seed = spec.seed;
  options.compute = spec.compute;
  return options;
}

MeasurementRecord make_record(const PlannedCall& planned, Placement placement, int ranks, const LoopOptions& options,
                              double min_s, double avg_s, double max_s) {
  const CollectiveCall& call = planned.call;
  MeasurementRecord r;
  r.collective = call.kind;
  r.dtype = call.dtype;
  r.op = planned.reduces ? std::optional<ReduceOp>(call.op) : std::nullopt;
  r.root = call.kind->has_root ? call.root : -1;
  r.size_bytes = planned.total_bytes;
  r.requested_bytes = planned.requested_bytes;
  r.count = call.count;
  r.placement = placement;
  r.buffers = call.buffers;
  r.launch = call.launch;
  r.buffer_footprint = planned.footprint;
  r.footprint_bytes = std::max(call.footprint_bytes, planned.total_bytes);
  r.footprint_offsets = rotation_offsets(r.footprint_bytes, planned.total_bytes);
  r.cache = call.cache;
  r.ranks = ranks;
  r.warmup = options.warmup;
  r.iters = options.stopping.fixed_iters;
  r.point = options.point;
  r.time_us = {min_s * 1e6, avg_s * 1e6, max_s * 1e6};
  r.algbw_gbps = algbw_of(planned.total_bytes, max_s);
  r.busbw_gbps = busbw_of(*call.kind, planned.total_bytes, max_s, ranks);
  return r;
}

void add_iteration_stats(const IterationTimes& times, MeasurementRecord& record) {
  std::vector<double> per_call(times.slowest_seconds);
  for (double& s : per_call) s /= times.calls_per_sample;
  const IterationSummary s = summarize_iterations(per_call);
  record.calls_per_sample = times.calls_per_sample;
  record.iteration_us = IterationPercentilesUs{s.p50 * 1e6, s.p90 * 1e6, s.p99 * 1e6, s.min * 1e6, s.max * 1e6};
  const double spread = relative_standard_error(times.slowest_seconds);
  record.spread = std::isfinite(spread) ? spread : 0.0;
  record.slowest_rank = times.slowest_rank;
  record.slowest_rank_iterations = times.slowest_rank_iterations;
  record.stopped_by = times.stopped_by;
}

bool measure_plan(const MeasurementPlan& plan, const LoopOptions& options, Engine& engine, Coordinator& ranks,
                  ResultSink* sink) {
  if (!plan.comms.empty()) engine.split(comm_colors(plan, ranks.rank()));
  const auto runs = schedule_repeats(static_cast<int>(plan.calls.size()), options.repeats, options.order, options.seed);
  for (const ScheduledRun& run : runs) {
    if (options.stop_requested && !ranks.all_ranks_agree(!options.stop_requested())) return false;
    const PlannedCall& planned = plan.calls[static_cast<std::size_t>(run.item)];
    const int repeat = options.first_repeat + run.repeat;
    std::vector<MeasurementRecord> row;
    for (const Placement placement : {Placement::out_of_place, Placement::in_place}) {
      if (placement == Placement::in_place && !planned.call.kind->supports_in_place) continue;
      if (!options.done.empty()) {
        MeasurementRecord key = make_record(planned, placement, planned.split.ranks_in(ranks.size()), options, 0, 0, 0);
        key.repeat = repeat;
        if (planned.call.comm != 0) key.communicator = planned.split.kind;  // as add_sub_communicator_times sets it
        if (options.compute) {
          UnderCompute under;
          under.load = *options.compute;
          key.under_compute = under;
        }
        if (options.done.count(key_of(key))) continue;  // --resume: recorded by an earlier run
      }
      row.push_back(measure_placement(planned, placement, repeat, options, engine, ranks));
    }
    if (sink && !row.empty()) sink->row(row);
  }
  return true;
}

std::vector<PointVisit> point_visits(std::size_t points, const LoopOptions& options) {
  std::vector<PointVisit> visits;
  if (options.order == RepeatOrder::sequential || points <= 1 || options.repeats <= 1) {
    for (std::size_t p = 0; p < points; ++p) visits.push_back({p, 0, options.repeats});
    return visits;
  }
  for (const ScheduledRun& run : schedule_repeats(static_cast<int>(points), options.repeats, options.order,
                                                  options.seed)) {
    visits.push_back({static_cast<std::size_t>(run.item), run.repeat, 1});
  }
  return visits;
}

}  // namespace ncclsweep
