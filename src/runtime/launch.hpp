#pragma once
// One `ncclsweep run` on this MPI rank, from a validated spec to a finished results
// directory. The mpi engine measures in this process; the nccl engine measures in
// worker processes, one per rank and isolation group, so this process never touches
// CUDA or NCCL and every group's settings reach a NCCL that has never been initialised.
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/run_options.hpp"
#include "engine/engine.hpp"
#include "plan/measurement_plan.hpp"
#include "plan/sweep_plan.hpp"
#include "measure/fault_injection.hpp"
#include "search/search_request.hpp"
#include "processes/worker_pool.hpp"
#include "processes/worker_protocol.hpp"

namespace ncclsweep {

class MpiSession;
class RankGroup;

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
  std::optional<SearchRequest> search;      // --search / the sweep's search: (runtime/search_rounds.cpp runs it)
};

// What a launch takes from outside its own logic: run_launch(MpiSession&, ...) gives it
// the real engines and signal handlers; the unit tests give it fakes (tests/unit/thread_ranks.hpp).
struct LaunchServices {
  // An engine that measures in this process: the mpi engine, or the nccl engine where no
  // point sets a NCCL variable. Throws UsageError. (Worker processes build their own.)
  std::function<std::unique_ptr<Engine>(EngineKind engine)> make_engine;
  // The SIGINT or SIGTERM this rank has received so far, or 0.
  std::function<int()> received_signal;
  // Calls the function given, from another thread, when a stop signal arrives, for as long
  // as the handle it returns lives (empty: nothing watches; the run still stops between
  // measurements through received_signal).
  std::function<std::shared_ptr<void>(std::function<void(int)>)> watch_signals;
  // How this rank starts its workers (processes of this binary over MPI).
  WorkerStarter workers;
  // Where rank 0's readable output goes while the launch runs (run's streamed table and
  // sweep summary, locate's progress): stdout, or stderr under diagnose, whose stdout
  // holds its one document.
  std::ostream* display = &std::cout;
};

class StopSignals;
// A launch over MPI: the build's in-process engines on `session`, and the signals
// `signals` records (none when null). Both must outlive the services.
LaunchServices mpi_launch_services(MpiSession& session, const StopSignals* signals);

// The whole run; returns the exit status (README: exit codes).
int run_launch(RankGroup& ranks, const LaunchRequest& request, const LaunchServices& services);
// The same over MPI, with the engines of this build and SIGINT/SIGTERM handlers.
int run_launch(MpiSession& session, const LaunchRequest& request);

// Whether a point of `groups` sets a variable or config field (then it measures in workers).
bool sets_variables(const std::vector<WorkerGroup>& groups);

// The single group and point of a run without a sweep.
std::vector<WorkerGroup> default_groups();

// A sweep's isolation groups as workers run them: each group's points, with the variables
// to set, the config fields to apply and the settings to verify (all unverified yet).
std::vector<WorkerGroup> worker_groups(const SweepPlan& plan);

}  // namespace ncclsweep
