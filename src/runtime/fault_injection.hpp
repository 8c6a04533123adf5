#pragma once
// --inject-fault RANK:ACTION@POINT, a documented testing aid (docs/reliability.md): one
// chosen rank misbehaves at the start of one sweep point's measurements, so deadlines,
// containment and the sweep going on can be shown on purpose.
//   sleep=SECONDS  hang that long (a hung rank: the point times out)
//   exit           exit with status 3 (a crash)
//   kill           SIGKILL itself (a crash without a word)
//   skip           skip the point's collectives (the other ranks wait in theirs)
// In workers (nccl engine) the worker misbehaves; with the mpi engine the MPI rank does.
#include <string>

namespace ncclsweep {

struct FaultInjection {
  int rank = -1;          // -1: none
  std::string action;     // "sleep" | "exit" | "kill" | "skip"
  double seconds = 0;     // sleep only
  std::string point = "default";  // label of the sweep point; "default" without a sweep

  bool applies(int this_rank, const std::string& this_point) const {
    return rank == this_rank && point == this_point;
  }
};

// Throws UsageError naming the text and the accepted form.
FaultInjection parse_fault_injection(const std::string& text);

// The text parse_fault_injection reads (for the worker's start message); "" for none.
std::string to_text(const FaultInjection& fault);

// Sleeps, exits or kills this process as `fault` says; returns true for "skip" (the
// caller skips its collectives), false after a sleep.
bool inject_fault(const FaultInjection& fault);

}  // namespace ncclsweep
