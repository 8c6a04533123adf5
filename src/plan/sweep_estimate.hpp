#pragma once
// The run time of a sweep plan (docs/performance.md, "Plan estimates"): every
// measurement the run makes, counted over every axis, times what one costs on the
// chosen engine, with the noise-based stop's real bounds. A reference run's measured
// per-call times and iteration counts replace the model where it measured the call.
#include <cstdint>
#include <string>
#include <vector>

#include "core/host_cpu.hpp"
#include "plan/sweep_plan.hpp"
#include "results/record.hpp"

namespace ncclsweep {

// Defaults: the nccl engine's from 2x H200 runs, the mpi engine's fitted to
// bench/plan-estimate's five shapes on an idle 2-core machine (docs/performance.md).
struct EstimateModel {
  // nccl engine: worker processes per isolation group, a communicator per point.
  double worker_start_s = 1.5;       // per group: start workers incl. the first NCCL init
  double reinit_s = 0.05;            // per point and repeat: a fresh communicator
  double assumed_bytes_per_s = 100e9;
  double call_overhead_s = 20e-6;    // per collective call
  double nccl_flush_s = 100e-6;      // --cache flush: one L2 flush kernel and an allreduce, per sample
  double check_bytes_per_s = 1e9;    // the checked call: fill and verify the pattern
  // mpi engine: measured in the ranks themselves, no workers, no NCCL init, host memory.
  double mpi_start_s = 0.35;         // once: MPI_Init, the preflight gather, the results directory
  double mpi_bytes_per_s = 2.5e9;    // all_gather ran at ~5 GB/s, reduce_scatter at ~1.3
  double mpi_call_overhead_s = 2e-6;
  // --cache flush writes host_cache_flush_bytes() (twice this host's last-level cache) per sample.
  double mpi_flush_bytes = static_cast<double>(host_cache_flush_bytes());
  double mpi_flush_bytes_per_s = 7e9;
  double mpi_check_bytes_per_s = 0.5e9;  // the checked call's fill and verify on the host
  // The ranks are taken to share this host's cores: beyond one a core, calls and flushes
  // take turns (4 ranks on 2 cores ran 1.4-2.1x the 2-rank time).
  double mpi_host_cores = static_cast<double>(online_cores());
  // Both: reductions of the result across ranks, rank 0's record and table line.
  double per_measurement_s = 2e-3;
};

// Iterations one measurement times: a fixed count, or the noise-based stop's bounds.
struct IterationBounds {
  int low = 0, typical = 0, high = 0;
};
// Counted in calls; the stop's own rules (core/stopping_rule.hpp) count samples of
// about kSampleSeconds each. low: min_iters samples or min_seconds reached; high:
// max_iters samples or max_seconds reached. typical: on the mpi engine halfway between
// (a CPU fabric's time settles to the target spread about half the time before
// max_seconds), on the nccl engine twice the low one, within the bounds.
// A flushed cache times one call per sample (each sample pays the flush).
IterationBounds iteration_bounds(double call_seconds, const RunSpec& spec, CacheState cache = CacheState::warm);

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
