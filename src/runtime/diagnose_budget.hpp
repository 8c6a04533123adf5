#pragma once
// `ncclsweep diagnose`'s time budget, planned before anything runs: the fixed phases
// (preflight, platform probes, locate's tournament) from their own estimates, and the
// workload's calls the rest, as a time cap per measurement. Pure (docs/diagnose.md).
#include <vector>

#include "compare/diagnosis.hpp"
#include "core/run_options.hpp"
#include "locate/locate_plan.hpp"

namespace ncclsweep {

// How a budget is shared among the phases: what those with no estimate of their own are
// given, how locate's estimate is scaled, and the shares of what is left.
struct DiagnoseBudgetModel {
  double preflight_s = 5;
  double platform_s = 30;  // probe --quick: under 5 s a rank on a GPU; 30 s seen on two shared cores
  // Locate's model is for GPUs; on the mpi engine (shared CPU cores) a round takes longer.
  double locate_mpi_busbw = 0.5e9;
  double locate_gpu_busbw = 100e9;
  double locate_safety = 3;
  // Each measurement's share of the collectives phase is a cap on its timed seconds; below
  // this a measurement cannot stop on its noise, and the budget is refused.
  double min_measurement_s = 0.02;
  // The part of the collectives phase given to timed iterations; the rest is warm-up,
  // communicator set-up and the per-size overhead.
  double timed_share = 0.5;
  // With --sweep, the share of what the fixed phases leave that the settings search gets.
  double settings_share = 0.5;
};
inline constexpr DiagnoseBudgetModel kBudgetModel{};

struct DiagnoseBudget {
  double total_s = 0;
  std::vector<PhaseTime> phases;  // preflight, platform, hosts and links, collectives[, NCCL settings]
  double per_measurement_s = 0;   // the cap on each measurement's timed seconds
};

// `host_sizes`: ranks per host (one entry: one host, no tournament). `measurements`: the
// measurements the workload's plan makes (calls x placements x repeats). `settings_search`:
// a --sweep's search follows the calls, in kBudgetModel.settings_share of their time. Throws
// UsageError naming what the phases need when `budget_s` cannot hold them.
DiagnoseBudget plan_diagnose_budget(double budget_s, const std::vector<int>& host_sizes,
                                    const locate::LocateOptions& locate, EngineKind engine, long long measurements,
                                    bool settings_search = false);

// Locate's options for a diagnose on this engine: the mpi engine's CPU timing is noisy
// (shared cores), so there a small size, more passes and a low threshold (0.15).
locate::LocateOptions diagnose_locate_options(EngineKind engine);

}  // namespace ncclsweep
