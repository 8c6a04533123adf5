#pragma once
// The wall time of a sweep at a given rank count (`ncclsweep plan --ranks N`): process
// starts and communicator inits that grow with ranks, per-call time from a bus-bandwidth
// model or a reference run, and the control plane's per-measurement cost (docs/scale.md).
#include <vector>

#include "plan/sweep_plan.hpp"
#include "results/record.hpp"

namespace ncclsweep {

// Defaults are rough, documented figures (docs/scale.md), not measurements of one cluster.
struct ScaleModel {
  int ranks = 8;
  double launch_base_s = 1.0;         // per group: srun/mpirun starts one process per rank
  double launch_per_rank_s = 2e-3;    //   ... and the start grows with ranks
  double init_base_s = 0.1;           // per point and repeat: ncclCommInitRank
  double init_per_rank_s = 1e-3;      //   ... grows with ranks (bootstrap all-gather, topology)
  double busbw_bytes_per_s = 100e9;   // when no reference run gives the collective's busbw
  double call_latency_s = 20e-6;      // per call, plus latency_per_log2_rank_s x log2(ranks)
  double latency_per_log2_rank_s = 5e-6;
  double coordination_base_s = 0.3e-3;   // per measurement: result reductions, rank 0's writes
  double coordination_per_log2_rank_s = 0.1e-3;  // (fit in docs/scale.md)
  std::vector<MeasurementRecord> reference;  // a previous run's records: busbw per collective and size
};

struct ScaleEstimate {
  double launch_s = 0, init_s = 0, collectives_s = 0, coordination_s = 0;
  int measurements = 0;        // (point, repeat, collective, dtype, op, size, placement)
  int planned_calls = 0;         // the calls of one point, as plan and run count them
  int sizes_from_reference = 0;  // of those, the calls whose busbw came from the reference
  double total_s() const { return launch_s + init_s + collectives_s + coordination_s; }
};

ScaleEstimate estimate_at_scale(const SweepPlan& plan, const ScaleModel& model);

// Bus bandwidth (bytes/s) the reference records show for `collective` at the size nearest
// `size` (on a log scale, best placement); 0 when the reference has no such collective.
double reference_busbw(const std::vector<MeasurementRecord>& reference, std::string_view collective, Bytes size);

}  // namespace ncclsweep
