#pragma once
// --inject-fault RANK:ACTION@POINT, a documented testing aid (docs/reliability.md): one
// chosen rank misbehaves at the start of one sweep point's measurements, so deadlines,
// containment and the sweep going on can be shown on purpose.
//   sleep=SECONDS  hang that long (a hung rank: the point times out)
//   exit           exit with status 3 (a crash)
//   kill           SIGKILL itself (a crash without a word)
//   skip           skip the point's collectives (the other ranks wait in theirs)
//   slow=FACTOR    each timed call runs FACTOR times (soak, docs/soak.md), on a schedule
//                  instead of a point: @t=SECONDS from that time on, @flap=SECONDS
//                  normal and slow alternating for that long each (normal first)
// In workers (nccl engine) the worker misbehaves; with the mpi engine the MPI rank does.
#include <string>

namespace ncclsweep {

struct FaultInjection {
  int rank = -1;          // -1: none
  std::string action;     // "sleep" | "exit" | "kill" | "skip"
  double seconds = 0;     // sleep only
  std::string point = "default";  // label of the sweep point; "default" without a sweep
  double factor = 1;      // slow only: whole calls per call
  double from_s = 0;      // slow only (@t=): slowed from this many seconds into the timeline
  double flap_s = 0;      // slow only (@flap=): > 0 alternates normal and slow every flap_s

  bool applies(int this_rank, const std::string& this_point) const {
    return rank == this_rank && point == this_point;
  }
};

// Throws UsageError naming the text and the accepted form.
FaultInjection parse_fault_injection(const std::string& text);

// A slow fault's factor `elapsed_s` seconds into the timeline: `factor` while its
// schedule says slow, else 1 (and 1 for every other action).
double slow_factor_at(const FaultInjection& fault, double elapsed_s);

// The text parse_fault_injection reads (for the worker's start message); "" for none.
std::string to_text(const FaultInjection& fault);

// Sleeps, exits or kills this process as `fault` says; returns true for "skip" (the
// caller skips its collectives), false after a sleep.
bool inject_fault(const FaultInjection& fault);

}  // namespace ncclsweep
