#pragma once
// After one worker run over the points a group has left: which of them are settled and
// what became of each that the worker did not report. A failed point costs only itself:
// the points after it go to a new worker. Pure (no MPI), so the retry rule is testable.
#include <string>
#include <vector>

#include "results/record.hpp"
#include "runtime/group_failure.hpp"
#include "processes/worker_protocol.hpp"

namespace ncclsweep {

// How the worker run ended, as every rank agreed on it.
struct WorkerRunEnd {
  bool failed = false;               // some rank's worker failed (WorkerFailure::failed)
  bool ended_after_outcome = false;  // it failed right after reporting a point's outcome
  bool stopped = false;              // the ranks agreed to stop (a signal)
  GroupFailure failure;              // why, in one line (runtime/group_failure.hpp)
};

struct Settlement {
  int settled = 0;                    // points off the front of the list: done, or given up on
  std::vector<PointOutcome> outcomes;  // the reported ones, then one per point given up on
  // "point p2 failed: why" for each point given up on for a reason (not after a stop).
  std::vector<std::string> failures;
};

// `reported`: the outcomes the worker sent (rank 0). The first point without an outcome
// is the one that failed (or timed out): it is settled as "failed" / "timeout", unless
// the ranks stopped without a failure ("interrupted"). A worker that ended right after
// reporting a point left nothing half done: the first point without an outcome is then
// not settled, it goes to the next worker. With `last_try`, every point without an
// outcome is settled.
Settlement settle_points(int group, const std::vector<PointSpec>& points, std::vector<PointOutcome> reported,
                         const WorkerRunEnd& end, bool last_try);

}  // namespace ncclsweep
