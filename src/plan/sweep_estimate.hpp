#pragma once
// The run time of a sweep plan (docs/performance.md, "Plan estimates"): every
// measurement the run makes, counted over every axis, times what one costs on the
// chosen engine, with the noise-based stop's real bounds. A reference run's measured
// per-call times and iteration counts replace the model where it measured the call.
#include <cstdint>
#include <string>
#include <vector>

#include "plan/sweep_plan.hpp"
#include "results/record.hpp"

namespace ncclsweep {

// Defaults: the nccl engine's from 2x H200 runs (docs/performance.md), the mpi engine's
// fitted to bench/plan-estimate on a CPU machine (docs/performance.md).
struct EstimateModel {
  // nccl engine: worker processes per isolation group, a communicator per point.
  double worker_start_s = 1.5;       // per group: start workers incl. the first NCCL init
  double reinit_s = 0.05;            // per point and repeat: a fresh communicator
  double assumed_bytes_per_s = 100e9;
  double call_overhead_s = 20e-6;    // per collective call
  double nccl_flush_s = 100e-6;      // --cache flush: one L2 flush kernel and an allreduce, per sample
  // mpi engine: measured in the ranks themselves, no workers, no NCCL init, host memory.
  double mpi_start_s = 1.0;          // once: MPI_Init, the preflight gather, the results directory
  double mpi_bytes_per_s = 1e9;
  double mpi_call_overhead_s = 30e-6;
  double mpi_flush_s = 20e-3;        // --cache flush: writing twice the last-level cache, per sample
  double check_bytes_per_s = 1e9;    // the checked call: fill and verify the pattern on the host
  // Both: reductions of the result across ranks, rank 0's record and table line.
  double per_measurement_s = 2e-3;
};

// Iterations one measurement times: a fixed count, or the noise-based stop's bounds.
struct IterationBounds {
  int low = 0, typical = 0, high = 0;
};
// low: min_iters or min_seconds reached; high: max_iters or max_seconds reached (the
// stop's own rules, core/stopping_rule.hpp). typical: on the mpi engine the high bound
// (a CPU fabric's time seldom settles to the target spread), on the nccl engine twice
// the low one, within the bounds.
IterationBounds iteration_bounds(double call_seconds, const RunSpec& spec);

struct SweepEstimate {
  std::uint64_t measurements = 0;  // records the run writes: points x repeats x calls x placements
  std::string count_text;          // "2 points x 3 repeats x 16 calls (collective, dtype, op, size, mode) x placements"
  double low_s = 0, typical_s = 0, high_s = 0;
  std::uint64_t from_reference = 0;  // measurements whose time came from the reference run
  std::string basis;                 // what the per-call times are
};

// `ranks` sizes the calls as the run would round them; `reference` may be empty.
SweepEstimate estimate_sweep(const SweepPlan& plan, int ranks, const std::vector<MeasurementRecord>& reference = {},
                             const EstimateModel& model = {});

// The typical estimate of estimate_sweep on 2 ranks, without a reference.
double estimate_seconds(const SweepPlan& plan, const EstimateModel& model = {});

// One measurement (one placement of one call of `total_bytes`) on spec's engine, typical:
// warmup + timed iterations + the checked call + the per-measurement cost.
double estimate_measurement_seconds(Bytes total_bytes, const RunSpec& spec, const EstimateModel& model = {});

}  // namespace ncclsweep
