#pragma once
// The MPI rank's side of one isolation group: start a worker process with the group's
// environment, relay its cross-rank steps through MPI, pass its rows and point
// outcomes on, and make sure a worker that dies takes its group down cleanly on every
// rank (see relay_step.hpp).
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "runtime/rank_group.hpp"
#include "runtime/worker_process.hpp"
#include "runtime/worker_protocol.hpp"

namespace ncclsweep {

struct GroupCallbacks {
  // Called on every rank, at the same point of every group, once all workers are up:
  // a collective that returns whether the workers go on (e.g. no two ranks on a GPU).
  std::function<bool(const DeviceDescription&)> on_device;
  std::function<void(std::span<const MeasurementRecord>)> on_row;  // rank 0's worker only
  std::function<void(const PointOutcome&)> on_point;                // rank 0's worker only
  std::function<bool()> stop_requested;  // this rank's wish to stop (a signal); empty: never
};

struct GroupResult {
  bool failed = false;       // some rank's worker failed: the group stopped on every rank
  int failed_rank = -1;      // the lowest rank that failed
  std::string local_error;   // what this rank's worker said or how it ended; empty when fine
  int local_status = 0;      // the exit status this rank's worker asked for (2 usage, 3 runtime)
  bool stopped = false;      // on_device said stop
  bool timed_out = false;    // this rank's worker said nothing within the deadline and was killed
  // The worker failed right after reporting its point's outcome (NCCL refused one of the
  // point's values and failed): no point was left half done, the next one was not begun.
  bool ended_after_outcome = false;
  double startup_s = 0;      // spawn until every rank's worker had its GPU (0: never got there)
  // A worker that delivered everything and is still tearing down: reap it (wait_for)
  // before the next group times anything.
  std::unique_ptr<WorkerProcess> exiting;
};

// The MPI rank's answer to its worker's "step": the combination of every rank's step and,
// on rank 0 after a gathering step, every rank's value.
nlohmann::json relay_step_reply(const CombinedStep& combined);

// `deadline_s`: the longest the worker may go without a message (runtime/deadline.hpp);
// past it the worker is killed and the group fails on every rank.
GroupResult run_worker_group(RankGroup& ranks, const WorkerStart& start,
                             const std::map<std::string, std::string>& environment, GroupCallbacks& callbacks,
                             double deadline_s);

}  // namespace ncclsweep
