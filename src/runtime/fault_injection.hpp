#pragma once
// --inject-fault RANK:ACTION@POINT, a documented testing aid (docs/reliability.md): one
// chosen rank misbehaves at the start of one sweep point's measurements, so deadlines,
// containment and the sweep going on can be shown on purpose.
//   sleep=SECONDS  hang that long (a hung rank: the point times out)
//   exit           exit with status 3 (a crash)
//   kill           SIGKILL itself (a crash without a word)
//   skip           skip the point's collectives (the other ranks wait in theirs)
//   slow=F@POINT[;F@POINT...]  (no RANK:) every rank runs each timed call of POINT F
//                  times, F a whole number >= 2: points made slower by known factors,
//                  so a search's true winners are known (docs/search.md). POINT is a
//                  search candidate's label; the mpi engine only.
// In workers (nccl engine) the worker misbehaves; with the mpi engine the MPI rank does.
#include <string>
#include <utility>
#include <vector>

namespace ncclsweep {

struct FaultInjection {
  static constexpr int kEveryRank = -2;
  int rank = -1;          // -1: none; kEveryRank: slow, on every rank
  std::string action;     // "sleep" | "exit" | "kill" | "skip" | "slow"
  double seconds = 0;     // sleep only
  std::vector<std::pair<std::string, int>> slowed;  // slow only: candidate label -> factor
  std::string point = "default";  // label of the sweep point; "default" without a sweep

  bool applies(int this_rank, const std::string& this_point) const {
    return (rank == this_rank || rank == kEveryRank) && point == this_point;
  }
};

// Throws UsageError naming the text and the accepted form.
FaultInjection parse_fault_injection(const std::string& text);

// The text parse_fault_injection reads (for the worker's start message); "" for none.
std::string to_text(const FaultInjection& fault);

// The factor `point`'s calls are slowed by on this rank (1: not slowed).
int slow_factor(const FaultInjection& fault, int this_rank, const std::string& point);

// Sleeps, exits or kills this process as `fault` says; returns true for "skip" (the
// caller skips its collectives), false after a sleep.
bool inject_fault(const FaultInjection& fault);

}  // namespace ncclsweep
