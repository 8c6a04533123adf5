#include "plan/sweep_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/errors.hpp"
#include "core/stopping_rule.hpp"
#include "plan/measurement_plan.hpp"

namespace ncclsweep {
namespace {

bool is_mpi(const RunSpec& spec) { return spec.engine == EngineKind::mpi; }

// The mpi engine's ranks share this host's cores: more ranks than cores take turns.
double crowding(const RunSpec& spec, int ranks, const EstimateModel& model) {
  return is_mpi(spec) && model.mpi_host_cores > 0 ? std::max(1.0, ranks / model.mpi_host_cores) : 1.0;
}

double call_seconds(Bytes bytes, const RunSpec& spec, const EstimateModel& model, double crowded = 1) {
  if (is_mpi(spec)) return crowded * (static_cast<double>(bytes) / model.mpi_bytes_per_s + model.mpi_call_overhead_s);
  return static_cast<double>(bytes) / model.assumed_bytes_per_s + model.call_overhead_s;
}

// One measurement: warm-up and timed iterations (flushed samples pay the flush each),
// the checked call with its pattern fill and verify, and the per-measurement cost.
double measurement_seconds(double call_s, int timed, Bytes bytes, const RunSpec& spec, CacheState cache,
                           const EstimateModel& model, double crowded = 1) {
  const double mpi_flush_s = crowded * model.mpi_flush_bytes / model.mpi_flush_bytes_per_s;
  const double flush = cache == CacheState::flush ? (is_mpi(spec) ? mpi_flush_s : model.nccl_flush_s) : 0;
  const double check_bytes_per_s = is_mpi(spec) ? model.mpi_check_bytes_per_s : model.check_bytes_per_s;
  const double check = spec.check ? call_s + 2.0 * static_cast<double>(bytes) / check_bytes_per_s : 0;
  return spec.warmup * call_s + timed * (call_s + flush) + check + model.per_measurement_s;
}

// The reference's measured per-call time and iteration count for this call: the same
// collective, dtype and placement at the nearest size (log scale), its time scaled by
// the size where they differ.
struct ReferenceTime {
  double call_s = 0;
  int iters = 0;
};
std::optional<ReferenceTime> reference_time(const std::vector<MeasurementRecord>& reference, const PlannedCall& planned,
                                            Placement placement) {
  const MeasurementRecord* best = nullptr;
  double distance = 0;
  for (const MeasurementRecord& r : reference) {
    if (r.collective != planned.call.kind || r.dtype != planned.call.dtype ||
        r.placement != placement || r.size_bytes == 0 || r.time_us.avg <= 0) {
      continue;
    }
    const double d = std::fabs(std::log(static_cast<double>(r.size_bytes) / static_cast<double>(planned.total_bytes)));
    if (!best || d < distance) best = &r, distance = d;
  }
  if (!best || distance > std::log(4.0)) return std::nullopt;  // more than 4x away: the model knows as much
  const double scale = std::max(1.0, static_cast<double>(planned.total_bytes) / static_cast<double>(best->size_bytes));
  return ReferenceTime{best->time_us.avg * 1e-6 * scale, best->iters};
}

}  // namespace

IterationBounds iteration_bounds(double call_s, const RunSpec& spec, CacheState cache) {
  if (spec.iters > 0) return {spec.iters, spec.iters, spec.iters};
  const StoppingRule& rule = spec.stopping;
  // The measuring loop's calls per sample (a flushed cache: one).
  const bool several = cache != CacheState::flush && call_s > 0 && call_s < kSampleSeconds;
  const double per_sample = several ? std::ceil(kSampleSeconds / call_s) : 1;
  const auto calls_for = [&](double seconds) { return call_s > 0 ? std::ceil(seconds / call_s) : 1e9; };
  // stop_reason: max_iters first, then max_seconds (after one sample), then min_iters and min_seconds.
  const double high = std::min(rule.max_iters * per_sample, std::max(per_sample, calls_for(rule.max_seconds)));
  const double low = std::min(high, std::max(rule.min_iters * per_sample, calls_for(rule.min_seconds)));
  const double typical = is_mpi(spec) ? std::ceil((low + high) / 2) : std::min(high, 2 * low);
  const auto count = [](double calls) { return static_cast<int>(std::min(calls, 1e9)); };
  return {count(low), count(typical), count(high)};
}

double estimate_measurement_seconds(Bytes total_bytes, const RunSpec& spec, const EstimateModel& model) {
  const double call_s = call_seconds(total_bytes, spec, model);
  const CacheState cache = spec.cache_states.empty() ? CacheState::warm : spec.cache_states.front();
  return measurement_seconds(call_s, iteration_bounds(call_s, spec, cache).typical, total_bytes, spec, cache, model);
}

SweepEstimate estimate_sweep(const SweepPlan& plan, int ranks, const std::vector<MeasurementRecord>& reference,
                             const EstimateModel& model) {
  const RunSpec& spec = plan.measurements;
  SweepEstimate e;
  // The calls the run would make at this rank count; a split that needs more ranks than
  // assumed is counted on the world communicator (plan --ranks gives the real count).
  bool on_world = false;
  const MeasurementPlan calls = plan_measurements_for_estimate(spec, ranks, on_world);
  const std::string assumed = on_world ? "; communicator splits counted on the world: give --ranks for them" : "";
  const double runs = static_cast<double>(std::max(plan.repeats, 1)) * static_cast<double>(plan.points.size());
  const double crowded = crowding(spec, ranks, model);
  std::uint64_t per_point = 0;
  double low = 0, typical = 0, high = 0, referenced = 0;
  for (const PlannedCall& planned : calls.calls) {
    const bool in_place = planned.call.kind->supports_in_place;
    for (const Placement placement : {Placement::out_of_place, Placement::in_place}) {
      if (placement == Placement::in_place && !in_place) continue;
      ++per_point;
      if (const auto measured = reference_time(reference, planned, placement)) {
        const int iters = spec.iters > 0 ? spec.iters : measured->iters;
        const double t =
            measurement_seconds(measured->call_s, iters, planned.total_bytes, spec, planned.call.cache, model, crowded);
        low += t, typical += t, high += t, referenced += 1;
        continue;
      }
      const double call_s = call_seconds(planned.total_bytes, spec, model, crowded);
      const IterationBounds n = iteration_bounds(call_s, spec, planned.call.cache);
      low += measurement_seconds(call_s, n.low, planned.total_bytes, spec, planned.call.cache, model, crowded);
      typical += measurement_seconds(call_s, n.typical, planned.total_bytes, spec, planned.call.cache, model, crowded);
      high += measurement_seconds(call_s, n.high, planned.total_bytes, spec, planned.call.cache, model, crowded);
    }
  }
  e.measurements = static_cast<std::uint64_t>(runs) * per_point;
  e.from_reference = static_cast<std::uint64_t>(runs * referenced);
  e.count_text = std::to_string(plan.points.size()) + " point(s) x " + std::to_string(std::max(plan.repeats, 1)) +
                 " repeat(s) x " + std::to_string(per_point) +
                 " per point (collectives x dtypes x ops x sizes x buffer/launch modes x footprints x cache states x "
                 "communicators, each out of place and, where the collective has one, in place)";
  // The nccl engine starts workers per isolation group and a communicator per point; the
  // mpi engine measures in the ranks it was launched as.
  const double fixed = is_mpi(spec) ? model.mpi_start_s
                                    : static_cast<double>(plan.isolation_groups.size()) * model.worker_start_s +
                                          runs * model.reinit_s;
  e.low_s = fixed + runs * low;
  e.typical_s = fixed + runs * typical;
  e.high_s = fixed + runs * high;
  char text[200];
  if (is_mpi(spec)) {
    std::snprintf(text, sizeof text,
                  "mpi engine model: %.3g GB/s and %.0f us per call on the CPU fabric, no worker starts, %d ranks on "
                  "this host's %.0f cores",
                  model.mpi_bytes_per_s / 1e9, model.mpi_call_overhead_s * 1e6, ranks, model.mpi_host_cores);
  } else {
    std::snprintf(text, sizeof text, "nccl engine model: %.3g GB/s and %.0f us per call, %.2g s per isolation group, %.2g s per init",
                  model.assumed_bytes_per_s / 1e9, model.call_overhead_s * 1e6, model.worker_start_s, model.reinit_s);
  }
  e.basis = text + assumed;
  if (e.from_reference > 0) {
    e.basis += "; " + std::to_string(e.from_reference) + " of " + std::to_string(e.measurements) +
               " measurement(s) timed from the reference run";
  }
  return e;
}

double estimate_seconds(const SweepPlan& plan, const EstimateModel& model) {
  return estimate_sweep(plan, 2, {}, model).typical_s;
}

}  // namespace ncclsweep
