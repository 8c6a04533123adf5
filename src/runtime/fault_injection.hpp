#pragma once
// --inject-fault RANK:ACTION@POINT, a documented testing aid (docs/reliability.md): one
// chosen rank misbehaves at the start of one sweep point's measurements, so deadlines,
// containment and the sweep going on can be shown on purpose.
//   sleep=SECONDS  hang that long (a hung rank: the point times out)
//   exit           exit with status 3 (a crash)
//   kill           SIGKILL itself (a crash without a word)
//   skip           skip the point's collectives (the other ranks wait in theirs)
//   slow=FACTOR    every timed call that rank R takes part in runs FACTOR whole times
//                  (Engine::slow_down, locate's mechanism), on every rank of its
//                  communicator so they stay in step: R's collectives take about FACTOR
//                  x as long. Without @POINT, every point. The mpi engine only.
// In workers (nccl engine) the worker misbehaves; with the mpi engine the MPI rank does.
#include <string>

namespace ncclsweep {

struct FaultInjection {
  int rank = -1;          // -1: none
  std::string action;     // "sleep" | "exit" | "kill" | "skip" | "slow"
  double seconds = 0;     // sleep only
  double factor = 1;      // slow only: whole calls per call, 2..100
  std::string point = "default";  // label of the sweep point; "default" without a sweep; "" (slow): every point

  bool applies(int this_rank, const std::string& this_point) const {
    return rank == this_rank && (point.empty() || point == this_point);
  }
  // slow: whether a rank whose communicator holds rank R is slowed at this point.
  bool slows(const std::string& this_point) const {
    return action == "slow" && rank >= 0 && (point.empty() || point == this_point);
  }
};

// Throws UsageError naming the text and the accepted form.
FaultInjection parse_fault_injection(const std::string& text);

// The text parse_fault_injection reads (for the worker's start message); "" for none.
std::string to_text(const FaultInjection& fault);

// Sleeps, exits or kills this process as `fault` says; returns true for "skip" (the
// caller skips its collectives), false after a sleep. "slow" is no action here: the
// caller gives the engine the factor (FaultInjection::slows).
bool inject_fault(const FaultInjection& fault);

}  // namespace ncclsweep
