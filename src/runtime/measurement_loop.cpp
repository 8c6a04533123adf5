#include "runtime/measurement_loop.hpp"

#include "results/resume.hpp"


namespace ncclsweep {

MeasurementRecord make_record(const PlannedCall& planned, Placement placement, int ranks, const LoopOptions& options,
                              double min_s, double avg_s, double max_s) {
  const CollectiveCall& call = planned.call;
  MeasurementRecord r;
  r.collective = std::string(call.kind->name);
  r.dtype = std::string(call.dtype->name);
  r.op = planned.reduces ? std::string(name_of(call.op)) : "none";
  r.root = call.kind->has_root ? call.root : -1;
  r.size_bytes = planned.total_bytes;
  r.requested_bytes = planned.requested_bytes;
  r.count = call.count;
  r.placement = std::string(name_of(placement));
  r.ranks = ranks;
  r.warmup = options.warmup;
  r.iters = options.iters;
  r.point = options.point;
  r.time_us = {min_s * 1e6, avg_s * 1e6, max_s * 1e6};
  r.algbw_gbps = max_s > 0 ? static_cast<double>(planned.total_bytes) / max_s / 1e9 : 0.0;
  r.busbw_gbps = r.algbw_gbps * call.kind->busbw_factor(ranks);
  return r;
}

bool measure_plan(const MeasurementPlan& plan, const LoopOptions& options, Engine& engine, Coordinator& ranks,
                  ResultSink* sink) {
  const bool corrupt_here = options.corrupt_rank == ranks.rank();
  for (const PlannedCall& planned : plan.calls) {
    if (options.stop_requested && !ranks.all_ranks_agree(!options.stop_requested())) return false;
    std::vector<MeasurementRecord> row;
    for (const Placement placement : {Placement::out_of_place, Placement::in_place}) {
      if (placement == Placement::in_place && !planned.call.kind->supports_in_place) continue;
      if (!options.done.empty() &&
          options.done.count(measurement_key(make_record(planned, placement, ranks.size(), options, 0, 0, 0)))) {
        continue;  // --resume: recorded by an earlier run
      }
      CollectiveCall call = planned.call;
      call.placement = placement;
      std::optional<std::uint64_t> wrong;
      if (options.check) wrong = ranks.sum(engine.run_checked(call, corrupt_here));
      if (options.warmup > 0) engine.run_timed(call, options.warmup);
      const TimedIterations timed = engine.run_timed(call, options.iters);
      const RankTimes t = ranks.reduce_times(timed.device_seconds / options.iters);
      const RankTimes host = ranks.reduce_times(timed.host_seconds / options.iters);
      MeasurementRecord record = make_record(planned, placement, ranks.size(), options, t.min, t.avg, t.max);
      record.host_time_us = {host.min * 1e6, host.avg * 1e6, host.max * 1e6};
      record.wrong = wrong;
      row.push_back(record);
    }
    if (sink && !row.empty()) sink->row(row);
  }
  return true;
}

}  // namespace ncclsweep
