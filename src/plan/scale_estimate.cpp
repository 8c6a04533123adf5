#include "plan/scale_estimate.hpp"

#include <algorithm>
#include <cmath>

#include "plan/measurement_plan.hpp"

namespace ncclsweep {

double reference_busbw(const std::vector<MeasurementRecord>& reference, std::string_view collective, Bytes size) {
  double best_distance = INFINITY, busbw = 0;
  for (const MeasurementRecord& r : reference) {
    if (collective_name(r) != collective || r.size_bytes == 0 || r.busbw_gbps <= 0) continue;
    const double distance = std::fabs(std::log2(static_cast<double>(r.size_bytes)) -
                                      std::log2(static_cast<double>(std::max<Bytes>(size, 1))));
    // Nearest size wins; at the same size the faster placement (both measure the same link).
    if (distance < best_distance - 1e-9 || (distance < best_distance + 1e-9 && r.busbw_gbps * 1e9 > busbw)) {
      best_distance = std::min(best_distance, distance);
      busbw = r.busbw_gbps * 1e9;
    }
  }
  return busbw;
}

ScaleEstimate estimate_at_scale(const SweepPlan& plan, const ScaleModel& model) {
  const RunSpec& m = plan.measurements;
  const double ranks = std::max(model.ranks, 2);
  const double runs = static_cast<double>(plan.repeats) * static_cast<double>(plan.points.size());
  ScaleEstimate e;
  e.launch_s = static_cast<double>(plan.isolation_groups.size()) * (model.launch_base_s + model.launch_per_rank_s * ranks);
  e.init_s = runs * (model.init_base_s + model.init_per_rank_s * ranks);
  const double latency_s = model.call_latency_s + model.latency_per_log2_rank_s * std::log2(ranks);
  double per_point_s = 0;
  int per_point_measurements = 0;
  bool on_world = false;
  // The calls run makes at this rank count, each on its communicator, as plan counts them.
  for (const PlannedCall& planned : plan_measurements_for_estimate(m, model.ranks, on_world).calls) {
    const CollectiveKind& kind = *planned.call.kind;
    const int members = planned.split.is_world() ? model.ranks : planned.split.size;
    const int placements = kind.supports_in_place ? 2 : 1;
    ++e.planned_calls;
    double busbw = reference_busbw(model.reference, kind.name, planned.total_bytes);
    if (busbw > 0) {
      ++e.sizes_from_reference;
    } else {
      busbw = model.busbw_bytes_per_s;
    }
    const double call_s = latency_s + seconds_at_busbw(kind, planned.total_bytes, busbw, members);
    per_point_s += placements * (m.warmup + m.iters + (m.check ? 1 : 0)) * call_s;
    per_point_measurements += placements;
  }
  e.collectives_s = runs * per_point_s;
  e.measurements = static_cast<int>(runs) * per_point_measurements;
  e.coordination_s = e.measurements * (model.coordination_base_s + model.coordination_per_log2_rank_s * std::log2(ranks));
  return e;
}

}  // namespace ncclsweep
