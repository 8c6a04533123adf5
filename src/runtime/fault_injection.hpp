#pragma once
// --inject-fault RANK:ACTION@POINT, a documented testing aid (docs/reliability.md): one
// chosen rank misbehaves at the start of one sweep point's measurements, so deadlines,
// containment and the sweep going on can be shown on purpose.
//   sleep=SECONDS  hang that long (a hung rank: the point times out)
//   exit           exit with status 3 (a crash)
//   kill           SIGKILL itself (a crash without a word)
//   skip           skip the point's collectives (the other ranks wait in theirs)
//   cpu-hog        keep every core the rank may run on busy while it measures
//                  (`ncclsweep probe`, `run --probe`: CpuHog below)
// In workers (nccl engine) the worker misbehaves; with the mpi engine the MPI rank does.
#include <string>
#include <sys/types.h>
#include <vector>

namespace ncclsweep {

struct FaultInjection {
  int rank = -1;          // -1: none
  std::string action;     // "sleep" | "exit" | "kill" | "skip" | "cpu-hog"
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

// The cpu-hog fault: a busy loop on each of `cpus`, in a child process of its own
// session at the highest priority it may take (real-time FIFO as root, else nice). Case 2's hypervisor
// housekeeping threads are outside the guest's scheduling group; so is this one, which
// is why it is not a thread of the rank: the kernel shares a core fairly between
// scheduling groups first, so a hog in the rank's own group would take only the rank's
// share and hide on a loaded machine. The child dies with its owner (and with the rank).
class CpuHog {
 public:
  explicit CpuHog(const std::vector<int>& cpus);
  ~CpuHog();
  CpuHog(const CpuHog&) = delete;
  CpuHog& operator=(const CpuHog&) = delete;

 private:
  pid_t child_ = -1;
};

}  // namespace ncclsweep
