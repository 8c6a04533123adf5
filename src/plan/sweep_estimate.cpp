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
    for (const Bytes size : m.sizes) {
      const double call_s = static_cast<double>(size) / model.assumed_bytes_per_s + model.call_overhead_s;
      // The noise-based stop runs at least min_iters: the estimate's lower bound.
      const int iters = m.iters > 0 ? m.iters : m.stopping.min_iters;
      per_point += variants * (m.warmup + iters + 1) * call_s;
    }
  }
  return static_cast<double>(plan.groups.size()) * model.worker_start_s +
         static_cast<double>(plan.repeats) * static_cast<double>(plan.points.size()) * per_point;
}

}  // namespace ncclsweep
