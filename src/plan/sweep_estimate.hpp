#pragma once
// A rough run-time estimate for a sweep plan (docs/sweep-files.md: "Estimated run time").
// It assumes a bus bandwidth; real runs differ, often by a factor of a few.
#include "plan/sweep_plan.hpp"

namespace ncclsweep {

struct EstimateModel {
  double worker_start_s = 1.5;      // per group: start workers incl. the first NCCL init
  double reinit_s = 0.05;           // per point and repeat: a fresh communicator
  double assumed_bytes_per_s = 100e9;
  double call_overhead_s = 20e-6;   // per collective call
};

// Seconds: groups x worker_start + repeats x points x (reinit + calls), where each
// (collective, dtype, op, size, placement) costs (warmup + iters + 1 checked call) x
// (size / assumed bandwidth + overhead).
double estimate_seconds(const SweepPlan& plan, const EstimateModel& model = {});

// One measurement (one placement of one call of `total_bytes`): warmup + timed iterations
// (the fixed count, else the noise-based stop's minimum) + 1 checked call.
double estimate_measurement_seconds(Bytes total_bytes, const RunSpec& spec, const EstimateModel& model = {});

}  // namespace ncclsweep
