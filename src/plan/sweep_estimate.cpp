#include "plan/sweep_estimate.hpp"

namespace ncclsweep {

double estimate_seconds(const SweepPlan& plan, const EstimateModel& model) {
  const RunSpec& m = plan.measurements;
  double per_point = model.reinit_s;
  for (const CollectiveKind* kind : m.collectives) {
    const double variants = static_cast<double>(m.dtypes.size() * (kind->reduces ? m.ops.size() : 1) *
                                                m.buffer_modes.size() * m.launch_modes.size() *
                                                m.footprints.size() * m.cache_states.size()) *
                            (kind->supports_in_place ? 2.0 : 1.0);
    for (const Bytes size : m.sizes) per_point += variants * estimate_measurement_seconds(size, m, model);
  }
  return static_cast<double>(plan.isolation_groups.size()) * model.worker_start_s +
         static_cast<double>(plan.repeats) * static_cast<double>(plan.points.size()) * per_point;
}

double estimate_measurement_seconds(Bytes total_bytes, const RunSpec& spec, const EstimateModel& model) {
  const double call_s = static_cast<double>(total_bytes) / model.assumed_bytes_per_s + model.call_overhead_s;
  // The noise-based stop runs at least min_iters: the estimate's lower bound.
  const int iters = spec.iters > 0 ? spec.iters : spec.stopping.min_iters;
  return (spec.warmup + iters + 1) * call_s;
}

}  // namespace ncclsweep
