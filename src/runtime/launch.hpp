#pragma once
// One `ncclsweep run` on this MPI rank, from a validated spec to a finished results
// directory. The mpi engine measures in this process; the nccl engine measures in
// worker processes, one per rank and isolation group, so this process never touches
// CUDA or NCCL and every group's settings reach a NCCL that has never been initialised.
#include <optional>
#include <string>
#include <vector>

#include "core/run_options.hpp"
#include "plan/measurement_plan.hpp"
#include "plan/sweep_plan.hpp"
#include "runtime/fault_injection.hpp"
#include "search/search_grid.hpp"
#include "runtime/worker_protocol.hpp"

namespace ncclsweep {

class MpiSession;

// A search instead of the full grid (docs/search.md): the candidates, their bands, and
// how to decide; runtime/search_rounds.cpp executes the rounds the search hands out.
struct SearchRequest {
  SearchGrid grid;
  std::vector<SizeBand> bands;
  SearchOptions options;
};

struct LaunchRequest {
  RunSpec spec;
  MeasurementPlan plan;
  std::vector<WorkerGroup> groups;  // nccl engine: at least one group with one point
  std::string baseline_point;       // label of the point others are compared with
  std::string output_dir;           // empty: results/<name>/<UTC start>/ under results_root
  std::string results_root = "results";
  std::string resume_dir;           // --resume DIR: skip what DIR's records.jsonl holds, append there
  bool force = false;               // --force: resume even when the fingerprint differs
  bool allow_shared_gpu = false;
  int corrupt_rank = -1;
  ProgressSetting progress = ProgressSetting::automatic;  // --progress, --quiet: runtime/progress.hpp
  FaultInjection fault;             // --inject-fault (testing aid)
  std::vector<std::string> command_line;
  char** envp = nullptr;
  std::optional<WorkloadWeights> workload;  // sizes from a workload: weighs points by time per iteration
  std::optional<SearchRequest> search;      // --search / the sweep's search: (mpi engine)
};

// The whole run; returns the exit status (README: exit codes).
int run_launch(MpiSession& session, const LaunchRequest& request);

// The single group and point of a run without a sweep.
std::vector<WorkerGroup> default_groups();

// A sweep's isolation groups as workers run them: each group's points, with the variables
// to set, the config fields to apply and the settings to verify (all unverified yet).
std::vector<WorkerGroup> worker_groups(const SweepPlan& plan);

}  // namespace ncclsweep
